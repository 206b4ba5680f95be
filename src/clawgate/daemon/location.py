"""Where the decider listens, and which installation it is (imports only ``os``, ``stat`` and
``sys``, all loaded with the interpreter: the client's start-up).

The socket lives in ``run/`` under the state root (``statedir``'s rule, read here without
importing it), a private directory (mode 0700, ours): the guard's state is out of the commands'
reach, and so is the decider, which must not be replaceable by a program that answers "allow".
Its name carries a digest of the interpreter and the package directory, so two installations
never share a decider. A state root too long for a Unix socket's path means no decider: calls
are decided in process.
"""

from __future__ import annotations

import os
import stat
import sys

SUN_PATH_MAX = 100  # a Unix socket path must fit in 108 bytes


def identity() -> str:
    """Which installation this is: the interpreter and the package directory."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return f"{sys.executable}\0{package}"


def state_root() -> str:
    """``clawgate.statedir.state_root()``, as a string (a test holds the two equal)."""
    env = os.environ.get("CLAWGATE_STATE_HOME")
    if env:
        return env
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return os.path.join(base, "clawgate")


def private_dir(path: str) -> bool:
    """Whether ``path`` is a directory of ours that no one else may enter (no link)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & 0o077)


def run_dir(create: bool) -> str:
    """The private directory of the socket, made (0700) when ``create``. Raises OSError when
    it exists and is not private, or when a socket's path there would be too long."""
    base = os.path.join(state_root(), "run")
    if len(base) > SUN_PATH_MAX - 24:
        raise OSError(f"{base}: too long a directory for a Unix socket")
    if create:
        os.makedirs(base, mode=0o700, exist_ok=True)
    elif not os.path.lexists(base):
        return base  # nothing listens there yet
    if not private_dir(base):
        raise PermissionError(f"{base}: not a private directory of this user (mode 0700)")
    return base


def socket_path(create: bool = False) -> str:
    digest = name_digest(identity().encode(errors="surrogateescape"))
    return os.path.join(run_dir(create), f"decider-{digest:08x}.sock")


def name_digest(data: bytes) -> int:
    """32-bit FNV-1a of ``data``: a name that tells installations apart, computed without
    loading an extension module (``zlib``'s would cost the client more than the hashing)."""
    digest = 0x811C9DC5
    for byte in data:
        digest = ((digest ^ byte) * 0x01000193) & 0xFFFFFFFF
    return digest
