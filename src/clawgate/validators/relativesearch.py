"""A relative entry of a search path, looked up from wherever a later command runs.

``PATH=.:$PATH``, ``PATH=:$PATH`` (an empty entry is the current directory) or
``PATH=bin:$PATH`` set in the workspace finds the project's own programs. But the entry is
not made absolute when it is set: every program looked up by name afterwards is looked for
relative to the directory that command runs in. After ``cd /tmp/x`` or ``cd ~/Downloads``
the next ``gcc``, ``ls`` or ``$CC`` is whatever file of that name lies there, a file anyone
may have put in a scratch or download directory (what CG-IDENT-001 asks about when it is
named). The same holds for the module paths (``PYTHONPATH=.``): the next import is read from
there. ASK when a command after such an assignment may run in a directory where an entry
resolves outside the workspace, or in one known only at run time.
"""

from __future__ import annotations

import posixpath

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.degreeline import UNKNOWN, places
from clawgate.validators.envvars import SEARCH_PATHS, assignments
from clawgate.validators.paths import under

# Builtins whose assignments stay set for the rest of the line.
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})


def relative_entries(cmd: SimpleCommand) -> list[tuple[str, str]]:
    """(variable, entry) for each entry of a search path the command sets that is relative
    (``.``, ``bin``, ``..``, or empty: the current directory)."""
    found = []
    for name, value in assignments(cmd):
        if name not in SEARCH_PATHS:
            continue
        for entry in value.shown.strip("\"'").split(":"):
            if not entry.startswith(("/", "~", "$", "`")):
                found.append((name, entry))
    return found


@register
class RelativeSearchEntry(LineValidator):
    """A search path with a relative entry (``PATH=.:$PATH``, ``PATH=:$PATH``,
    ``PYTHONPATH=.``) on a line that then runs a command in a directory outside the
    workspace, or one known only at run time: programs and modules are looked up there.

    Bad: ``PATH=.:$PATH; cd /tmp/x; gcc --version``. Harmless: ``PATH=./bin:$PATH; make``.
    """

    id = "CG-IDENT-008"

    def line_shapes(self) -> int:
        return ls.EQUALS  # its first test needs an assignment: NAME=VALUE

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        source = parsed.source
        if "PATH" not in source and "LIB" not in source:
            return NO_OPINION
        kept: list[tuple[int, str, str]] = []  # (from where, variable, entry)
        own: dict[int, list[tuple[str, str]]] = {}  # a prefix: that command's alone
        for cmd in parsed.commands:
            found = relative_entries(cmd)
            if found and (not cmd.words or cmd.program in _DECLARERS):
                kept += [(cmd.offset, name, entry) for name, entry in found]
            elif found:
                own[id(cmd)] = found
        if not kept and not own:
            return NO_OPINION
        for cmd, directories in places(parsed, ctx, unknown=UNKNOWN):
            entries = [(n, e) for at, n, e in kept if at <= cmd.offset] + own.get(id(cmd), [])
            if not cmd.words or not entries:
                continue
            for directory in directories:
                for name, entry in entries:
                    where = None if directory == UNKNOWN else \
                        posixpath.normpath(posixpath.join(directory, entry or "."))
                    if where is None or not under(where, ctx.workspace):
                        shown = entry or "an empty entry"
                        return Verdict.ask(
                            self.id, f"{name}'s relative entry {shown!r} is looked up from "
                            f"{'a directory known only at run time' if where is None else where}"
                            f", where {cmd.words[0].text!r} runs",
                            hint=f"put an absolute directory in {name}")
        return NO_OPINION
