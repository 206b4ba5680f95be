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
waiting. They are removed once the workspace has had no run for ``LINGER_S`` (commands that
follow each other reuse them: making and removing some fifty entries costs a run more than
its sandbox does on a slow disk), when the executor is closed, and at the interpreter's exit.
While a sandbox of another process uses the workspace, they stay; the next removal that finds
it alone takes them. A workspace where the placeholder cannot be made (read-only) does not
get the mount: nothing run in it can create the path either.
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
from dataclasses import dataclass, field, replace
from pathlib import Path

from clawgate.executors.view import ABSENT_WHY, Mount, SandboxView

LINGER_S = 2.0  # how long placeholders outlive the last run of their workspace
LOCK_WAIT_S = 1.0  # how long a run waits for a workspace another process is cleaning up
_POLL_S = 0.01


@dataclass(frozen=True, slots=True)
class _Made:
    """A mount point this process made: which inode, so that only it is ever removed."""

    device: int
    inode: int
    is_dir: bool


@dataclass
class _Workspace:
    """What this process made in one workspace, the runs using it, the pending removal."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    made: dict[str, _Made] = field(default_factory=dict)
    runs: int = 0
    timer: threading.Timer | None = None


class Placeholders:
    """The placeholders this process made, per workspace, and the runs using each workspace.
    One per process (``PLACEHOLDERS``); thread-safe."""

    def __init__(self, linger_s: float | None = None) -> None:
        self.linger_s = LINGER_S if linger_s is None else linger_s
        self._lock = threading.Lock()
        self._spaces: dict[str, _Workspace] = {}

    @contextlib.contextmanager
    def hold(self, workspace: Path) -> Iterator[Holder]:
        """For one run (or one warm container) of ``workspace``: build the view after entering
        and ``claim`` it; what was made is removed once no run uses the workspace."""
        space = self._space(os.fspath(workspace))
        with space.lock:
            space.runs += 1
            if space.timer is not None:
                space.timer.cancel()
                space.timer = None
        fd = _lock_shared(os.fspath(workspace))
        try:
            yield Holder(space)
        finally:
            if fd is not None:
                os.close(fd)
            with space.lock:
                space.runs -= 1
                if not space.runs and space.made:
                    self._schedule(os.fspath(workspace), space)

    def settle(self, workspace: Path | None = None) -> None:
        """Remove now what waits to be removed (of ``workspace``, else of every workspace)
        where no run of this process uses it."""
        with self._lock:
            keys = [os.fspath(workspace)] if workspace is not None else list(self._spaces)
            spaces = [(key, self._spaces[key]) for key in keys if key in self._spaces]
        for key, space in spaces:
            self._remove_idle(key, space, retry=False)

    def _space(self, key: str) -> _Workspace:
        with self._lock:
            return self._spaces.setdefault(key, _Workspace())

    def _schedule(self, key: str, space: _Workspace) -> None:
        """Called with ``space.lock`` held."""
        timer = threading.Timer(self.linger_s, self._remove_idle, (key, space))
        timer.daemon = True
        space.timer = timer
        timer.start()

    def _remove_idle(self, key: str, space: _Workspace, retry: bool = True) -> None:
        """Remove what was made in ``key`` if no run uses it, here or in another process (a
        run of another process: tried again later)."""
        with space.lock:
            if space.runs or not space.made:
                return
            if space.timer is not None:
                space.timer.cancel()
                space.timer = None
            alone = _lock_alone(key)
            if alone is None:
                if retry:
                    self._schedule(key, space)
                return
            try:
                for path in sorted(space.made, key=len, reverse=True):  # the deepest first
                    _remove(path, space.made.pop(path))
            finally:
                os.close(alone)


class Holder:
    """One run's hold on its workspace's placeholders."""

    def __init__(self, space: _Workspace) -> None:
        self._space = space

    def claim(self, view: SandboxView) -> SandboxView:
        """``view`` with a mount point made for each placeholder, less those that cannot have
        one. A placeholder made earlier, which the view took for a protected path that exists,
        is held as a placeholder again (what the view put below it goes)."""
        kept: list[Mount] = []
        with self._space.lock:
            made = self._space.made
            ours = {path for path, what in made.items() if _unchanged(path, what)}
            for gone in set(made) - ours:  # the host put something there: the user's now
                del made[gone]
            for mount in view.mounts:
                owner = _holder_of(mount.path, ours)
                if owner == mount.path:
                    kept.append(replace(mount, mode="hidden", is_dir=made[owner].is_dir,
                                        placeholder=True))
                elif owner is not None:
                    continue
                elif not mount.placeholder:
                    kept.append(mount)
                else:
                    held = _make(mount, made)
                    if held is not None:
                        kept.append(held)
            shown = {mount.path for mount in kept}
            kept += [Mount(path, "hidden", ABSENT_WHY, made[path].is_dir, placeholder=True)
                     for path in sorted(ours - shown)]
        return replace(view, mounts=tuple(sorted(kept, key=lambda m: m.path.count("/"))))


def _holder_of(path: str, placeholders: set[str]) -> str | None:
    """The placeholder that is ``path`` or holds it."""
    for held in placeholders:
        if path == held or path.startswith(held + "/"):
            return held
    return None


def _unchanged(path: str, made: _Made) -> bool:
    """Whether ``path`` is still the empty directory or the socket's name that was made."""
    try:
        info = os.lstat(path)
        if (info.st_dev, info.st_ino) != (made.device, made.inode):
            return False
        return not os.listdir(path) if made.is_dir else stat.S_ISSOCK(info.st_mode)
    except OSError:
        return False


def _lock_alone(workspace: str) -> int | None:
    """The fd of an exclusive lock on the workspace directory, if no one holds one now."""
    try:
        fd = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


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
    if not _unchanged(path, made):
        return
    with contextlib.suppress(OSError):
        if made.is_dir:
            os.rmdir(path)  # fails unless empty
        else:
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
atexit.register(PLACEHOLDERS.settle)
