"""Where the guard keeps its own state, and the keys that make that state unforgeable.

The state root is ``$CLAWGATE_STATE_HOME``, else ``$XDG_STATE_HOME/clawgate``, else
``~/.local/state/clawgate``: outside every workspace, so a command the guard runs in a workspace
cannot write it by writing the workspace. Under bubblewrap the root is hidden from the sandbox;
on the host executor a command runs as the guard's own user and can reach it (a documented
host-only limit).

A key is 32 random bytes in ``keys/<name>.key``, created once (``O_EXCL``, mode 0600, in a
0700 directory) and refused when anyone but its owner may read or write it: a key others can
read signs nothing.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from clawgate.errors import ClawgateError

KEY_BYTES = 32


def state_root() -> Path:
    """The directory the guard keeps its approvals, audit anchors and keys under."""
    env = os.environ.get("CLAWGATE_STATE_HOME")
    if env:
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return Path(base) / "clawgate"


def state_key(name: str, root: Path | None = None, *, create: bool = True) -> bytes:
    """The key ``name`` under ``root`` (the state root by default), made on first use unless
    ``create`` is False (a checker must not mint the key it checks against)."""
    keys = (root or state_root()) / "keys"
    path = keys / f"{name}.key"
    try:
        return _read_key(path)
    except FileNotFoundError:
        if not create:
            raise ClawgateError(f"{path}: no such key (nothing was signed with it here)") from None
    keys.mkdir(parents=True, exist_ok=True, mode=0o700)
    _create_key(path)
    return _read_key(path)


def _read_key(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077 or info.st_uid != os.getuid():
            raise ClawgateError(f"{path}: a key must be a regular file of ours with mode 0600")
        data = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) != KEY_BYTES:
        raise ClawgateError(f"{path}: a key must hold exactly {KEY_BYTES} bytes")
    return data


def _create_key(path: Path) -> None:
    """Write a new key; another process creating it first wins, and both read that one."""
    tmp = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, os.urandom(KEY_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # fails if another process made the key meanwhile: keep theirs
    except FileExistsError:
        pass
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
