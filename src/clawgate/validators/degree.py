"""Destruction by degree: a recursive or forced delete outside the workspace and the temporary
directories is DENY; inside the workspace, recursive deletes, ``shred`` and ``truncate`` ASK
unless every target is regenerable (build output, caches, installed dependencies)."""

from __future__ import annotations

from collections.abc import Iterator

from clawgate.decision import Verdict
from clawgate.shell.model import GLOB, TILDE, SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.deletes import find_start_points
from clawgate.validators.flags import parse_options
from clawgate.validators.paths import in_temp, resolve, under
from clawgate.validators.regenerable import regenerable
from clawgate.validators.winpaths import is_drive_path, unquote
from clawgate.validators.xargsfeed import ITEM

_RM_ALIASES = {"R": "r", "--recursive": "r", "--force": "f"}
_FIND_TESTS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"})
_FIND_DELETERS = frozenset({"rm", "shred", "unlink"})
_ERASERS = frozenset({"shred", "truncate", "srm", "wipe"})
PROGRAMS = frozenset({"rm", "find", "unlink", *_ERASERS})
OUTSIDE, INSIDE = "CG-DEG-001", "CG-DEG-002"
_TILDE = frozenset({TILDE})


def _targets(cmd: SimpleCommand) -> tuple[tuple[Word, ...], bool, bool] | None:
    """(targets, recursive, forced) of a delete, or None when ``cmd`` deletes nothing."""
    program = cmd.program
    if program == "rm":
        options = parse_options(cmd.words[1:], aliases=_RM_ALIASES)
        return options.operands, options.has("r"), options.has("f")
    if program == "find":
        roots = _find_roots(cmd)
        return None if roots is None else (roots, True, True)
    if program == "unlink":
        return cmd.words[1:], False, False
    if program in _ERASERS:
        options = parse_options(cmd.words[1:], takes_value=frozenset(
            {"s", "r", "o", "n", "--size", "--reference", "--iterations"}))
        return options.operands, False, program != "truncate"
    return None


def _find_roots(cmd: SimpleCommand) -> tuple[Word, ...] | None:
    """Start points of ``find … -delete`` (or ``-exec rm``), None when it deletes nothing."""
    values = [w.shown for w in cmd.words[1:]]
    deletes = "-delete" in values or any(
        v in ("-exec", "-execdir", "-ok", "-okdir") and i + 1 < len(values)
        and values[i + 1].rsplit("/", 1)[-1] in _FIND_DELETERS for i, v in enumerate(values))
    if not deletes:
        return None
    return find_start_points(cmd.words[1:])


def _find_patterns(cmd: SimpleCommand) -> Iterator[str]:
    words = cmd.words
    for index, word in enumerate(words[:-1]):
        if word.shown in _FIND_TESTS:
            yield words[index + 1].shown.rsplit("/", 1)[-1]


def fed_targets_spared(finder: SimpleCommand, ctx: Context) -> bool:
    """A ``find`` that lists only regenerable things: its name tests or its start points."""
    patterns = list(_find_patterns(finder))
    if patterns:
        return all(regenerable(f"{ctx.workspace}/{p}", ctx.workspace, ctx.regenerable)
                   for p in patterns)
    roots = [resolve(w, ctx).path for w in _find_start(finder)]
    return bool(roots) and all(
        r is not None and regenerable(r, ctx.workspace, ctx.regenerable) for r in roots)


def _find_start(finder: SimpleCommand) -> Iterator[Word]:
    for word in finder.words[1:]:
        if word.shown.startswith(("-", "(", "!")):
            return
        yield word


def _spared(cmd: SimpleCommand, word: Word, path: str, ctx: Context) -> bool:
    """A delete inside the workspace that loses nothing a build cannot bring back."""
    if regenerable(path, ctx.workspace, ctx.regenerable):
        return True
    if GLOB in word.expansions and word.value is not None:
        last = word.value.rstrip("/").rsplit("/", 1)[-1]
        return regenerable(f"{path}/{last}", ctx.workspace, ctx.regenerable)
    if cmd.program == "find":
        patterns = list(_find_patterns(cmd))
        return bool(patterns) and all(
            regenerable(f"{path}/{p}", ctx.workspace, ctx.regenerable) for p in patterns)
    return False


