"""Options of an argv, normalised: ``-rf`` = ``-r -f`` = ``--recursive --force``, in any order.

Validators match on canonical option names, never on the raw text, so that every spelling of
the same command gets the same answer. Short options are single letters (``"r"``), long ones
keep their dashes (``"--no-preserve-root"``) unless an alias maps them to a short letter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from clawgate.lazyre import lazy_pattern
from clawgate.records import field, record
from clawgate.shell.model import SimpleCommand, Word

_NO_ALIASES: Mapping[str, str] = {}


@record(frozen=True, slots=True)
class Options:
    """What an argv says: option names, option values, and the operands left over."""

    flags: frozenset[str]
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    operands: tuple[Word, ...] = ()

    def has(self, *names: str) -> bool:
        return any(name in self.flags for name in names)

    def value(self, name: str) -> str | None:
        """The last value given to option ``name`` (options may repeat; the last one counts)."""
        found = self.values.get(name)
        return found[-1] if found else None

    @property
    def operand_values(self) -> tuple[str, ...]:
        return tuple(w.shown for w in self.operands)


# ``-XVALUE`` whose letters are literal and whose value starts with a quote or an expansion
# (``-C$HOME``, ``-o"$OUT"``): options, the rest their glued value.
_LITERAL_SHORT = lazy_pattern(r"^-[A-Za-z0-9]+(?=[$\"'])")
# ``--name=VALUE`` whose name is literal: an option even when its value is only known at run
# time (``--directory=$HOME``).
_LITERAL_LONG_NAME = lazy_pattern(r"^--[A-Za-z0-9][\w-]*=")


def parse_options(words: Sequence[Word], *, aliases: Mapping[str, str] = _NO_ALIASES,
                  takes_value: frozenset[str] = frozenset()) -> Options:
    """Split ``words`` (the arguments, without the program) into options and operands.

    ``aliases`` maps a spelling (``"R"``, ``"--recursive"``) to its canonical name (``"r"``);
    ``takes_value`` holds canonical names whose value is glued (``-ofile``, ``--out=f``) or is the
    next word. A long option also counts in every unambiguous abbreviation of the long names
    of either. ``--`` ends the options; a lone ``-`` is an operand (standard input).
    """
    flags: set[str] = set()
    values: dict[str, list[str]] = {}
    operands: list[Word] = []
    ended = False
    i = 0
    while i < len(words):
        word = words[i]
        text = word.shown
        i += 1
        head = _LITERAL_SHORT.match(text) if word.value is None and not ended else None
        if head is not None:  # -C$HOME, -o"$OUT": the option letters are as written
            i = _short(text, words, i, aliases=aliases, takes_value=takes_value, flags=flags,
                       values=values, letters=len(head.group(0)))
        elif ended or len(text) < 2 or text[0] != "-" or (
                word.value is None and not _LITERAL_LONG_NAME.match(text)):
            operands.append(word)
        elif text == "--":
            ended = True
        elif text.startswith("--"):
            name, eq, glued = text.partition("=")
            canon = aliases.get(name) or _abbreviated(name, aliases, takes_value)
            flags.add(canon)
            if canon in takes_value:
                if eq:
                    values.setdefault(canon, []).append(glued)
                elif i < len(words):
                    values.setdefault(canon, []).append(words[i].shown)
                    i += 1
        else:
            i = _short(text, words, i, aliases=aliases, takes_value=takes_value, flags=flags,
                       values=values)
    return Options(frozenset(flags), {k: tuple(v) for k, v in values.items()}, tuple(operands))


def _abbreviated(name: str, aliases: Mapping[str, str], takes_value: frozenset[str]) -> str:
    """The canonical name of the long option ``name`` spells: getopt_long (GNU tools), git's
    and argparse's parsers take any unambiguous prefix (``rm --rec --forc`` is ``rm
    --recursive --force``). Only the options listed count; a prefix of two of them, or of
    none, stays as written."""
    if name in takes_value or len(name) < 3:
        return name
    found = {aliases.get(known, known) for known in (*aliases, *takes_value)
             if known.startswith(name) and known.startswith("--")}
    return found.pop() if len(found) == 1 else name


def _short(text: str, words: Sequence[Word], i: int, *, aliases: Mapping[str, str],
           takes_value: frozenset[str], flags: set[str], values: dict[str, list[str]],
           letters: int | None = None) -> int:
    """A cluster of short options (``-rf``, ``-ofile``); returns the index of the next word.
    ``letters``: how many characters of ``text`` are written as they are (the rest comes
    from an expansion and can only be a glued value)."""
    for pos in range(1, len(text) if letters is None else letters):
        letter = text[pos]
        canon = aliases.get(letter, letter)
        flags.add(canon)
        if canon in takes_value:
            rest = text[pos + 1 :]
            if rest:
                values.setdefault(canon, []).append(rest)
            elif i < len(words):
                values.setdefault(canon, []).append(words[i].shown)
                i += 1
            break
    return i


def subcommand(words: Sequence[Word], global_with_value: frozenset[str] = frozenset()
               ) -> tuple[str | None, int]:
    """The first operand after a program's global options (``git -C dir commit`` -> commit)
    and its index in ``words``; ``global_with_value`` are the global options that take a value
    as the next word."""
    i = 1
    while i < len(words):
        text = words[i].shown
        if text.startswith("-") and len(text) > 1:
            i += 2 if text in global_with_value else 1
            continue
        return text, i
    return None, len(words)


_GIT_GLOBALS: list[frozenset[str]] = []  # git's global options that take a value, once


def git_global_with_value() -> frozenset[str]:
    """git's global options that take the next word as their value (``-C DIR``, ``-c K=V``),
    from the program catalog."""
    if not _GIT_GLOBALS:
        from clawgate import programs
        from clawgate.programs.scan import VALUE_KINDS

        options = (programs.entry("git") or {}).get("options", {})
        _GIT_GLOBALS.append(frozenset(s for s, kind in options.items() if kind in VALUE_KINDS))
    return _GIT_GLOBALS[0]


def git_subcommand(cmd: SimpleCommand) -> tuple[str | None, tuple[Word, ...]]:
    """(subcommand, its arguments) of a git command, skipping git's global options.

    The git validators ask this about the same command one after the other: the latest
    answer is kept by the command object (frozen, so it holds)."""
    if cmd.program != "git":
        return None, ()
    last = _last_git[0]  # one read: another thread may replace it meanwhile
    if last[0] is cmd:
        return last[1]
    name, index = subcommand(cmd.words, git_global_with_value())
    found = (name, cmd.words[index + 1 :])
    _last_git[0] = (cmd, found)  # holding cmd keeps its id from being reused meanwhile
    return found


_last_git: list[tuple[SimpleCommand | None, tuple[str | None, tuple[Word, ...]]]] = [
    (None, (None, ()))]
