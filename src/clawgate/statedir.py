"""Where the guard keeps its own state, and the keys that make that state unforgeable.

The state root is ``$CLAWGATE_STATE_HOME``, else ``$XDG_STATE_HOME/clawgate``, else
``~/.local/state/clawgate``. No tool reaches it whatever the workspace is (the file tools, the
hooks and the MCP proxy refuse its paths, the command checker denies them: see
``protectedpaths.state_paths``), a ``$CLAWGATE_STATE_HOME`` inside the workspace is refused
(``check_state_home``), and the sandboxes never mount it: bubblewrap and Docker cover it with an
empty read-only tmpfs where it lies inside the workspace (a workspace of ``~``). On the host
executor a command runs as the guard's own user; what the checker cannot see there can reach
it (a documented host-only limit).

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


def state_dirs() -> tuple[Path, ...]:
    """Every directory the guard keeps state in: the state root, and the approvals directory
    when ``$CLAWGATE_STATE_DIR`` puts it elsewhere."""
    moved = os.environ.get("CLAWGATE_STATE_DIR")
    return (state_root(), *((Path(moved),) if moved else ()))


def check_state_home(workspace: str | os.PathLike[str]) -> None:
    """Refuse a state directory named by the environment that lies inside ``workspace`` (what
    the guard runs there could rewrite its grants and keys) or that holds the workspace (every
    path of it would be out of reach). Raises ClawgateError."""
    root = os.path.realpath(workspace)
    for name in ("CLAWGATE_STATE_HOME", "CLAWGATE_STATE_DIR"):
        value = os.environ.get(name)
        if not value:
            continue
        real = os.path.realpath(value)
        if _within(real, root):
            raise ClawgateError(
                f"${name} is {value}, inside the workspace {root}: commands and file tools "
                "run there could rewrite clawgate's grants and keys; put it outside the "
                "workspace (the default is ~/.local/state/clawgate)")
        if _within(root, real):
            raise ClawgateError(
                f"the workspace {root} lies inside ${name} ({value}), clawgate's own state, "
                "which no tool may touch; choose a workspace outside it")


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


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
