"""Empty directories kept in the guard's state for placeholders' mount points: moved into a
workspace for a run, instead of made there each time, and out of it after the run.

Making a directory and removing it again is most of what a run in a workspace lacking its
protected paths pays for them (ext4: the new inode and its block, then freeing both, journalled
each time, some hundred microseconds a directory); moving an empty directory between two
folders of one file system is a rename. The pool is ``placeholders`` in the state root
(``statedir.py``), which no sandbox shows and only its owner may open; its entries are named by
their inode number, unique on the file system while they exist. It serves workspaces on its
own file system (elsewhere, or where the file system refuses ``RENAME_NOREPLACE``, the
directories are made and removed as before) and keeps at most ``POOL_MAX`` entries.

A directory is used once. While it stands in a workspace, whatever sees that path (a sandbox
of a workspace that holds this one, a run started before the path was held, a container) may
open it and keep it open: a descriptor follows the directory wherever it is moved, and would
write into the next workspace's protected path if the directory were used again. So a
directory back from a workspace goes to ``placeholders-spent`` (a rename, before the run's
result is handed back) and is never taken again; ``restock`` removes the spent ones and makes
new entries in their place, on a thread of its own after the run (``restock_later``), pausing
while a run of the process is going: a thread of Python code this busy holds the interpreter's
lock away from the thread that hands the run's result back, for milliseconds at a time. New
entries are made in the spent folder and moved into the pool once named, so the pool only
ever holds whole entries no one outside the guard has seen.

On the host, the workspace sees what it saw before: an empty directory appears at the path for
the run and is gone before the run's result is handed back. Every move is ``renameat2`` with
``RENAME_NOREPLACE``, through descriptors of the directories on both sides, so a move never
replaces what is at the destination (an empty directory another process's sandbox stands on, a
directory the user made meanwhile). A directory moved out is looked at once more: one that
something filled between the last look and the move goes back to its path in the workspace
(whoever filled it could write there).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import stat
import threading
from collections.abc import Callable
from typing import cast

from clawgate.statedir import state_root

POOL_MAX = 256  # entries kept; more (a run that held more than ever before) are removed
SPENT = "placeholders-spent"  # beside the pool: directories back from a workspace, new ones
RENAME_NOREPLACE = 1
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


@functools.cache
def _renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    """glibc's ``renameat2`` (2.28 and later), else None."""
    try:
        func = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None
    func.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                     ctypes.c_uint)
    func.restype = ctypes.c_int
    return cast(Callable[[int, bytes, int, bytes, int], int], func)


def move(src_dir: int, src: str, dst_dir: int, dst: str) -> None:
    """``renameat2(src_dir, src, dst_dir, dst, RENAME_NOREPLACE)``. Raises OSError (EEXIST
    where ``dst`` exists; EXDEV across file systems or mounts; EINVAL or ENOSYS where the
    file system or the kernel lacks the flag)."""
    func = _renameat2()
    if func is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available")
    if func(src_dir, os.fsencode(src), dst_dir, os.fsencode(dst), RENAME_NOREPLACE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), src)


