"""Destruction by degree: a recursive or forced delete outside the workspace and the temporary
directories is DENY; inside the workspace, recursive deletes, ``shred`` and ``truncate`` ASK
unless every target is regenerable (build output, caches, installed dependencies), and the
whole workspace deleted (``rm -rf *`` at its root, ``find . -delete``) is DENY."""

from __future__ import annotations

import re
from collections.abc import Iterator

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import GLOB, TILDE, SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.cleaned import cleaned
from clawgate.validators.deletes import (
    TREE_DELETERS,
    deleted_names,
    find_start_points,
    tree_delete_operands,
)
from clawgate.validators.findexpr import DELETING, PRINTING, acts_only_on_named, expression_of
from clawgate.validators.flags import parse_options
from clawgate.validators.generated import marked_find
from clawgate.validators.gitindex import tracked_matching, tracked_named, tracked_under
from clawgate.validators.ignored import ignored, ignored_matches, kept, linked
from clawgate.validators.outsideentries import find_in_temp, glob_in_temp, home_cache
from clawgate.validators.paths import in_temp, resolve, under
from clawgate.validators.regenerable import regenerable, regenerable_name
from clawgate.validators.winpaths import is_drive_path, unquote
from clawgate.validators.wipes import holds_workspace, wipes_workspace
from clawgate.validators.wraptable import program_through_wrappers
from clawgate.validators.xargsfeed import ITEM

_RM_ALIASES = {"R": "r", "--recursive": "r", "--force": "f"}
_FIND_TESTS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"})
_FIND_DELETERS = frozenset({"rm", "shred", "unlink"})
_ERASERS = frozenset({"shred", "truncate", "srm", "wipe"})
# The secure-delete tools: ``-r``/``-R`` overwrites and removes whole directories.
_SECURE_DELETERS = frozenset({"srm", "wipe"})
# Each eraser's options that take a value (``truncate -r FILE`` is a reference file, ``srm
# -r`` and ``wipe -r`` recurse).
_ERASER_VALUES = {
    "truncate": frozenset({"s", "r", "--size", "--reference"}),
    "shred": frozenset({"n", "s", "--iterations", "--size", "--random-source"}),
    "srm": frozenset(),
    "wipe": frozenset({"Q", "l", "x", "p", "b", "S"}),
}
PROGRAMS = frozenset({"rm", "find", "unlink", *_ERASERS, *TREE_DELETERS})
OUTSIDE, INSIDE = "CG-DEG-001", "CG-DEG-002"
_TILDE = frozenset({TILDE})
# Only ``../`` steps, then one name (no ``/`` after it: the name removed, not entered)
_CLIMB = re.compile(r"^(?:\.\./)+([^/]+)$")


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
    if program in TREE_DELETERS:
        operands = tree_delete_operands(cmd)
        return None if operands is None else (operands, True, True)
    if program in _ERASERS:
        options = parse_options(cmd.words[1:], takes_value=_ERASER_VALUES[program])
        recursive = program in _SECURE_DELETERS and (options.has("r") or options.has("R"))
        return options.operands, recursive, program != "truncate"
    return None


def target_paths(cmd: SimpleCommand, ctx: Context) -> list[str]:
    """The paths a recursive delete names, resolved from ``ctx.cwd`` (those known here)."""
    found = _targets(cmd) if cmd.program in PROGRAMS else None
    if found is None or not found[1]:
        return []
    paths = (resolve(w, ctx).path for w in found[0] if w.value not in ("{}", "{}/"))
    return [p for p in paths if p is not None]


def deletes_relative(cmd: SimpleCommand) -> bool:
    """A recursive delete (or an eraser) of a target named from where it runs (``build``,
    ``./x``, a variable): what it removes depends on the working directory."""
    found = _targets(cmd) if cmd.program in PROGRAMS else None
    if found is None or not (found[1] or cmd.program in _ERASERS):
        return False
    return any(w.value is None or not w.value.startswith(("/", "~")) for w in found[0])


def _find_roots(cmd: SimpleCommand) -> tuple[Word, ...] | None:
    """Start points of ``find … -delete`` (or ``-exec rm``), None when it deletes nothing."""
    words = cmd.words[1:]
    values = [w.shown for w in words]
    deletes = "-delete" in values or any(
        v in ("-exec", "-execdir", "-ok", "-okdir") and i + 1 < len(values)
        and program_through_wrappers(words, i + 1) in _FIND_DELETERS
        for i, v in enumerate(values))
    if not deletes:
        return None
    return find_start_points(cmd.words[1:])


