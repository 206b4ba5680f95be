"""The mount points of a view's placeholders: made on the host for the runs that need them,
removed once none does.

A protected path that does not exist yet is held in the sandbox by an empty directory
(``view.py``), whether a directory or a file belongs there, and a mount needs a mount point at
that path in the workspace, which is the host's. ``Placeholders`` makes each one, an empty
directory (git and the tools that copy or archive a tree pass an empty directory by, on the
host and in the sandbox; one of the pool in the guard's state moved there, else a new one:
``placeholderpool.py``; "removed" below means moved out to the pool's spent folder where it
can take it, never to be used again),
so it knows which it made: never a path of the user's; and removes
them, if they are still what it made and still empty. Each is made, looked at and removed
through its parent directory opened component by component from the workspace without
following a link, so a parent swapped for a link (by a run of the same workspace) never lets a
directory be made or removed elsewhere; and each is held open while it is noted, so that its
inode cannot be given to a directory the user makes at that path after removing it (a file
system hands a freed inode number straight to the next new file): the identity checked before
a removal is exact.

Removing a mount point that a sandbox still uses would take the sandbox's mount with it (the
kernel detaches mounts on a path removed from another mount namespace), so runs of one
workspace share its placeholders: each run holds a shared ``flock`` on the workspace
directory, and the placeholders are removed only under an exclusive one, taken without
waiting. They are removed as the last run of the workspace ends, before the run's result is
handed back (``LINGER_S``: none; the user's tree, an agent reading it on the host, and anything
comparing it before and after see no entry the run did not make), when the executor is closed,
and at the interpreter's exit. While a sandbox of another process uses the workspace, they
stay, and the removal is tried again every ``RETRY_S`` until it finds the workspace alone. A
workspace where the placeholder cannot be made (read-only) does not get the mount: nothing run
in it can create the path either.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import os
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from clawgate.errors import ExecutorError
from clawgate.executors.placeholderpool import Pool, restock_later
from clawgate.executors.view import ABSENT_WHY, Mount, SandboxView

LINGER_S = 0.0  # how long placeholders outlive the last run of their workspace
RETRY_S = 0.5  # how soon a removal another process's run put off is tried again
QUIET_S = 0.05  # how long no run of this process has been going before the pool is made up
QUIET_MOST_S = 2.0  # the longest a making-up waits for that
LOCK_WAIT_S = 1.0  # how long a run waits for a workspace another process is cleaning up
_POLL_S = 0.01
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class _Made:
    """A mount point this process made: which inode, so that only it is ever removed, and an
    open descriptor of it, so that no other directory gets that inode while it is noted."""

    fd: int
    device: int
    inode: int


@dataclass
class _Workspace:
    """What this process made in one workspace, the runs using it, the pending removal."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    made: dict[str, _Made] = field(default_factory=dict)
    runs: int = 0
    timer: threading.Timer | None = None
    restocking: threading.Thread | None = None  # the pool made up for what was spent


