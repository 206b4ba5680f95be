"""The whole workspace deleted: the workspace directory itself, every entry of it (``rm -rf *``
run from its root), a ``find`` from its root that nothing narrows (``find . -delete``,
``find . -exec rm {} +``), or ``xargs rm`` fed such a listing (``ls | xargs rm -rf``). That is
not a cleanup of one part but the project lost (sources, history, uncommitted work), so it is
refused where deletes of one part of the workspace ask.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context
from clawgate.validators.deletes import find_start_points
from clawgate.validators.paths import PathArg, resolve

# find primaries that do not narrow which entries are reached: options, depth bounds, output
_FIND_OPTIONS = frozenset({"-depth", "-d", "-xdev", "-mount", "-noleaf", "-follow",
                           "-ignore_readdir_race", "-print", "-print0", "-true", "-delete",
                           "-ls"})
_FIND_VALUED = frozenset({"-mindepth", "-maxdepth"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_LS_LISTS_ALL = lazy_pattern(r"^-[aA1fU]+$")  # ls options that list every entry, one a line
_EVERYTHING = frozenset({"*", "*/.*", "{*,.*}"})


def wipes_workspace(cmd: SimpleCommand, operand: Word, found: PathArg, ctx: Context) -> bool:
    """``cmd`` (a recursive ``rm`` or a deleting ``find``) removes, by ``operand`` (which
    resolves to ``found``), the workspace itself or everything in it."""
    if found.path != ctx.workspace or ctx.workspace == "/" or operand.value == "":
        return False  # "/" is CG-CAT-001's; rm -rf "" removes nothing
    if found.contents and (found.pattern not in _EVERYTHING or operand.shown.endswith("/")):
        return False  # rm -rf *.log, rm -rf */: some entries
    return cmd.program != "find" or not narrowed(cmd.words[1:])


def holds_workspace(cmd: SimpleCommand, operand: Word, found: PathArg, ctx: Context) -> bool:
    """``cmd`` (a recursive ``rm`` or a deleting ``find``) removes, by ``operand``, a directory
    above the workspace and the workspace with it (``rm -rf ..`` from its root, ``rm -rf
    /tmp/ws`` of a workspace ``/tmp/ws/app``), wherever that directory lies: a temporary one
    too."""
    path, workspace = found.path, ctx.workspace.rstrip("/")
    if path is None or path == "/" or not workspace.startswith(path.rstrip("/") + "/"):
        return False  # "/" is CG-CAT-001's
    if found.contents:
        if found.pattern is None:
            return True  # a glob higher up may take any entry
        from fnmatch import fnmatchcase

        step = workspace[len(path.rstrip("/")) + 1:].split("/", 1)[0]
        if not fnmatchcase(step, found.pattern) or (
                step.startswith(".") and not found.pattern.startswith(".")):
            return False
    return cmd.program != "find" or not narrowed(cmd.words[1:])


def narrowed(args: tuple[Word, ...]) -> bool:
    """Whether a test among ``find``'s arguments ``args`` picks only some of the entries it
    walks (a name, a type other than files and links, a time, a size, an operator); depth
    bounds and actions do not."""
    values = [w.shown for w in args]
    index = 0
    while index < len(values) and (values[index] in ("-L", "-P", "-H") or
                                   not values[index].startswith(("-", "(", "!"))):
        index += 1  # the symlink options, then the start points
    while index < len(values):
        value = values[index]
        if value in _FIND_VALUED:
            index += 2
        elif value == "-type":
            if index + 1 >= len(values) or values[index + 1] not in ("f", "l", "f,l", "l,f"):
                return True  # only directories (and -delete keeps the full ones), or sockets
            index += 2
        elif value in _FIND_EXEC:
            index = _after_exec(values, index)
        elif value in _FIND_OPTIONS:
            index += 1
        else:
            return True
    return False


def _after_exec(values: list[str], index: int) -> int:
    for end in range(index + 1, len(values)):
        if values[end] in (";", "\\;", "+"):
            return end + 1
    return len(values)


def lists_workspace(feeder: SimpleCommand, ctx: Context) -> bool:
    """``feeder`` prints every entry of the workspace: ``ls`` (``-A``, ``-1``) of its root, or
    a ``find`` from its root that nothing narrows and that acts on nothing itself."""
    if feeder.program == "ls":
        words = feeder.words[1:]
        operands = [w for w in words if not _LS_LISTS_ALL.match(w.shown)]
        if any(w.shown.startswith("-") for w in operands) or len(operands) > 1:
            return False
        where = resolve(operands[0], ctx) if operands else PathArg(ctx.cwd)
        return where.path == ctx.workspace and not where.contents and ctx.workspace != "/"
    if feeder.program != "find":
        return False
    values = {w.shown for w in feeder.words[1:]}
    if values & (_FIND_EXEC | {"-delete"}):
        return False
    roots = find_start_points(feeder.words[1:])
    return not narrowed(feeder.words[1:]) and all(
        resolve(w, ctx).path == ctx.workspace for w in roots) and ctx.workspace != "/"
