"""What the project's own ``.gitignore`` files declare is not source: coverage reports, local
servers' data directories, downloaded tools, generated docs. A recursive delete of such a path
loses nothing the repository holds, whatever the project calls it (``cover``, ``covdir``,
``default.etcd``, ``_boot``, ``bin/etcd``).

Only the ``.gitignore`` files from the workspace down to the path count (what the project
declares; not the machine's ``.git/info/exclude`` or global excludes), read with git's rules
(the last matching pattern wins, a deeper file over a shallower one, nothing re-included under
an ignored directory), and only where they single the path out: a pattern that ignores every
name of a directory (``*``) is not a statement about any of them. Never spared: a path git
tracks or one holding a tracked file (git ignores no tracked file, and an uncommitted change to
one would be lost; an index that cannot be read spares nothing), a path through
a symbolic link (``rm -rf link/`` empties what it points at), ``.git``, a tree holding another
repository (a ``.git`` inside: a clone under an ignored ``vendor/`` has its own tracked files
and history, which this repository's index does not name), and a tree holding a
credential file (``.env``, keys), which an ignore file names to keep it out of the
repository, not because it is disposable. A tree too large to look through is not spared
either.
"""

from __future__ import annotations

import os
import stat

from clawgate import fsfacts
from clawgate.validators.base import Context
from clawgate.validators.credentials import is_credential
from clawgate.validators.gitindex import tracked_under

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

_MAX_IGNORE_BYTES = 256 * 1024  # a larger ignore file is not read: nothing below it is spared
_MAX_DEPTH = 32
_MAX_ENTRIES = 4096  # entries looked at for credential files inside an ignored tree
_PROBE = "clawgate-unnamed-entry-7f3c"  # a name no ignore file singles out


def ignored(path: str, ctx: Context, *, directory: bool = False) -> bool:
    """``path`` (absolute, normalised, strictly inside the workspace) is one the project's
    ignore files declare is not source, and deleting it removes no credential file.
    ``directory``: the command names it as a directory (``cover/``); what does not exist is
    judged as a directory and, unless so named, as a file (a build makes it one or the
    other; deleting it now removes nothing)."""
    workspace = ctx.workspace
    if workspace == "/" or not path.startswith(workspace + "/"):
        return False
    parts = path[len(workspace) + 1 :].split("/")
    if len(parts) > _MAX_DEPTH or any(p in ("", ".", "..", ".git") for p in parts):
        return False
    kinds = _kinds(workspace, parts)
    if kinds is None:
        return False  # a link on the way, or the path could not be looked at
    if kinds[-1] is None:  # nothing there yet: ignored as whatever it would be
        return _ignored_as(workspace, parts, True) or (
            not directory and _ignored_as(workspace, parts, False))
    return (_ignored_as(workspace, parts, kinds[-1]) and not _holds_kept(path, ctx)
            and tracked_under(path) is False)


def kept(path: str, ctx: Context) -> bool:
    """``path`` (strictly inside the workspace) is reached through a symbolic link, is or is
    under ``.git``, or is a tree holding a credential file or another repository (or one too
    large to look through): what a declaration that a path is disposable never spares."""
    parts = path[len(ctx.workspace) + 1:].split("/")
    if len(parts) > _MAX_DEPTH or any(p in ("", ".", "..", ".git") for p in parts):
        return True
    kinds = _kinds(ctx.workspace, parts)
    return kinds is None or (kinds[-1] is not None and _holds_kept(path, ctx))


def linked(path: str, workspace: str, *, entered: bool) -> bool:
    """A symbolic link (or a component that cannot be looked at) leads to ``path``, strictly
    inside ``workspace``: what is deleted there lies wherever the link points. Its last
    component counts only when ``entered`` (``out/``, ``out/*``): ``rm -rf out`` removes a
    link ``out`` itself."""
    parts = path[len(workspace) + 1:].split("/")
    parts = parts if entered else parts[:-1]
    return bool(parts) and _kinds(workspace, parts) is None


def _ignored_as(workspace: str, parts: list[str], is_dir: bool) -> bool:
    """git's answer for ``parts`` or one of the directories leading to it, where the ignore
    files single it out: a pattern that ignores every name of a directory (``*``, a home's
    dotfiles repository, ``storage/app/.gitignore``) says nothing about any one of them."""
    for depth in range(1, len(parts) + 1):
        as_dir = depth < len(parts) or is_dir
        if _matched(workspace, parts[:depth], as_dir) and not _matched(
                workspace, [*parts[: depth - 1], _PROBE], as_dir):
            return True
    return False


