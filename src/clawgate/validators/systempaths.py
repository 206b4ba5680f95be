"""Which paths are the system or the user's home: losing them loses the machine or the account."""

from __future__ import annotations

import fnmatch
import posixpath

from clawgate.validators.base import Context
from clawgate.validators.paths import under

# Everything inside these belongs to the operating system.
SYSTEM_TREES = ("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc",
                "/sbin", "/sys", "/usr")
# These directories themselves (and their immediate contents) hold everyone's data.
SYSTEM_ROOTS = frozenset({"/", "/home", "/root", "/var", "/opt", "/srv", "/mnt", "/media",
                          "/snap", "/run", "/tmp", "/var/lib", "/var/log", "/var/spool",
                          "/var/tmp", "/Users", "/System", "/Library", "/Applications"})


_HOMES = frozenset({"/home", "/Users"})


def is_system(path: str) -> bool:
    """Inside an operating-system tree, or one of the top-level data directories itself."""
    return path in SYSTEM_ROOTS or any(under(path, tree) for tree in SYSTEM_TREES)


def is_vital(path: str, ctx: Context) -> bool:
    """A recursive change here is unrecoverable: ``/``, the home directory or an ancestor of it,
    or a system path. Paths strictly inside the workspace are the project's own, even when the
    workspace itself lives in a system tree (``/usr/src/app`` in a container)."""
    if path == ctx.home or under(ctx.home, path) or posixpath.dirname(path) in _HOMES:
        return True  # this account's home, or another's
    if path != ctx.workspace and under(path, ctx.workspace) and ctx.workspace != "/":
        return False
    return is_system(path)


# Names a pattern is tried on, in a directory whose loss is unrecoverable: a pattern that
# matches none of them (``bins-*``) picks a few entries, not the directory's contents.
_PRECIOUS_NAMES = ("bin", "etc", "usr", "lib", "home", "Documents", "Desktop", "projects",
                   "src", "data", ".ssh", ".config", ".bashrc", ".local", "x", "a", "1")


def may_hit_vital(directory: str, pattern: str, ctx: Context) -> bool:
    """Whether the glob ``pattern`` in ``directory`` (``"$DIR"/bins-*`` with DIR unset: ``/``
    and ``bins-*``) may name something whose recursive change is unrecoverable: a system path
    or home it can match by name, anything in a system tree, or the contents of a vital
    directory at large (``*``, ``.*``, ``D*``)."""
    if is_vital(posixpath.join(directory, "\0entry"), ctx):
        return True  # every entry here is vital (inside /usr, /etc, /home)
    known = {*SYSTEM_TREES, *SYSTEM_ROOTS, ctx.home}
    known.update(a for a in _ancestors(ctx.home))
    if any(posixpath.dirname(p) == directory and fnmatch.fnmatchcase(posixpath.basename(p),
                                                                     pattern)
           and is_vital(p, ctx) for p in known if p != "/"):
        return True
    return is_vital(directory, ctx) and any(fnmatch.fnmatchcase(name, pattern)
                                            for name in _PRECIOUS_NAMES)


def _ancestors(path: str) -> list[str]:
    found = []
    while path not in ("/", ""):
        found.append(path)
        path = posixpath.dirname(path)
    return found
