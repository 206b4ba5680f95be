"""The mount points of a view's placeholders: made on the host for the runs that need them,
removed once none does.

A protected path that does not exist yet is held in the sandbox by an empty read-only
directory or file (``view.py``), and a mount needs a mount point at that path in the
workspace, which is the host's. ``Placeholders`` makes each one (so it knows which it made:
never a file of the user's), and removes them when the last run of the workspace that uses
them is over, if they are still what it made (and a directory still empty).

A directory's mount point is an empty directory; a file's is a Unix socket's name, whose
directory entry says "socket": git and other tools that walk a tree by the entries' types pass
it by (an empty file would be listed, added and committed by ``git add -A``), and a program
on the host that opens it meanwhile gets ENXIO at once, never a wait. In the sandbox it is
an empty read-only regular file (``empty_file``).

Removing a mount point that a sandbox still uses would take the sandbox's mount with it (the
kernel detaches mounts on a path removed from another mount namespace), so runs of one
workspace share its placeholders: each run holds a shared ``flock`` on the workspace
directory, and the placeholders are removed only under an exclusive one, taken without
waiting. While a sandbox of another process uses the workspace, they stay; the next run
that ends alone removes them. A workspace where the placeholder cannot be made (read-only)
does not get the mount: nothing run in it can create the path either.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import os
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from clawgate.executors.view import Mount, SandboxView

LOCK_WAIT_S = 1.0  # how long a run waits for a workspace another process is cleaning up
_POLL_S = 0.01


@dataclass(frozen=True, slots=True)
class _Made:
    """A mount point this process made: which inode, so that only it is ever removed."""

    device: int
    inode: int
    is_dir: bool


class Placeholders:
    """The placeholders this process made, per workspace, and the runs using each workspace.
    One per process (``PLACEHOLDERS``); thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made: dict[str, dict[str, _Made]] = {}
        self._runs: dict[str, int] = {}

    @contextlib.contextmanager
    def hold(self, workspace: Path) -> Iterator[Holder]:
        """For one run (or one warm container) of ``workspace``: build the view after entering
        and ``claim`` it; what was made is removed after the last holder leaves."""
        key = os.fspath(workspace)
        fd = _lock_shared(key)
        with self._lock:
            self._runs[key] = self._runs.get(key, 0) + 1
        try:
            yield Holder(self, key)
        finally:
            with self._lock:
                self._runs[key] -= 1
                if not self._runs[key]:
                    del self._runs[key]
                    self._clean(key, fd)
            if fd is not None:
                os.close(fd)

    def claim(self, key: str, view: SandboxView) -> SandboxView:
        """``view`` with a mount point made for each placeholder, less those that cannot have
        one."""
        kept: list[Mount] = []
        with self._lock:
            made = self._made.setdefault(key, {})
            for mount in view.mounts:
                if not mount.placeholder or mount.path in made:
                    kept.append(mount)
                    continue
                held = _make(mount, made)
                if held is not None:
                    kept.append(held)
        return replace(view, mounts=tuple(kept))

    def _clean(self, key: str, fd: int | None) -> None:
        """Remove what was made in ``key``, unless a run of another process uses it now."""
        made = self._made.get(key)
        if not made or fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # another process's sandbox may stand on them: the next lone run removes them
        for path in sorted(made, key=len, reverse=True):  # the deepest first
            _remove(path, made.pop(path))
        del self._made[key]


class Holder:
    """One run's hold on its workspace's placeholders."""

    def __init__(self, owner: Placeholders, key: str) -> None:
        self._owner = owner
        self._key = key

    def claim(self, view: SandboxView) -> SandboxView:
        return self._owner.claim(self._key, view)


def _lock_shared(workspace: str) -> int | None:
    """A shared lock on the workspace directory, waited for at most ``LOCK_WAIT_S`` (another
    process removing its placeholders holds it exclusively for a moment); None without one
    (the run goes on, and what it makes stays)."""
    try:
        fd = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                return None
            time.sleep(_POLL_S)
        except OSError:
            os.close(fd)
            return None


def _make(mount: Mount, made: dict[str, _Made]) -> Mount | None:
    """Make ``mount``'s mount point and note it; a path that appeared meanwhile is held as it
    now is (a link: not at all); None where nothing can be made (nothing run can, either)."""
    try:
        if mount.is_dir:
            os.mkdir(mount.path, 0o755)
        else:
            _socket_name(mount.path)
    except OSError as exc:
        if exc.errno not in (errno.EEXIST, errno.EADDRINUSE):
            return None
        if os.path.islink(mount.path):
            return None
        return replace(mount, is_dir=os.path.isdir(mount.path))
    info = os.lstat(mount.path)
    made[mount.path] = _Made(info.st_dev, info.st_ino, mount.is_dir)
    return mount


def _socket_name(path: str) -> None:
    """A Unix socket's name at ``path`` (its directory reached through /proc: the name of a
    socket is limited to 107 bytes, a workspace's path is not). Raises OSError."""
    folder = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as named:
            named.bind(f"/proc/self/fd/{folder}/{os.path.basename(path)}")
    finally:
        os.close(folder)


def _remove(path: str, made: _Made) -> None:
    """Remove ``path`` if it is still the empty directory or the socket's name that was made."""
    with contextlib.suppress(OSError):
        info = os.lstat(path)
        if (info.st_dev, info.st_ino) != (made.device, made.inode):
            return
        if made.is_dir:
            os.rmdir(path)  # fails unless empty
        elif stat.S_ISSOCK(info.st_mode):
            os.unlink(path)


_EMPTY: list[str] = []


def empty_file() -> str:
    """An empty read-only regular file of this process's, bound over a file's placeholder."""
    with _EMPTY_LOCK:
        if not _EMPTY or not os.path.isfile(_EMPTY[0]):
            folder = tempfile.mkdtemp(prefix="clawgate-empty-")
            path = os.path.join(folder, "empty")
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444))
            os.chmod(folder, 0o755)  # the Docker engine and a sandbox's user may bind it
            _EMPTY[:] = [path]
            atexit.register(_forget_empty, path)
        return _EMPTY[0]


def _forget_empty(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
        os.rmdir(os.path.dirname(path))


_EMPTY_LOCK = threading.Lock()


PLACEHOLDERS = Placeholders()