def outside(cmd: SimpleCommand, ctx: Context) -> Verdict | None:
    """DENY for a recursive or forced delete outside the workspace and the temp directories."""
    found = _targets(cmd) if cmd.program in PROGRAMS else None
    if found is None or not (found[1] or found[2] or any(ITEM in w.text for w in found[0])):
        return None  # one plain delete; xargs feeding items is many
    for word in found[0]:
        if is_drive_path(unquote(word.text)):
            return Verdict.deny(OUTSIDE, f"{cmd.program} deletes {word.text}, a Windows drive "
                                "path (Git Bash and WSL take it as one)")
        path = resolve(word, ctx).path or anchor(word, ctx)
        if path is None or under(path, ctx.workspace) or in_temp(path):
            continue
        if path.startswith("/dev/") and cmd.program == "rm":
            continue  # rm -f /dev/shm/x is a temp; other devices are CG-CAT's
        return Verdict.deny(OUTSIDE, f"{cmd.program} deletes {path}, outside the workspace",
                            hint="delete it by hand if it must go")
    return None


def anchor(word: Word, ctx: Context) -> str | None:
    """The literal directory a target only known at run time starts from: ``/"$ITEM"`` is
    somewhere under ``/``, ``~/"$X"`` under home. None when nothing literal leads it (``"$X"``)
    or it leads into the workspace (``build/$name``: judged as unknown elsewhere)."""
    text = word.text.replace('"', "").replace("'", "")
    cut = min((i for i in (text.find("$"), text.find("`")) if i >= 0), default=-1)
    head = text[:cut].rpartition("/")[0] + "/" if cut > 0 and "/" in text[:cut] else ""
    if not head.startswith(("/", "~")):
        return None
    found = resolve(Word(head, head, expansions=_TILDE if head.startswith("~") else
                         frozenset()), ctx).path
    if found is None or under(found, ctx.workspace):
        return None
    return found.rstrip("/") + "/…" if found != "/" else "/…"


def inside(cmd: SimpleCommand, ctx: Context) -> Verdict | None:
    """ASK for a recursive delete, ``shred`` or ``truncate`` of what no build brings back."""
    found = _targets(cmd) if cmd.program in PROGRAMS else None
    if found is None or not (found[1] or cmd.program in _ERASERS):
        return None
    for word in found[0]:
        if word.value == "{}":
            continue  # find -exec rm {}: the find command was judged with its tests
        path = resolve(word, ctx).path
        if path is None or not under(path, ctx.workspace) or _spared(cmd, word, path, ctx):
            continue
        what = "the repository's history" if path.rsplit("/", 1)[-1] == ".git" else path
        return Verdict.ask(INSIDE, f"{cmd.program} deletes {what}, which no build brings "
                           "back", hint="delete build output only, or confirm")
    return None


@register
class DeleteOutsideWorkspace(Validator):
    """A recursive or forced delete (``rm -r``/``rm -f``, ``find -delete``, ``shred``) of a path
    outside the workspace and the temporary directories, with ``sudo`` or without: an approval
    given in a hurry is how homes get wiped, so it is refused outright. (Commands a wrapper
    runs; a line's own commands are judged by CG-DEG-003, which follows ``cd``.)

    Bad: ``sudo rm -f /etc/hosts``, ``rm -rf ~/.config/app``. Harmless: ``rm -rf /tmp/build``.
    """

    id = OUTSIDE
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.depth == 0:
            return Verdict.passthrough()
        return outside(cmd, ctx) or Verdict.passthrough()


@register
class DeleteInsideWorkspace(Validator):
    """Inside the workspace, a recursive delete (``rm -r``, ``find -delete``), ``shred`` or
    ``truncate`` of what is not regenerable (sources, docs, ``.git``) asks first; build output,
    caches and installed dependencies (``build``, ``dist``, ``node_modules``, ``__pycache__``,
    ``*.egg-info``, ``.venv`` … and ``paths.regenerable``) are deleted freely. (Commands a
    wrapper runs; a line's own commands are judged by CG-DEG-003.)

    Bad: ``sudo rm -rf src``, ``rm -rf .git``. Harmless: ``rm -rf build dist node_modules``.
    """

    id = INSIDE
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.depth == 0:
            return Verdict.passthrough()
        return inside(cmd, ctx) or Verdict.passthrough()
