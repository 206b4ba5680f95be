"""``hash -p PATH NAME``: from then on, in that shell, ``NAME`` runs the program at ``PATH``
(bash looks a name up in its table before it searches ``$PATH``). ``hash -p /bin/rm ls; ls -rf
~`` empties home while every later word says ``ls``."""

from __future__ import annotations

import posixpath

from clawgate.decision import Verdict
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.paths import resolve, under


def bindings(cmd: SimpleCommand) -> list[tuple[Word, str]] | None:
    """(PATH, NAME) of each name ``hash -p PATH NAME…`` binds; None when what it binds is not
    known here (a word only known at run time); [] for a ``hash`` that binds nothing."""
    if cmd.program != "hash":
        return []
    words = cmd.words[1:]
    path: Word | None = None
    names: list[str] = []
    i = 0
    while i < len(words):
        value = words[i].value
        if value is None:
            return None
        if value == "--":
            names += [w.value for w in words[i + 1 :] if w.value is not None]
            if any(w.value is None for w in words[i + 1 :]):
                return None
            break
        if value.startswith("-") and len(value) > 1 and path is None and not names:
            if "p" in value[1:]:  # -p PATH, -rp PATH, -pPATH
                rest = value[value.index("p", 1) + 1 :]
                if rest:
                    path = Word(rest, rest)
                elif i + 1 < len(words):
                    i += 1
                    path = words[i]
                    if path.value is None:
                        return None
        else:
            names.append(value)
        i += 1
    if path is None:
        return []
    return [(path, name) for name in names]


def _rebinds(path: Word, name: str) -> bool:
    """``NAME`` is bound to a program of another name (``hash -p /usr/bin/git git`` is the same
    program where it already was)."""
    return posixpath.basename((path.value or "").rstrip("/")) != name


def _project_tool(path: Word, ctx: Context) -> bool:
    """``PATH`` is a file of the workspace (``./tools/mygit``): the project's own tool, judged as
    that file wherever the name is used later on the line (CG-WRAP-022)."""
    found = resolve(path, ctx).path
    return found is not None and under(found, ctx.workspace) and found != ctx.workspace


@register
class HashBinding(Validator):
    """``hash -p PATH NAME`` where PATH is a program of another name: the shell then runs it
    for every ``NAME``, which no later reading of ``NAME`` sees. It asks; a binding only known
    at run time asks too. Each later command of the line that uses the name is judged as the
    program bound (CG-WRAP-022).

    Bad: ``hash -p /bin/rm ls``. Harmless: ``hash -r``, ``hash -p /usr/bin/git git``, ``hash -p
    ./tools/mygit git`` (a tool of the project).
    """

    id = "CG-WRAP-021"
    programs = frozenset({"hash"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        found = bindings(cmd)
        if found is None:
            return Verdict.ask(self.id, "hash binds a name only known at run time to a program",
                               hint="run the program by its own name")
        rebound = [(p, n) for p, n in found if _rebinds(p, n) and not _project_tool(p, ctx)]
        if not rebound:
            return Verdict.passthrough()
        path, name = rebound[0]
        return Verdict.ask(self.id, f"hash makes {name!r} run {path.shown} in this shell from "
                           "now on", hint="run the program by its own name")


@register
class HashBoundUses(LineValidator):
    """The commands after ``hash -p PATH NAME`` on the same line that use ``NAME`` run PATH:
    each is checked as PATH with its words (``hash -p /bin/rm ls; ls -rf ~`` as ``/bin/rm -rf
    ~``). A binding only known at run time makes every later command unknown: CG-WRAP-021
    asks for it.

    Bad: ``hash -p /bin/rm ls; ls -rf ~``. Harmless: ``hash -r; ls``.
    """

    id = "CG-WRAP-022"

    def line_shapes(self) -> int:
        return ls.MULTI

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if len(parsed.commands) < 2 or not any(c.program == "hash" for c in parsed.commands):
            return Verdict.passthrough()
        bound: dict[str, Word] = {}
        uses: list[str] = []
        for cmd in parsed.commands:
            first = cmd.words[0].value if cmd.words else None
            if first is not None and first in bound:
                uses.append(" ".join((bound[first].text, *(w.text for w in cmd.words[1:]))))
            for path, name in bindings(cmd) or ():
                bound[name] = path
        return Verdict.unwrap(*uses) if uses else Verdict.passthrough()