def _find_patterns(cmd: SimpleCommand) -> Iterator[str]:
    words = cmd.words
    for index, word in enumerate(words[:-1]):
        if word.shown in _FIND_TESTS:
            yield words[index + 1].shown.rsplit("/", 1)[-1]


def fed_targets_spared(finder: SimpleCommand, ctx: Context) -> bool:
    """A ``find`` that lists only regenerable things (its name tests or its start points)
    and nothing git tracks."""
    if marked_find(finder, PRINTING, ctx):
        return True  # only files their generator marked
    patterns = list(_find_patterns(finder))
    if patterns:
        return _acts_on_named(finder, PRINTING) and all(
            regenerable(f"{ctx.workspace}/{p}", ctx.workspace, ctx.regenerable)
            for p in patterns) and _untracked_matches(finder, patterns, ctx)
    roots = [resolve(w, ctx).path for w in _find_start(finder)]
    return bool(roots) and all(
        r is not None and regenerable(r, ctx.workspace, ctx.regenerable)
        and tracked_under(r) is False for r in roots)


def _untracked_matches(finder: SimpleCommand, names: list[str], ctx: Context) -> bool:
    """No file git tracks below the ``find``'s start points (the workspace when one is only
    known at run time) has a component ``names`` match: a tracked ``cover/`` or ``x.pyc`` is
    not spared because a build elsewhere writes the name."""
    roots = [resolve(w, ctx).path for w in _find_start(finder)] or [ctx.cwd]
    places = {ctx.workspace if r is None else r for r in roots}
    return all(tracked_named(place, names) is False for place in places)


def _acts_on_named(finder: SimpleCommand, actions: frozenset[str]) -> bool:
    """The ``find``'s ``actions`` (or what it prints by default) run only on what its name
    tests match: not ``! -name dist -delete`` nor ``-name dist -prune -o -delete``."""
    return acts_only_on_named(expression_of([w.shown for w in finder.words[1:]]), actions)


def _find_start(finder: SimpleCommand) -> Iterator[Word]:
    for word in finder.words[1:]:
        if word.shown.startswith(("-", "(", "!")):
            return
        yield word


def _spared(cmd: SimpleCommand, word: Word, path: str, ctx: Context) -> bool:
    """A delete inside the workspace that loses nothing a build cannot bring back, or only
    what the project's ignore files declare is not source; and takes nothing git tracks with
    it (for a ``find``, nothing tracked that its name tests match)."""
    if cmd.program == "find":
        return _find_spared(cmd, word, path, ctx)
    if GLOB in word.expansions and word.value is not None:
        last = word.value.rstrip("/").rsplit("/", 1)[-1]
        if _rebuilt(path, ctx) or ignored(path, ctx) or _cleaned(path, ctx):
            return tracked_under(path) is False
        return ((_rebuilt(f"{path}/{last}", ctx, entered=False)
                 or ignored_matches(path, last, ctx) or _cleaned(f"{path}/{last}", ctx))
                and tracked_matching(path, last) is False)
    entered = (word.value or "").endswith(("/", "/."))
    return ((_rebuilt(path, ctx, entered=entered)
             or ignored(path, ctx, directory=(word.value or "").endswith("/"))
             or _cleaned(path, ctx))
            and tracked_under(path) is False)


def _rebuilt(path: str, ctx: Context, *, entered: bool = True) -> bool:
    """``path`` is under a name a build brings back, reached through no symbolic link (``out
    -> ~/work``: ``rm -rf out/*`` deletes what the link points to); ``entered``: the delete
    goes into its last component (``out/``), not only removes it."""
    return regenerable(path, ctx.workspace, ctx.regenerable) and not linked(
        path, ctx.workspace, entered=entered)


def _cleaned(path: str, ctx: Context) -> bool:
    """The project's own clean task removes ``path``, and it holds nothing kept (a link on
    the way, a credential file, another repository), as for the ignore files."""
    return cleaned(path, ctx.workspace) and not kept(path, ctx)