class Placeholders:
    """The placeholders this process made, per workspace, and the runs using each workspace.
    One per process (``PLACEHOLDERS``); thread-safe."""

    def __init__(self, linger_s: float | None = None) -> None:
        self.linger_s = LINGER_S if linger_s is None else linger_s
        self._lock = threading.Lock()
        self._spaces: dict[str, _Workspace] = {}
        self._quiet = threading.Condition()
        self._going = 0  # runs of this process going, in every workspace
        self._begun = 0  # runs begun, ever: a run that began and ended meanwhile counts
        self._settling = 0  # settle() calls waiting for a making-up: it waits for no quiet

    @contextlib.contextmanager
    def hold(self, workspace: Path) -> Iterator[Holder]:
        """For one run (or one warm container) of ``workspace``: build the view after entering
        and ``claim`` it; what was made is removed once no run uses the workspace."""
        space = self._space(os.fspath(workspace))
        with self._quiet:
            self._going += 1
            self._begun += 1
        with space.lock:
            space.runs += 1
            if space.timer is not None:
                space.timer.cancel()
                space.timer = None
        fd = _lock_shared(os.fspath(workspace))
        try:
            yield Holder(space, os.fspath(workspace))
        finally:
            if fd is not None:
                os.close(fd)
            with space.lock:
                space.runs -= 1
                idle = not space.runs and bool(space.made)
                if idle and self.linger_s > 0:
                    self._schedule(os.fspath(workspace), space, self.linger_s)
            try:
                if idle and self.linger_s <= 0:
                    self._remove_idle(os.fspath(workspace), space)
            finally:
                with self._quiet:
                    self._going -= 1
                    self._quiet.notify_all()

    def wait_quiet(self) -> None:
        """Return once no run of this process has been going for ``QUIET_S`` (or after
        ``QUIET_MOST_S``, whatever the runs do): the pool is made up between runs."""
        deadline = time.monotonic() + QUIET_MOST_S
        with self._quiet:
            while (left := deadline - time.monotonic()) > 0:
                if self._settling:
                    return  # a run's own close waits for it: making up now is the quiet
                if self._going:
                    self._quiet.wait(left)
                    continue
                begun = self._begun
                self._quiet.wait(min(QUIET_S, left))
                if not self._going and self._begun == begun:
                    return

    def settle(self, workspace: Path | None = None) -> None:
        """Remove now what waits to be removed (of ``workspace``, else of every workspace)
        where no run of this process uses it, and wait for the pool to be made up for it."""
        with self._lock:
            keys = [os.fspath(workspace)] if workspace is not None else list(self._spaces)
            spaces = [(key, self._spaces[key]) for key in keys if key in self._spaces]
        for key, space in spaces:
            self._remove_idle(key, space, retry=False)
            restocking = space.restocking
            if restocking is not None:
                with self._quiet:
                    self._settling += 1
                    self._quiet.notify_all()
                try:
                    restocking.join()
                finally:
                    with self._quiet:
                        self._settling -= 1

    def _space(self, key: str) -> _Workspace:
        with self._lock:
            return self._spaces.setdefault(key, _Workspace())

    def _schedule(self, key: str, space: _Workspace, delay: float) -> None:
        """Called with ``space.lock`` held."""
        timer = threading.Timer(delay, self._remove_idle, (key, space))
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
                    self._schedule(key, space, max(self.linger_s, RETRY_S))
                return
            try:
                with _Parents(key) as parents, Pool(key) as pool:
                    for path in sorted(space.made, key=len, reverse=True):  # deepest first
                        _remove(parents, pool, path, space.made.pop(path))
            finally:
                os.close(alone)
            if pool.spent:  # off the run's path: its result is handed back meanwhile
                space.restocking = restock_later(pool.spent, self.wait_quiet)


class Holder:
    """One run's hold on its workspace's placeholders."""

    def __init__(self, space: _Workspace, workspace: str) -> None:
        self._space = space
        self._workspace = workspace

    def claim(self, view: SandboxView) -> SandboxView:
        """``view`` with a mount point made for each placeholder, less those that cannot have
        one. A placeholder made earlier, which the view took for a protected path that exists,
        is held as a placeholder again (what the view put below it goes). Raises ExecutorError
        where a placeholder's parent is no longer a directory (a link put in its place since
        the view was built)."""
        kept: list[Mount] = []
        top = self._workspace
        with self._space.lock, _Parents(top) as parents, Pool(top) as pool:
            made = self._space.made
            ours = {path for path, what in made.items() if _unchanged(parents, path, what)}
            for gone in set(made) - ours:  # the host put something there: the user's now
                os.close(made.pop(gone).fd)
            for mount in view.mounts:
                owner = _holder_of(mount.path, ours)
                if owner == mount.path:
                    kept.append(replace(mount, mode="hidden", is_dir=True, placeholder=True))
                elif owner is not None:
                    continue
                elif not mount.placeholder:
                    kept.append(mount)
                else:
                    held = _make(parents, pool, mount, made)
                    if held is not None:
                        kept.append(held)
            shown = {mount.path for mount in kept}
            kept += [Mount(path, "hidden", ABSENT_WHY, placeholder=True)
                     for path in sorted(ours - shown)]
        return replace(view, mounts=tuple(sorted(kept, key=lambda m: m.path.count("/"))))


