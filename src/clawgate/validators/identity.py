"""Program identity: ``./cat``, ``tools/grep`` and ``/tmp/x/git`` run a file from that place, not
the system tool of the same name. Validators still see the basename (``./rm -rf /`` is judged as
``rm``, for deny purposes); the tier is the file's: a project script inside the workspace
(medium), anything else beyond the system and user tool directories high (ASK)."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.shell.model import TILDE, ParsedLine, SimpleCommand, Word
from clawgate.validators import lineshapes as ls
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.paths import resolve, under

# Where installed programs live: root-owned trees, and package managers' bin directories.
SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/snap", "/nix/store",
                "/run/current-system", "/Applications", "/System", "/Library")
_SYSTEM_PREFIXES = tuple(tree + "/" for tree in SYSTEM_TREES)
_TOOL_DIRS = frozenset({"bin", "sbin", "shims", "toolchains", "libexec"})
_MEDIUM = Verdict(Outcome.PASSTHROUGH, risk=Risk.MEDIUM)
_LOADERS = frozenset({"hash", ".", "source"})
_STDIN = ("/dev/stdin", "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/")
_TILDE = frozenset({TILDE})
_CD_OR_PUSHD = frozenset({"cd", "pushd"})


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
        return sh.ANY if program in _LOADERS else sh.ODD_NAME | sh.ASSIGN

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not cmd.words:
            return NO_OPINION
        value = cmd.words[0].value
        if cmd.program in _LOADERS and len(cmd.words) > 1:
            return self._loaded(cmd, ctx)
        if value is None or "/" not in value:
            return self._search_path(cmd, ctx) if cmd.assignments else NO_OPINION
        if value.startswith(_SYSTEM_PREFIXES) and "/." not in value:
            return NO_OPINION  # /usr/bin/x: no need to resolve
        found = _where(cmd.words[0], ctx, self.id, "runs")
        if found is None:
            return NO_OPINION
        if found.outcome is Outcome.ASK and value.startswith(".."):
            return _MEDIUM  # ../configure after a `cd build`: relative to a place not known here
        return found

    def _loaded(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        """``hash -p FILE name`` makes ``name`` run FILE; ``. FILE``/``source FILE`` runs it in
        this shell: a file from beyond the workspace, the home directory's dot directories and
        the system's program directories (``/tmp``, ``/dev/shm``, ``~/Downloads``) is high."""
        words = cmd.words[1:]
        if cmd.program == "hash":
            at = next((i for i, w in enumerate(words) if w.value == "-p"), None)
            if at is None or at + 1 >= len(words):
                return NO_OPINION
            word = words[at + 1]
        else:
            word = words[0]
        path = resolve(word, ctx).path if word.value is not None else None
        if path is not None and path.startswith(_STDIN):
            return NO_OPINION  # . /dev/stdin <<< '…': the text given is read itself
        if path is None or installed(path, ctx) or under(path, ctx.workspace) or (
                under(path, ctx.home) and path[len(ctx.home) + 1 :].startswith(".")):
            return NO_OPINION  # ~/.bashrc, ~/.nvm/nvm.sh: the user's own set-up
        return Verdict.of(Outcome.ASK, self.id, f"{cmd.program} runs {path}, outside the "
                          "workspace and the system's program directories",
                          hint="run the installed program by name", risk=Risk.HIGH)

    def _search_path(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        value = next((a.value for a in cmd.assignments if a.name == "PATH"), None)
        if value is None or cmd.words[0].value is None:
            return NO_OPINION
        for entry in value.shown.split(":"):
            if entry.startswith("$"):
                break  # the old value: the directories before it come first
            spelled = Word(entry, entry, False, _TILDE if entry.startswith("~") else frozenset())
            found = _where(spelled, ctx, self.id,
                           f"finds {cmd.words[0].shown} in") if entry else None
            if found is not None:
                return found
        return NO_OPINION


@register
class AliasedName(LineValidator):
    """An alias defined on the line changes what a later name on it runs (in a shell that
    expands aliases: a persistent agent shell, an interactive one, a script with
    ``expand_aliases``): ``alias ls=rm; ls -rf ~`` runs ``rm -rf ~``, ``alias g=git; g push
    --force`` a force push. Each later use is checked as the body with its arguments. An alias
    that gives a program's name to a different program that is not a mere reader (``alias
    ls=rm``, ``alias cat=curl``) hides what the next plain command does: ASK.

    Bad: ``alias ls=rm; ls -rf ~``. Harmless: ``alias ll='ls -la'; ll``.
    """

    id = "CG-IDENT-002"

    def line_shapes(self) -> int:
        return ls.ALIAS  # its first test: "alias" in the line

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "alias" not in parsed.source:
            return NO_OPINION
        aliases: dict[str, str] = {}
        uses: list[str] = []
        shadowing: str | None = None
        for cmd in parsed.commands:
            if cmd.program in ("alias", "unalias"):
                for word in cmd.words[1:]:
                    name, equals, body = (word.value or "").partition("=")
                    if cmd.program == "unalias":
                        aliases.pop(word.value or "", None)
                    elif equals and not name.startswith("-"):
                        aliases[name] = body
                        shadowing = shadowing or shadows(name, body)
                continue
            used = cmd.name_word
            if used is not None and not used.quoted and used.value in aliases:
                rest = " ".join(w.text for w in cmd.words[1:])
                uses.append(f"{aliases[used.value]} {rest}".strip())
        if shadowing is not None:
            return Verdict.unwrap(*uses, outcome=Outcome.ASK, rule_id=self.id,
                                  message=shadowing)
        return Verdict.unwrap(*uses) if uses else NO_OPINION


def shadows(name: str, body: str) -> str | None:
    """Why ``alias name=body`` hides what ``name`` does, or None."""
    from clawgate import programs

    first = body.split(maxsplit=1)[0].rsplit("/", 1)[-1] if body.strip() else ""
    if not first or first == name or programs.entry(name) is None:
        return None
    entry = programs.entry(first)
    if entry is not None and entry["tier"] == "low":
        return None  # alias ll='ls -la': a reader under another reader's name
    return f"the alias {name!r} makes the program name {name} run {first}"


@register
class ProgramAfterCd(LineValidator):
    """A program named by a relative path after a ``cd`` runs from where the ``cd`` went:
    ``cd /tmp/x && ./git status`` runs ``/tmp/x/git``. Judged as CG-IDENT-001 judges it from
    that place (high from beyond the workspace, the system's and the user's tool directories).

    Bad: ``cd /tmp/x && ./git status``. Harmless: ``cd tools && ./build.sh``.
    """

    id = "CG-IDENT-003"

    def line_shapes(self) -> int:
        return 0  # its first test: a cd or pushd

    def line_programs(self) -> frozenset[str]:
        return _CD_OR_PUSHD

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        source = parsed.source
        if ("cd" not in source and "pushd" not in source) or "/" not in source:
            return NO_OPINION
        commands = parsed.commands
        if not any(c.program in _CD_OR_PUSHD for c in commands) or not any(
                _relative_name(c) for c in commands):
            return NO_OPINION
        from clawgate.records import replace
        from clawgate.validators.degreeline import places

        for cmd, dirs in places(parsed, ctx):
            if not _relative_name(cmd):
                continue
            for here in dirs:
                if here == ctx.cwd:
                    continue
                found = _where(cmd.words[0], replace(ctx, cwd=here), self.id,
                               f"after cd {here}: runs")
                if found is not None and found.outcome is Outcome.ASK:
                    return found
        return NO_OPINION


def _relative_name(cmd: SimpleCommand) -> bool:
    value = cmd.words[0].value if cmd.words else None
    return value is not None and "/" in value and not value.startswith(("/", "~"))
