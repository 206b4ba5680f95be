"""The mount points of a view's placeholders: made on the host for the runs that need them,
removed once none does.

A protected path that does not exist yet is held in the sandbox by an empty directory
(``view.py``), whether a directory or a file belongs there, and a mount needs a mount point at
that path in the workspace, which is the host's. ``Placeholders`` makes each one, an empty
directory (git and the tools that copy or archive a tree pass an empty directory by, on the
host and in the sandbox), so it knows which it made: never a path of the user's; and removes
them, if they are still what it made and still empty.

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
import fcntl
import os
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
                    kept.append(replace(mount, mode="hidden", is_dir=True, placeholder=True))
                elif owner is not None:
                    continue
                elif not mount.placeholder:
                    kept.append(mount)
                else:
                    held = _make(mount, made)
                    if held is not None:
                        kept.append(held)
            shown = {mount.path for mount in kept}
            kept += [Mount(path, "hidden", ABSENT_WHY, placeholder=True)
                     for path in sorted(ours - shown)]
        return replace(view, mounts=tuple(sorted(kept, key=lambda m: m.path.count("/"))))


def _holder_of(path: str, placeholders: set[str]) -> str | None:
    """The placeholder that is ``path`` or holds it (its ancestors looked up)."""
    while path not in placeholders:
        if path in ("/", ""):
            return None
        path = os.path.dirname(path)
    return path


def _unchanged(path: str, made: _Made) -> bool:
    """Whether ``path`` is still the empty directory that was made."""
    try:
        info = os.lstat(path)
        return (info.st_dev, info.st_ino) == (made.device, made.inode) and not os.listdir(path)
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
    """Make ``mount``'s mount point and note it; a directory that appeared meanwhile is held
    all the same (something else there, or nothing can be made: None; nothing run can make
    one either where the workspace is read-only)."""
    try:
        os.mkdir(mount.path, 0o755)
    except FileExistsError:
        return mount if os.path.isdir(mount.path) and not os.path.islink(mount.path) else None
    except OSError:
        return None
    info = os.lstat(mount.path)
    made[mount.path] = _Made(info.st_dev, info.st_ino)
    return mount


def _remove(path: str, made: _Made) -> None:
    """Remove ``path`` if it is still the empty directory that was made."""
    if _unchanged(path, made):
        with contextlib.suppress(OSError):
            os.rmdir(path)  # fails unless empty


PLACEHOLDERS = Placeholders()
atexit.register(PLACEHOLDERS.settle)