def _find_spared(cmd: SimpleCommand, word: Word, path: str, ctx: Context) -> bool:
    """A ``find`` that deletes only what a build brings back or the ignore files name, and
    nothing git tracks: its start point untracked, or no tracked name its tests match; or
    only files their generator marked (``-exec grep -q 'DO NOT EDIT' {} ;``)."""
    if marked_find(cmd, DELETING, ctx) and deleted_names(cmd, _FIND_DELETERS) <= {"{}"}:
        return True  # only the marked files themselves (not ``{}/..``, not ``{}.d``)
    if _rebuilt(path, ctx) and tracked_under(path) is False:
        return True  # a tracked build/ may still lose only what the name tests match
    if GLOB in word.expansions and word.value is not None:
        last = word.value.rstrip("/").rsplit("/", 1)[-1]
        return (_rebuilt(f"{path}/{last}", ctx, entered=False)
                or ignored(path, ctx) or ignored_matches(path, last, ctx)
                ) and tracked_matching(path, last) is False
    patterns = list(_find_patterns(cmd))
    deleted = deleted_names(cmd, _FIND_DELETERS)
    if not deleted:
        return True  # only the backups it made itself
    names = [t.replace("{}", p) for t in deleted for p in patterns]
    return bool(patterns) and _acts_on_named(cmd, DELETING) and all(
        _rebuilt(f"{path}/{n}", ctx, entered=_enters(cmd)) for n in names
    ) and tracked_named(path, names) is False


def _enters(finder: SimpleCommand) -> bool:
    """A delete the find runs goes into what it found (``-exec rm -rf {}/ +``): a link found
    under a regenerable name is followed to what it points to, as ``rm -rf dist/`` follows."""
    return any(w.shown.endswith(("{}/", "{}/.")) for w in finder.words)


def outside(cmd: SimpleCommand, ctx: Context) -> Verdict | None:
    """DENY for a recursive or forced delete outside the workspace and the temp directories
    (ASK for one that only climbs to build output, ``climbs_to_output``, or deletes a cache
    in the user's home; entries of a temp directory a pattern chooses are the temp's:
    ``validators/outsideentries.py``)."""
    found = _targets(cmd) if cmd.program in PROGRAMS else None
    if found is None or not (found[1] or found[2] or any(ITEM in w.text for w in found[0])):
        return None  # one plain delete; xargs feeding items is many
    asked: Verdict | None = None
    for word in found[0]:
        if is_drive_path(unquote(word.text)):
            return Verdict.deny(OUTSIDE, f"{cmd.program} deletes {word.text}, a Windows drive "
                                "path (Git Bash and WSL take it as one)")
        found_path = resolve(word, ctx)
        if found[1] and cmd.program in ("rm", "find") and holds_workspace(
                cmd, word, found_path, ctx):
            return Verdict.deny(OUTSIDE, f"{cmd.program} deletes {found_path.path}, and the whole "
                                f"workspace {ctx.workspace} with it",
                                hint="delete the parts that must go by name")
        path = found_path.path or anchor(word, ctx)
        if path is None or under(path, ctx.workspace) or in_temp(path):
            continue
        if (cmd.program == "find" and find_in_temp(path, list(_find_patterns(cmd)),
                                                    _acts_on_named(cmd, DELETING))) or (
                cmd.program != "find" and GLOB in word.expansions and word.value is not None
                and glob_in_temp(word.value, path)):
            continue  # /tmp/pytest-*: entries of a temporary directory, chosen by a pattern
        if home_cache(path, ctx):
            asked = asked or Verdict.ask(
                OUTSIDE, f"{cmd.program} deletes {path}, outside the workspace: a cache in "
                "your home, which a download or a build brings back",
                hint="confirm the cache should go")
            continue
        if path.startswith("/dev/") and cmd.program == "rm":
            continue  # rm -f /dev/shm/x is a temp; other devices are CG-CAT's
        if climbs_to_output(word, path, ctx):
            asked = asked or Verdict.ask(
                OUTSIDE, f"{cmd.program} deletes {path}, outside the workspace: {word.value} "
                "climbs above it, as a line written for a deeper directory (a package of "
                "the checkout) does, and names only output a build brings back",
                hint="run it from the directory it was written for")
            continue
        return Verdict.deny(OUTSIDE, f"{cmd.program} deletes {path}, outside the workspace",
                            hint="delete it by hand if it must go")
    return asked


