"""Program identity: ``./cat``, ``tools/grep`` and ``/tmp/x/git`` run a file from that place, not
the system tool of the same name. Validators still see the basename (``./rm -rf /`` is judged as
``rm``, for deny purposes); the tier is the file's: a project script inside the workspace
(medium), anything else beyond the system and user tool directories high (ASK)."""

from __future__ import annotations

from clawgate.decision import Outcome, Risk, Verdict
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.paths import resolve, under

# Where installed programs live: root-owned trees, and package managers' bin directories.
SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/snap", "/nix/store",
                "/run/current-system", "/Applications", "/System", "/Library")
_SYSTEM_PREFIXES = tuple(tree + "/" for tree in SYSTEM_TREES)
_TOOL_DIRS = frozenset({"bin", "sbin", "shims", "toolchains", "libexec"})
_MEDIUM = Verdict(Outcome.PASSTHROUGH, risk=Risk.MEDIUM)


def installed(path: str, ctx: Context) -> bool:
    """A program from the system, or from a tool directory under the home directory
    (``~/.cargo/bin``, ``~/.local/bin``, ``~/.pyenv/shims``, ``~/go/bin``)."""
    if any(under(path, tree) for tree in SYSTEM_TREES):
        return True
    if under(path, ctx.home) and not under(path, ctx.workspace):
        parts = path[len(ctx.home) + 1 :].split("/")[:-1]
        return bool(parts) and (parts[0].startswith(".") or parts[0] in ("go", "bin")) and any(
            p in _TOOL_DIRS for p in parts)
    return False


def _where(word: Word, ctx: Context, rule: str, what: str) -> Verdict | None:
    """The verdict for running a program from the file or directory ``word`` names, None when
    it is an installed one."""
    path = resolve(word, ctx).path
    if path is None or installed(path, ctx):
        return None
    if under(path, ctx.workspace):
        return _MEDIUM
    return Verdict.of(Outcome.ASK, rule, f"{what} {path}, outside the workspace and the "
                      "system's program directories", hint="run the installed program by name",
                      risk=Risk.HIGH)


@register
class PathQualifiedProgram(Validator):
    """A program named by a path runs that file, and ``PATH=dir:$PATH name …`` finds ``name``
    in ``dir`` first: inside the workspace it is a project script (medium, even when it is
    called ``cat``); from anywhere else beyond the system and user tool directories (``/tmp``,
    another checkout, a download) it is high: ASK (for a PATH prefix CG-ENV-002 also speaks).

    Bad: ``/tmp/x/git status``, ``PATH=/tmp/x:$PATH git status``. Harmless: ``./gradlew
    build``, ``/usr/bin/env python3 -V``, ``PATH=./node_modules/.bin:$PATH eslint .``.
    """

    id = "CG-IDENT-001"

    def shapes(self, program: str | None) -> int:
        return sh.ODD_NAME | sh.ASSIGN

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not cmd.words:
            return Verdict.passthrough()
        value = cmd.words[0].value
        if value is None or "/" not in value:
            return self._search_path(cmd, ctx) if cmd.assignments else Verdict.passthrough()
        if value.startswith(_SYSTEM_PREFIXES) and "/." not in value:
            return Verdict.passthrough()  # /usr/bin/x: no need to resolve
        found = _where(cmd.words[0], ctx, self.id, "runs")
        if found is None:
            return Verdict.passthrough()
        if found.outcome is Outcome.ASK and value.startswith(".."):
            return _MEDIUM  # ../configure after a `cd build`: relative to a place not known here
        return found

    def _search_path(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        value = next((a.value for a in cmd.assignments if a.name == "PATH"), None)
        if value is None or cmd.words[0].value is None:
            return Verdict.passthrough()
        for entry in value.shown.split(":"):
            if entry.startswith("$"):
                break  # the old value: the directories before it come first
            found = _where(Word(entry, entry), ctx, self.id,
                           f"finds {cmd.words[0].shown} in") if entry else None
            if found is not None:
                return found
        return Verdict.passthrough()
