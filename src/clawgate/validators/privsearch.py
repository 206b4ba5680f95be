"""A status query run with privileges, found through a PATH the line itself set.

``sudo`` and ``doas`` look a bare program name up in the caller's ``PATH`` (``sudo`` does so
unless the sudoers file sets ``secure_path``). ``sudo getenforce`` runs the system's
getenforce, a query (``validators/privquery.py``); after ``export PATH=./bin:$PATH`` on the
same line it may run the project's ``bin/getenforce`` as root, which is no query at all.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.envvars import assignments, system_bin
from clawgate.validators.privquery import ELEVATORS, privileged_query

_OWN = frozenset({"$PATH", "${PATH}"})
# The builtins whose assignments stay for the rest of the line (a prefix PATH=… cmd does not)
_SETTERS = frozenset({"export", "declare", "typeset", "readonly", "local"})


def _first_own_entry(value: Word) -> str | None:
    """The first entry of a PATH value that is neither the old value nor one of the system's
    program directories: a directory searched before the system's; None when there is none."""
    for entry in value.shown.strip("\"'").split(":"):
        if entry in _OWN:
            return None  # what follows only adds programs the system does not have
        if not entry:
            return "."  # an empty entry is the current directory
        if not system_bin(entry):
            return entry
    return None


@register
class PrivilegedSearchPath(LineValidator):
    """A status query run with ``sudo`` or ``doas`` after the line put a directory of its own
    first on ``PATH`` (``export PATH=./bin:$PATH; sudo getenforce``): the name may be found
    there, a file of the project run as root instead of the system's query. Asked, as
    ``sudo ./bin/getenforce`` is.

    Bad: ``export PATH=./bin:$PATH; sudo auditctl -l``.
    Harmless: ``sudo auditctl -l``, ``export PATH=/usr/local/bin:$PATH; sudo auditctl -l``.
    """

    id = "CG-IDENT-007"

    def line_shapes(self) -> int:
        return 0  # its first test: a command run by sudo or doas

    def line_programs(self) -> frozenset[str]:
        return ELEVATORS

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        commands = sorted(parsed.commands, key=lambda c: c.offset)
        if not any(c.program in ELEVATORS for c in commands):
            return NO_OPINION
        exported: str | None = None  # the line's own directory first on PATH, as set so far
        for cmd in commands:
            own = _path_entry(cmd)
            if cmd.program in ELEVATORS:
                entry = own if own is not None else exported
                query = privileged_query(cmd) if entry is not None else None
                if query is not None and query.words and "/" not in query.words[0].shown:
                    return Verdict.of(
                        Outcome.ASK, self.id,
                        f"{cmd.program} looks {query.words[0].shown} up in a PATH the line "
                        f"put {entry} first on: a file there would run as root",
                        hint="run the query before changing PATH", risk=Risk.HIGH)
            elif ((not cmd.words or cmd.program in _SETTERS) and _sets_path(cmd)) or (
                    cmd.program in ("printf", "read") and own is not None):
                exported = own  # PATH=…; or export PATH=…: the rest of the line searches it
        return NO_OPINION


def _sets_path(cmd: SimpleCommand) -> bool:
    return any(name == "PATH" for name, _ in assignments(cmd))


def _path_entry(cmd: SimpleCommand) -> str | None:
    """The first directory of its own a command's PATH assignment puts before the system's
    (``PATH=./bin:$PATH``, ``export PATH="$PWD/tools:$PATH"``, an empty entry: ``.``); a
    value only known at run time for ``printf -v PATH`` and ``read PATH``; None when it sets
    none, or only appends (``PATH+=:./bin``)."""
    words = [w.value for w in cmd.words[1:]]
    if (cmd.program == "printf" and "PATH" in words and words[words.index("PATH") - 1] == "-v") \
            or (cmd.program == "read" and "PATH" in words):
        return "a value only known at run time"
    for name, value in assignments(cmd):
        if name == "PATH":
            return None if "PATH+=" in cmd.text else _first_own_entry(value)
    return None