def climbs_to_output(word: Word, path: str, ctx: Context) -> bool:
    """``word`` is only ``../`` steps and then one name a build brings back
    (``../../../node_modules``), resolved to ``path`` outside the workspace from a working
    directory inside it: the line was written to run deeper in a checkout (a CI step's
    working directory, a package of a monorepo) and deletes installed dependencies or build
    output of the tree above; not the tree itself, nothing entered (``node_modules/``) or
    globbed, not a directory of the home."""
    value = word.value
    if value is None or word.expansions or not under(ctx.cwd, ctx.workspace):
        return False
    match = _CLIMB.match(value)
    if match is None:
        return False
    parent, _, name = path.rpartition("/")
    return name == match.group(1) and not under(parent or "/", ctx.home) and (
        regenerable_name(name, ctx.regenerable))


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
    """ASK for a recursive delete, ``shred`` or ``truncate`` of what no build brings back.
    (``rimraf`` and its kind are left to their projects inside the workspace: they are the
    clean scripts of package.json, ``rimraf dist src/generated``; beyond it they are ``rm -rf``.)"""
    found = _targets(cmd) if cmd.program in PROGRAMS and cmd.program not in TREE_DELETERS else None
    if found is None or not (found[1] or cmd.program in _ERASERS):
        return None
    asked: Verdict | None = None
    for word in found[0]:
        if word.value in ("{}", "{}/"):
            continue  # find -exec rm {}: the find command was judged with its tests
        target = resolve(word, ctx)
        path = target.path
        if path is None or not under(path, ctx.workspace) or _spared(cmd, word, path, ctx):
            continue
        if cmd.program in ("rm", "find") and wipes_workspace(cmd, word, target, ctx):
            return Verdict.deny(INSIDE, f"{cmd.program} deletes the whole workspace {path}",
                                hint="delete the parts that must go by name")
        what = "the repository's history" if path.rsplit("/", 1)[-1] == ".git" else path
        asked = asked or Verdict.ask(INSIDE, f"{cmd.program} deletes {what}, which no build "
                                     "brings back", hint="delete build output only, or confirm")
    return asked


@register
class DeleteOutsideWorkspace(Validator):
    """A recursive or forced delete (``rm -r``/``rm -f``, ``find -delete``, ``shred``) of a path
    outside the workspace and the temporary directories, with ``sudo`` or without: an approval
    given in a hurry is how homes get wiped, so it is refused outright. One shape asks
    instead: a target of only ``../`` steps and one name a build brings back
    (``../../../node_modules``), climbing from inside the workspace to no directory of the
    home: a line written to run deeper in a checkout, deleting its installed dependencies or
    build output. (Commands a wrapper runs; a line's own commands are judged by CG-DEG-003,
    which follows ``cd``.)

    Bad: ``sudo rm -f /etc/hosts``, ``rm -rf ~/.config/app``. Harmless: ``rm -rf /tmp/build``.
    """

    id = OUTSIDE
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.depth == 0:
            return NO_OPINION
        return outside(cmd, ctx) or NO_OPINION


@register
class DeleteInsideWorkspace(Validator):
    """Inside the workspace, a recursive delete (``rm -r``, ``find -delete``), ``shred`` or
    ``truncate`` of what is not regenerable (sources, docs, ``.git``) asks first; build output,
    caches and installed dependencies (``build``, ``dist``, ``node_modules``, ``__pycache__``,
    ``*.egg-info``, ``.venv`` …, the names the ignore templates projects start from mean as
    output in every project, such as ``cover`` and ``cdk.out``, and ``paths.regenerable``)
    are deleted freely, unless git tracks what goes with them; so are files a delete selects
    by the mark their generator wrote in them (``find gen -type f | xargs grep -l '^// Code
    generated' | xargs rm``, ``-exec grep -q 'DO NOT EDIT' {} ;``) under a directory of the
    workspace (``validators/generated.py``). The whole
    workspace (its root, every entry of it, a ``find`` from its root that nothing narrows, or
    ``ls | xargs rm -rf`` there) is DENY: the project lost, not a part of it cleaned. (Commands
    a wrapper runs; a line's own commands are judged by CG-DEG-003.)

    Bad: ``sudo rm -rf src``, ``rm -rf .git``, ``find . -delete`` (DENY). Harmless:
    ``rm -rf build dist node_modules``.
    """

    id = INSIDE
    programs = PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.depth == 0:
            return NO_OPINION
        return inside(cmd, ctx) or NO_OPINION


_RSYNC_VALUED = frozenset({"-e", "--rsh", "--exclude", "--include", "--filter", "-f",
                           "--exclude-from", "--include-from", "--files-from", "--chmod",
                           "--chown", "--rsync-path", "--password-file", "--log-file", "-T",
                           "--temp-dir", "--partial-dir", "--backup-dir", "--suffix",
                           "--compare-dest", "--copy-dest", "--link-dest", "--timeout",
                           "--port", "--bwlimit", "--max-size", "--min-size", "-B",
                           "--block-size", "-M", "--remote-option", "--usermap", "--groupmap"})