def _holder_of(path: str, placeholders: set[str]) -> str | None:
    """The placeholder that is ``path`` or holds it (its ancestors looked up)."""
    if not placeholders:
        return None
    while path not in placeholders:
        if path in ("/", ""):
            return None
        path = os.path.dirname(path)
    return path


class _Parents:
    """Open descriptors of the directories of one workspace that hold placeholders, each
    reached from the workspace one component at a time without following a link, opened once
    for one pass over its placeholders (a directory swapped for a link after it was opened is
    not followed: the descriptor stays the directory that was there)."""

    def __init__(self, workspace: str) -> None:
        self.workspace = workspace
        self._fds: dict[str, int] = {}

    def __enter__(self) -> _Parents:
        return self

    def __exit__(self, *_exc: object) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()

    def of(self, path: str) -> int:
        """``path``'s parent. Raises OSError (ELOOP or ENOTDIR where a component is a link
        or a file; EINVAL for a path outside the workspace)."""
        folder = os.path.dirname(path)
        if folder == self.workspace:  # most are: no path arithmetic
            return self._directory(".")
        relative = os.path.relpath(folder, self.workspace)
        if relative == ".." or relative.startswith("../") or os.path.isabs(relative):
            raise OSError(errno.EINVAL, f"{path} is not inside {self.workspace}")
        return self._directory(relative)

    def _directory(self, relative: str) -> int:
        found = self._fds.get(relative)
        if found is not None:
            return found
        if relative == ".":
            fd = os.open(self.workspace, _DIR_FLAGS)
        else:
            above = self._directory(os.path.dirname(relative) or ".")
            fd = os.open(os.path.basename(relative), _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=above)
        self._fds[relative] = fd
        return fd


def _unchanged(parents: _Parents, path: str, made: _Made, empty: bool = True) -> bool:
    """Whether ``path`` is still the directory that was made (and, unless ``empty`` is
    False, still empty)."""
    try:
        info = os.stat(os.path.basename(path), dir_fd=parents.of(path),
                       follow_symlinks=False)
        return (info.st_dev, info.st_ino) == (made.device, made.inode) and \
            not (empty and os.listdir(made.fd))
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


def _make(parents: _Parents, pool: Pool, mount: Mount, made: dict[str, _Made]) -> Mount | None:
    """Make ``mount``'s mount point in its parent (reached without following a link): an
    empty directory of the pool moved there, else a new one; and note it. A directory that
    appeared meanwhile is held all the same (something else there, or nothing can be made:
    None; nothing run can make one either where the workspace is read-only). Raises
    ExecutorError where a parent on the way is now a link or a file."""
    try:
        parent = parents.of(mount.path)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise ExecutorError(f"{os.path.dirname(mount.path)} was replaced by a link or a "
                                "file while the sandbox was being built; nothing was run, run "
                                "it again") from exc
        return None
    name = os.path.basename(mount.path)
    try:
        try:
            fd = pool.take(parent, name)
            if fd is None:
                os.mkdir(name, 0o755, dir_fd=parent)
                fd = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=parent)
        except FileExistsError:
            info = os.stat(name, dir_fd=parent, follow_symlinks=False)
            return mount if stat.S_ISDIR(info.st_mode) else None
    except OSError:
        return None
    info = os.fstat(fd)
    made[mount.path] = _Made(fd, info.st_dev, info.st_ino)
    return mount


def _remove(parents: _Parents, pool: Pool, path: str, made: _Made) -> None:
    """Remove ``path`` if it is still the empty directory that was made (through its parent,
    reached without following a link): into the pool, else for good; and let go of it."""
    try:
        if _unchanged(parents, path, made, empty=not pool.usable):
            with contextlib.suppress(OSError):
                parent, name = parents.of(path), os.path.basename(path)
                if not pool.give(parent, name, made.fd, made.inode):  # (empty, once moved)
                    os.rmdir(name, dir_fd=parent)  # unless empty
    finally:
        os.close(made.fd)


PLACEHOLDERS = Placeholders()
atexit.register(PLACEHOLDERS.settle)
