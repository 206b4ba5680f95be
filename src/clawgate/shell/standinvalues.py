"""The programs a name the line sets may hold where a command runs it: the literal values the
line assigns it, and the environment's when the line may not have set it yet.

``MAKEPROG=make; if ninja --version; then MAKEPROG=ninja; fi; $MAKEPROG -j3`` runs make or
ninja; ``if [ -n "$CI" ]; then R=pytest; fi; $R -q`` runs pytest or whatever the environment
held. Read by ``standins.py``, which checks the line with each of these programs in the name's
place (and with each stand-in for the environment's value): the same reading as for a name the
line never sets, with the line's own choices added.

Only where every way the line sets the name is seen: each assignment is a plain one standing
on its own or a literal declaration (``export P=ninja``), each value one plain program word;
not a ``read``, ``printf -v``, arithmetic, ``P+=x``, a loop's variable, an assignment inside a
loop (the next round sees it), a function, ``eval``/``source`` and the like (``standins.py``
refuses those lines first); and no declaration of any other kind on the line (``declare -n
b=P`` makes ``b=rm`` an assignment to P; ``declare -u``; ``readonly``). A prefix assignment
(``P=x make``) sets the name for that program alone. The environment's value is ruled out
only by an assignment the line surely runs before every command the name runs
(``shell/constants.py``: not in a branch, a group, a pipeline, after ``&&``/``||``).
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.shell import clobbers
from clawgate.shell import model as m
from clawgate.shell.constants import surely_runs

_PROGRAM_WORD = lazy_pattern(r"[A-Za-z0-9_./+][A-Za-z0-9_./+@:-]*")
_DECLARERS = frozenset({"declare", "typeset", "local", "export", "readonly"})


def line_values(parsed: m.ParsedLine, name: str,
                chosen: frozenset[int]) -> tuple[tuple[str, ...], bool, bool] | None:
    """The literal values ``name`` may hold at the commands ``chosen`` (indexes) run it, in
    the order first assigned; whether the environment's value may still be there; whether
    one is empty. None when the line may set it in a way not read here."""
    named = clobbers.clobbered(parsed)
    if name in named or clobbers.EVERY in named or f"{name}+=" in parsed.source:
        return None  # a+=x appends: the value is not one the line wrote
    first_use = min(parsed.commands[i].offset for i in chosen)
    values: list[str] = []
    environment = True
    for index, cmd in enumerate(parsed.commands):
        pairs = [(a.name, a.value) for a in cmd.assignments]
        if cmd.words:
            if cmd.program not in clobbers.SETTERS:
                continue  # P=x make: for make alone (chosen commands: expanded first)
            declared = clobbers.declared(cmd)
            if declared is None:
                if cmd.program in _DECLARERS:
                    return None  # declare -n b=P, declare -u P, export P=$(…): not read here
                continue  # read, unset …: their names are clobbered (above)
            if cmd.program == "readonly" or any(
                    (w.value or "").startswith("-") and "r" in (w.value or "")
                    for w in cmd.words[1:]):
                return None  # a later assignment fails: which one holds is not read here
            pairs = [(a.name, a.value) for a in declared]
        for assigned, value in pairs:
            if assigned.partition("[")[0] != name:
                continue
            if index in chosen or "[" in assigned or value.value is None or \
                    (value.value and not _PROGRAM_WORD.fullmatch(value.value)):
                return None
            if value.value not in values:
                values.append(value.value)
            if cmd.offset < first_use and surely_runs(parsed.source, cmd):
                environment = False
    if not values:
        return None
    return tuple(v for v in values if v), environment, "" in values