_TAR_VALUED = frozenset({"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X",
                         "--exclude-from", "--exclude", "-I", "--use-compress-program", "-b",
                         "--blocking-factor", "-H", "--format", "-V", "--label", "-g",
                         "--listed-incremental", "--owner", "--group", "--mode", "--mtime"})
_DELETE_EQUIVALENTS = frozenset({"rsync", "mv", "tar", "bsdtar", "gtar", "zip", "7z", "7za",
                                 "7zz", "git"})


def _operands(words: tuple[Word, ...], valued: frozenset[str]) -> list[Word]:
    found: list[Word] = []
    skip = False
    for word in words:
        text = word.shown
        if skip:
            skip = False
        elif text.startswith("-") and len(text) > 1:
            skip = "=" not in text and text in valued
        else:
            found.append(word)
    return found


def deleted_by(cmd: SimpleCommand) -> list[Word]:
    """What a command deletes as a side of what it does: ``rsync --delete`` the receiving
    tree's extra files, ``rsync --remove-source-files`` the sources, ``mv X /dev/null`` X,
    ``tar --remove-files`` and ``zip -m`` (``7z -sdel``) the files archived."""
    program = cmd.program
    if program == "git" and (len(cmd.words) < 2 or cmd.words[1].shown != "rm"):
        return []  # every git command comes here: the cheap look first
    args = [w.shown for w in cmd.words[1:]]
    if program == "git":  # git rm -r PATHS removes them from the worktree (not with --cached)
        if "--cached" in args or not any(
                a == "-r" or (a.startswith("-") and not a.startswith("--") and "r" in a)
                for a in args[1:]):
            return []
        return [w for w in cmd.words[2:] if not w.shown.startswith("-")]
    if program == "rsync":
        operands = _operands(cmd.words[1:], _RSYNC_VALUED)
        if len(operands) < 2:
            return []
        out: list[Word] = []
        if any(a.startswith("--delete") or a.startswith("--del") for a in args):
            out.append(operands[-1])  # what the receiving tree holds beyond the source
        if "--remove-source-files" in args:
            out.extend(operands[:-1])
        return [w for w in out if ":" not in (w.value or "")]  # a remote side is not here
    if program == "mv":
        operands = [w for w in cmd.words[1:] if not w.shown.startswith("-")]
        return operands[:-1] if len(operands) > 1 and operands[-1].value == "/dev/null" else []
    if program in ("tar", "bsdtar", "gtar") and "--remove-files" in args:
        words = cmd.words[1:]
        if words and not words[0].shown.startswith("-") and "f" in words[0].shown:
            words = words[2:]  # tar cf ARCHIVE files: the old bundled form
        return _operands(words, _TAR_VALUED)
    if program == "zip" and any(a in ("--move", "-m") or (
            a.startswith("-") and not a.startswith("--") and "m" in a) for a in args):
        return _operands(cmd.words[1:], frozenset({"-b", "-t", "-tt", "-x", "-i", "-n",
                                                   "-P", "-Z", "-s", "-O"}))[1:]
    if program in ("7z", "7za", "7zz") and "-sdel" in args:
        return [w for w in cmd.words[1:] if not w.shown.startswith("-")][2:]
    return []


@register
class DeleteByOtherMeans(Validator):
    """Commands that delete as a side of what they do: ``rsync --delete`` (the receiving tree
    loses what the source lacks: an empty source empties it), ``--remove-source-files``,
    ``git rm -r`` (not ``--cached``),
    ``mv X /dev/null``, ``tar --remove-files``, ``zip -m``, ``7z a -sdel``. Checked as the
    recursive delete of those paths, so the degrees of CG-DEG-001..002 apply.

    Bad: ``rsync -a --delete /tmp/empty/ ~/``. Harmless: ``rsync -a --delete src/ build/``.
    """

    id = "CG-DEG-004"
    programs = _DELETE_EQUIVALENTS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in _DELETE_EQUIVALENTS:
            return NO_OPINION
        targets = deleted_by(cmd)
        if not targets:
            return NO_OPINION
        return Verdict.unwrap(f"rm -rf -- {' '.join(w.text for w in targets)}")
