"""``ls PATHS | xargs CMD``: ls prints a file operand as named (one a line when piped), so xargs
runs CMD on it: ``ls ~/.ssh/id_* | xargs cat`` is ``cat ~/.ssh/id_*``. Each operand is put in as
written (a glob or ``~`` expands where the line runs). Only what ls prints as given counts: the
matches of a glob (taken for files) and, with ``-d``, any operand; a directory lists its entries
by bare name, which is not known here."""

from __future__ import annotations

import shlex

from clawgate.shell import model as m

# ls options that change neither which names it prints nor how (sorting, hidden entries,
# directories as themselves, one a line)
_PLAIN_FLAGS = frozenset("1dartSUXvAc")


def listed_operands(feeder: m.SimpleCommand) -> list[str] | None:
    """The operands of ``ls`` as shell text (marked raw), or None when it has none or an
    option that changes what it prints (``-l``, ``-F``, ``--format``…)."""
    from clawgate.shell.xargsfeed import RAW

    found: list[str] = []
    itself = False  # -d: a directory operand is printed as itself
    for word in feeder.words[1:]:
        text = word.text
        if word.value is not None and word.value.startswith("-") and not found:
            if word.value.startswith("--") or not set(word.value[1:]) <= _PLAIN_FLAGS:
                return None
            itself = itself or "d" in word.value
            continue
        if word.value is None and not word.expansions <= {m.TILDE, m.GLOB, m.BRACE}:
            return None  # $(…), $x: not known here
        if not itself and (m.GLOB not in word.expansions or text.endswith("/")):
            return None  # a directory lists its entries by bare name: not known here
        if word.expansions & {m.TILDE, m.GLOB, m.BRACE} or word.value is None:
            found.append(RAW + text)
        else:
            found.append(RAW + shlex.quote(word.value))
    return found or None
