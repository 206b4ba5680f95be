"""Which paths are the system or the user's home: losing them loses the machine or the account."""

from __future__ import annotations

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