class Pool:
    """The pool, for one pass over the placeholders of ``workspace``, opened at its first
    use. Use as a context manager; where it cannot serve the workspace, ``take`` and ``give``
    do nothing and say so."""

    def __init__(self, workspace: str) -> None:
        self._workspace = workspace
        self._fd: int | None = None
        self._names: list[str] | None = None
        self._usable: bool | None = None
        self._spent_fd: int | None = None
        self.spent = 0  # directories this pass moved to the spent folder, empty

    @property
    def usable(self) -> bool:
        if self._usable is None:
            self._fd = _open_pool()
            try:
                self._usable = self._fd is not None and \
                    os.fstat(self._fd).st_dev == os.stat(self._workspace).st_dev
            except OSError:
                self._usable = False
        return self._usable

    @usable.setter
    def usable(self, value: bool) -> None:
        self._usable = value

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *_exc: object) -> None:
        for fd in (self._fd, self._spent_fd):
            if fd is not None:
                os.close(fd)
        self._fd = self._spent_fd = None

    def take(self, parent: int, name: str) -> int | None:
        """Move an empty directory of the pool to ``name`` in ``parent``, and return an open
        descriptor of it; None where the pool has none to give (or cannot serve) or where
        something is at ``name`` (FileExistsError is raised then, as ``mkdir`` would)."""
        while self.usable and self._fd is not None and self._listing():
            entry = self._listing().pop()
            if not _is_entry(self._fd, entry):
                continue  # not one of the pool's own empty directories: never used
            try:
                move(self._fd, entry, parent, name)
            except FileNotFoundError:  # another run took it
                continue
            except FileExistsError:
                raise
            except OSError:
                self.usable = False
                return None
            fd = _checked(parent, name, int(entry))
            if fd is not None:
                return fd
            with contextlib.suppress(OSError):  # filled meanwhile: out, if still it
                spent = self._spent()
                if spent is not None and _is_entry(parent, name, int(entry)):
                    move(parent, name, spent, entry)
        return None

    def give(self, parent: int, name: str, fd: int, inode: int) -> bool:
        """Move the directory at ``name`` in ``parent`` (open as ``fd``, inode ``inode``) out
        of the workspace into the spent folder, never to be used again; False where it was not
        moved (the pool cannot serve): remove it then. A directory found filled once moved
        (the emptiness that counts is the one after the move) goes back to ``name`` (True: it
        is not to be removed)."""
        spent = self._spent() if self.usable else None
        if spent is None:
            return False
        try:
            move(parent, name, spent, str(inode))
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                self.usable = False
            return False
        try:
            empty = not os.listdir(fd)
        except OSError:
            empty = False
        if empty:
            self.spent += 1
        else:  # something was put in it since the last look: it is not ours
            with contextlib.suppress(OSError):
                move(spent, str(inode), parent, name)
        return True

    def _spent(self) -> int | None:
        if self._spent_fd is None:
            self._spent_fd = _open_state_dir(SPENT)
        return self._spent_fd

    def _listing(self) -> list[str]:
        if self._names is None:
            try:
                self._names = os.listdir(self._fd) if self._fd is not None else []
            except OSError:
                self._names = []
        return self._names


def _open_pool() -> int | None:
    """The pool directory, made (mode 0700) where it is missing; None where it cannot be."""
    return _open_state_dir("placeholders")


def _open_state_dir(name: str) -> int | None:
    """``name`` in the state root, made (mode 0700) where it is missing; None where it
    cannot be."""
    folder = state_root() / name
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        return os.open(folder, _DIR_FLAGS | os.O_NOFOLLOW)
    except OSError:
        return None


def restock(count: int, pause: Callable[[], None] = lambda: None) -> None:
    """Make up to ``count`` new entries in the pool (``POOL_MAX`` in all), then remove the
    spent folder's empty directories; ``pause`` is called before each entry (it returns when
    the process has time for it). Never raises: a pool that cannot be restocked is used less,
    and the runs make their directories themselves."""
    pool, spent = _open_pool(), _open_state_dir(SPENT)
    try:
        if pool is None or spent is None:
            return
        used = os.listdir(spent)
        room = POOL_MAX - len(os.listdir(pool))
        for number in range(min(count, room)):  # first: no new one gets a spent one's number
            pause()
            _new_entry(pool, spent, f"new-{os.getpid()}-{threading.get_ident()}-{number}")
        for entry in used:
            with contextlib.suppress(OSError):  # one filled meanwhile stays
                os.rmdir(entry, dir_fd=spent)
    except OSError:
        return
    finally:
        for fd in (pool, spent):
            if fd is not None:
                os.close(fd)


def restock_later(count: int, pause: Callable[[], None] = lambda: None) -> threading.Thread:
    """``restock(count, pause)`` on a daemon thread, started."""
    thread = threading.Thread(target=restock, args=(count, pause), name="clawgate-pool-restock",
                              daemon=True)
    thread.start()
    return thread


def _new_entry(pool: int, spent: int, scratch: str) -> None:
    """A new empty directory, made in the spent folder and moved into the pool named by its
    inode."""
    os.mkdir(scratch, 0o755, dir_fd=spent)
    try:
        inode = os.stat(scratch, dir_fd=spent, follow_symlinks=False).st_ino
        move(spent, scratch, pool, str(inode))
    except OSError:
        with contextlib.suppress(OSError):
            os.rmdir(scratch, dir_fd=spent)


def _is_entry(folder: int, name: str, inode: int | None = None) -> bool:
    """Whether ``name`` in ``folder`` is a directory (not a link) whose inode is ``inode``
    (by default the number ``name`` spells: a pool entry's name is its inode)."""
    if inode is None:
        if not name.isdigit():
            return False
        inode = int(name)
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_ino == inode


def _checked(parent: int, name: str, inode: int) -> int | None:
    """A descriptor of ``name`` in ``parent`` if it is the empty directory ``inode`` (not a
    link)."""
    try:
        fd = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=parent)
    except OSError:
        return None
    try:
        if os.fstat(fd).st_ino == inode and not os.listdir(fd):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None