def _kinds(workspace: str, parts: list[str]) -> list[bool | None] | None:
    """For each component: True a directory, False another file, None absent (and so is all
    below it); None when one is a symbolic link or cannot be looked at."""
    kinds: list[bool | None] = []
    here = workspace
    for part in parts:
        here = f"{here}/{part}"
        if kinds and kinds[-1] is not True:
            kinds.append(None)
            continue
        try:
            mode = fsfacts.lstat(here).st_mode
        except FileNotFoundError:
            kinds.append(None)
            continue
        except OSError:
            return None
        if stat.S_ISLNK(mode):
            return None
        kinds.append(stat.S_ISDIR(mode))
    return kinds


def _matched(workspace: str, parts: list[str], is_dir: bool) -> bool:
    """git's answer for the path ``parts`` (from the workspace): the last matching pattern of
    the deepest ignore file that has one. An ignore file on the way that cannot be read as git
    reads it leaves the path not ignored (its negations could re-include it)."""
    decided: bool | None = None
    for level in range(len(parts)):
        try:
            spec = _spec("/".join([workspace, *parts[:level]]))
        except _Unreadable:
            return False
        if spec is None:
            continue
        rel = "/".join(parts[level:]) + ("/" if is_dir else "")
        found = spec.check_file(rel).include
        if found is not None:
            decided = found
    return bool(decided)


class _Unreadable(Exception):
    """An ignore file that is there but cannot be read as git reads it."""


def _spec(directory: str) -> GitIgnoreSpec | None:
    """The patterns of ``directory/.gitignore``; None when there is none or it is not a regular
    file (git follows no link to one). _Unreadable: too large, unreadable, or holding a line
    the pattern reader would take otherwise than git does."""
    path = f"{directory}/.gitignore"
    try:
        info = fsfacts.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _Unreadable(path) from error
    if not stat.S_ISREG(info.st_mode):
        return None
    if info.st_size > _MAX_IGNORE_BYTES:
        raise _Unreadable(path)
    from pathspec import GitIgnoreSpec  # only a delete that nothing else spares gets here

    try:
        text = fsfacts.read_text(path, _MAX_IGNORE_BYTES, newline="")
        return GitIgnoreSpec.from_lines(_lines(text))
    except (OSError, ValueError) as error:
        raise _Unreadable(path) from error


def _lines(text: str) -> list[str]:
    """The patterns' lines as git splits them: at a newline only, one carriage return before
    it dropped, a byte-order mark at the start skipped. A lone carriage return (or a form feed,
    or any other break ``str.splitlines`` knows) stays inside its line: ``build\rsrc`` is one
    pattern, which ignores neither name. git trims only trailing spaces; a line ending in
    other white space (a tab, a carriage return, a no-break space), which the pattern reader
    would trim, is a ValueError. ``a/**/`` ignores the directories below ``a`` (at any depth),
    not ``a`` nor the files directly in it; the pattern reader takes it for ``a/``, so it is
    handed ``a/**/*/``, which it reads as git does (a negation read too widely only re-includes
    more, and is left as it is)."""
    lines = [line.removesuffix("\r") for line in text.removeprefix("\ufeff").split("\n")]
    for index, line in enumerate(lines):
        kept = line.rstrip(" ")
        if kept != kept.rstrip():
            raise ValueError(f"a pattern ending in white space other than a space: {line!r}")
        if kept.endswith("/**/") and not kept.startswith("!"):
            lines[index] = kept + "*/"
    return lines


def _holds_kept(path: str, ctx: Context) -> bool:
    """``path`` is, or is a tree holding, a credential file or another repository (``.git``);
    True as well when the tree is too large to look through or cannot be read (fail closed)."""
    if is_credential(path, ctx):
        return True
    if not fsfacts.isdir(path):
        return False
    seen = 0
    try:
        for top, dirs, files in fsfacts.walk(path):
            for name in (*dirs, *files):
                seen += 1
                if (seen > _MAX_ENTRIES or name == ".git"
                        or is_credential(f"{top}/{name}", ctx)):
                    return True
    except OSError:
        return True
    return False


def _listed(directory: str) -> list[str]:
    fsfacts.listing(directory)
    return os.listdir(directory)


def ignored_matches(directory: str, pattern: str, ctx: Context) -> bool:
    """Every name ``directory/pattern`` (a glob of one component) matches is ignored, as bash
    would expand it (no dot files unless the pattern starts with a dot); with no match, the
    pattern read as a name is (``*.xo`` under an ignore file listing ``*.xo``)."""
    from fnmatch import fnmatchcase

    try:
        names = _listed(directory) if fsfacts.isdir(directory) else []
    except OSError:
        return False
    hidden = pattern.startswith(".")
    matches = [n for n in names if fnmatchcase(n, pattern) and (hidden or not n.startswith("."))]
    if len(matches) > _MAX_ENTRIES:
        return False
    if not matches:
        return ignored(f"{directory}/{pattern}", ctx)
    return all(ignored(f"{directory}/{name}", ctx) for name in matches)
