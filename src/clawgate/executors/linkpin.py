"""Run as a process of its own, outside the sandbox, while bubblewrap holds the command: mount
each protected link of the sandbox onto itself, so that the link stays what it is (it points
where it did) and cannot be removed, renamed or replaced from inside (EBUSY: a mount point).

    python -I -S linkpin.py PID MNT_NAMESPACE_INODE PATH...

``mount(2)`` follows a link it is given, and bubblewrap has no mount of a link; the mount API
of Linux 5.2 does not: ``open_tree(OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW)`` takes the link
itself as a new mount, and ``move_mount`` without ``MOVE_MOUNT_T_SYMLINKS`` puts it on the link.
That needs the mount namespace of the sandbox (and its user namespace, whose owner we are): a
process joins them with ``setns``, which a thread of a process with other threads cannot (for
the user namespace), hence this process. A guard that holds ``CAP_SYS_ADMIN`` (root) needs no
user namespace: a thread of its own, with a file system context of its own, joins the mount
namespace and does the same (``pin_in_thread``), without a process start. Either checks
that PID's mount namespace is the one bubblewrap reported (a pid reused meanwhile is
refused); the process exits 0 only when every link is held, otherwise it says why on
stderr and exits 1; on a failure the caller kills the sandbox before its command runs.

Standard library only, no clawgate import (it runs under ``-I -S``).
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import sys
import threading

CLONE_FS, CLONE_NEWNS, CLONE_NEWUSER = 0x00000200, 0x00020000, 0x10000000
SYS_OPEN_TREE, SYS_MOVE_MOUNT = 428, 429  # x86_64 and most others (the unified numbers)
OPEN_TREE_CLONE, OPEN_TREE_CLOEXEC = 1, 0o2000000
AT_FDCWD, AT_SYMLINK_NOFOLLOW = -100, 0x100
MOVE_MOUNT_F_EMPTY_PATH = 4
NS_GET_USERNS = 0xB701  # _IO(0xb7, 0x1): the user namespace that owns a namespace


def _check(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")
    return result


def _namespace(pid: int, mnt_inode: int) -> int:
    """PID's mount namespace, checked to be the one bubblewrap reported."""
    mnt = os.open(f"/proc/{pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
    if os.fstat(mnt).st_ino != mnt_inode:
        os.close(mnt)
        raise OSError(0, f"process {pid} is no longer the sandbox's")
    return mnt


def pin_in_thread(pid: int, mnt_inode: int, paths: list[str]) -> None:
    """``main``'s work on a thread of this process that exits after it (the process needs
    ``CAP_SYS_ADMIN``). Raises OSError."""
    failures: list[OSError] = []

    def work() -> None:
        libc = _libc()
        try:
            mnt = _namespace(pid, mnt_inode)
            try:
                _check(libc.unshare(CLONE_FS), "unshare(CLONE_FS)")  # this thread's own
                _check(libc.setns(mnt, CLONE_NEWNS), "setns(mount namespace)")
            finally:
                os.close(mnt)
            for path in paths:
                pin(path, libc)
        except OSError as exc:
            failures.append(exc)

    thread = threading.Thread(target=work, name="clawgate-link-pin", daemon=True)
    thread.start()
    thread.join()
    if failures:
        raise failures[0]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def join(pid: int, mnt_inode: int, libc: ctypes.CDLL) -> None:
    """Enter PID's mount namespace, and first the user namespace that owns it where that is
    not ours (not PID's own: bubblewrap runs its command in a user namespace nested in the
    one it built the mounts in, when it mounts a ``/dev`` of its own)."""
    mnt = _namespace(pid, mnt_inode)
    user = fcntl.ioctl(mnt, NS_GET_USERNS)
    if os.fstat(user).st_ino != os.stat("/proc/self/ns/user").st_ino:
        _check(libc.setns(user, CLONE_NEWUSER), "setns(user namespace)")
    _check(libc.setns(mnt, CLONE_NEWNS), "setns(mount namespace)")
    os.close(user)
    os.close(mnt)


def pin(path: str, libc: ctypes.CDLL) -> None:
    """Mount the link (or whatever is at ``path``: not followed) onto itself."""
    name = os.fsencode(path)
    tree = _check(libc.syscall(SYS_OPEN_TREE, AT_FDCWD, name,
                               OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW),
                  f"open_tree({path})")
    try:
        _check(libc.syscall(SYS_MOVE_MOUNT, tree, b"", AT_FDCWD, name,
                            MOVE_MOUNT_F_EMPTY_PATH), f"move_mount({path})")
    finally:
        os.close(tree)


def main(argv: list[str]) -> int:
    libc = _libc()
    try:
        join(int(argv[1]), int(argv[2]), libc)
        for path in argv[3:]:
            pin(path, libc)
    except (OSError, ValueError, IndexError) as exc:
        sys.stderr.write(f"{exc.strerror if isinstance(exc, OSError) else exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
