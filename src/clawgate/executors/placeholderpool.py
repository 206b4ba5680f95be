"""Empty directories kept in the guard's state for placeholders' mount points: moved into a
workspace for a run and moved back after it, instead of made and removed each time.

Making a directory and removing it again is most of what a run in a workspace lacking its
protected paths pays for them (ext4: the new inode and its block, then freeing both, journalled
each time, some hundred microseconds a directory); moving an empty directory between two
folders of one file system is a rename. The pool is ``placeholders`` in the state root
(``statedir.py``), which no sandbox shows and only its owner may open; its entries are named by
their inode number, unique on the file system while they exist. It serves workspaces on its
own file system (elsewhere, or where the file system refuses ``RENAME_NOREPLACE``, the
directories are made and removed as before) and keeps at most ``POOL_MAX`` entries.

On the host, the workspace sees what it saw before: an empty directory appears at the path for
the run and is gone before the run's result is handed back. Every move is ``renameat2`` with
``RENAME_NOREPLACE``, through descriptors of the directories on both sides, so a move never
replaces what is at the destination (an empty directory another process's sandbox stands on, a
directory the user made meanwhile). A directory moved back is looked at once more in the pool:
one that something filled between the last look and the move (only a process outside any
sandbox can write there) goes back to its path in the workspace.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import stat
from collections.abc import Callable
from typing import cast

from clawgate.statedir import state_root

POOL_MAX = 256  # entries kept; more (a run that held more than ever before) are removed
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
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

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
            with contextlib.suppress(OSError):  # filled meanwhile: back, if still it
                if _is_entry(parent, name, int(entry)):
                    move(parent, name, self._fd, entry)
        return None

    def give(self, parent: int, name: str, fd: int, inode: int) -> bool:
        """Move the directory at ``name`` in ``parent`` (open as ``fd``, inode ``inode``) into
        the pool if it is empty; False where it was not moved (the pool cannot serve, or is
        full): remove it then. A directory found filled once moved (the emptiness that counts
        is the one after the move) goes back to ``name`` (True: it is not to be removed)."""
        if not self.usable or self._fd is None or len(self._listing()) >= POOL_MAX:
            return False
        entry = str(inode)
        try:
            move(parent, name, self._fd, entry)
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                self.usable = False
            return False
        self._listing().append(entry)
        try:
            empty = not os.listdir(fd)
        except OSError:
            empty = False
        if not empty:  # something was put in it since the last look: it is not ours
            self._listing().remove(entry)
            with contextlib.suppress(OSError):
                move(self._fd, entry, parent, name)
        return True

    def _listing(self) -> list[str]:
        if self._names is None:
            try:
                self._names = os.listdir(self._fd) if self._fd is not None else []
            except OSError:
                self._names = []
        return self._names


def _open_pool() -> int | None:
    """The pool directory, made (mode 0700) where it is missing; None where it cannot be."""
    folder = state_root() / "placeholders"
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        return os.open(folder, _DIR_FLAGS | os.O_NOFOLLOW)
    except OSError:
        return None


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
