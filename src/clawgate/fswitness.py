"""The witnesses of filesystem facts (``fsfacts``): what is noted of each read, and whether
it still holds.

- a path's status: every field a change to the file changes (type, mode, inode, device, links,
  owner, size, modification and change times), or the error number; of a directory only its
  type, mode, inode, device and owner (its names are a listing fact);
- a real path: each component ``os.path.realpath`` looked at, whether a link and where it
  leads (``joinrealpath`` is ``posixpath._joinrealpath`` step for step): the same answers give
  the same real path;
- a file read or a directory listed: its full status, taken before reading, and, when it was
  changed within ``RACY_NS`` (its times may not tell a change in the same clock tick, as git's
  "racily clean" entries), a digest of what it held, compared again.
"""

from __future__ import annotations

import os
import stat as _stat
import time
from hashlib import blake2b

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import TypeAlias

    Witness: TypeAlias = object

# A file changed less than this long before it was read may change again with the same times
# (file times advance by a clock tick; some filesystems keep two seconds): its content is
# compared as well.
RACY_NS = 2_000_000_000
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO does not hold the check up


def full(info: os.stat_result) -> tuple[int, ...]:
    return (info.st_mode, info.st_ino, info.st_dev, info.st_nlink, info.st_uid, info.st_gid,
            info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def signature(info: os.stat_result) -> tuple[int, ...]:
    if _stat.S_ISDIR(info.st_mode):
        return info.st_mode, info.st_ino, info.st_dev, info.st_uid, info.st_gid
    return full(info)


def status_witness(path: str, follow: int) -> Witness:
    try:
        return signature(os.stat(path) if follow else os.lstat(path))
    except OSError as error:
        return error.errno
    except ValueError:
        return -1


def joinrealpath(path: str, rest: str, seen: dict[str, str | None],
                  looked: list[tuple[str, str | None]]) -> tuple[str, bool]:
    """``posixpath._joinrealpath`` (not strict), step for step, noting in ``looked`` each
    path it looks at and the link's target there (None: no link, or none readable)."""
    if rest.startswith("/"):
        rest, path = rest[1:], "/"
    while rest:
        name, _, rest = rest.partition("/")
        if not name or name == ".":
            continue
        if name == "..":
            if path:
                path, name = os.path.split(path)
                if name == "..":
                    path = os.path.join(path, "..", "..")
            else:
                path = ".."
            continue
        newpath = os.path.join(path, name)
        target = _link_target(newpath)
        looked.append((newpath, target))
        if target == _UNREADABLE:
            os.readlink(newpath)  # raises, as realpath does (or reads it now, and goes on)
            target = _link_target(newpath)
        if target is None:
            path = newpath
            continue
        if newpath in seen:
            found = seen[newpath]
            if found is not None:
                path = found
                continue
            return os.path.join(newpath, rest), False  # a loop: as realpath, not strict
        seen[newpath] = None
        path, ok = joinrealpath(path, target, seen, looked)
        if not ok:
            return os.path.join(path, rest), False
        seen[newpath] = path
    return path, True


_UNREADABLE = "\0"  # the target of a link that cannot be read: no target holds a NUL


def _link_target(path: str) -> str | None:
    try:
        if not _stat.S_ISLNK(os.lstat(path).st_mode):
            return None
    except OSError:
        return None
    try:
        return os.readlink(path)
    except OSError:
        return _UNREADABLE


def _holds_status(path: str, detail: int, witness: Witness) -> bool:
    return status_witness(path, 1) == witness


def _holds_lstatus(path: str, detail: int, witness: Witness) -> bool:
    return status_witness(path, 0) == witness


def _holds_real(path: str, detail: int, witness: Witness) -> bool:
    if not detail:  # a relative path: computed again
        try:
            return (os.getcwd(), os.path.realpath(path)) == witness
        except (OSError, ValueError):
            return False
    assert isinstance(witness, tuple)
    # A loop, not all() over a generator: every decision's context re-checks one of these
    for looked, target in witness:  # noqa: SIM110
        if _link_target(looked) != target:
            return False
    return True


def _holds_content(path: str, detail: int, witness: Witness) -> bool:
    limit, follow = divmod(detail, 2)
    assert isinstance(witness, tuple)
    noted, hashed = witness
    try:
        if full(os.stat(path) if follow else os.lstat(path)) != noted:
            return False
    except OSError:
        return False
    if hashed is None:
        return True
    try:  # changed too recently for its times to tell: what it holds is compared
        fd = os.open(path, OPEN_FLAGS | (0 if follow else os.O_NOFOLLOW))
    except OSError:
        return False
    try:
        same: bool = full(os.fstat(fd)) == noted and digest(read_fd(fd, limit)) == hashed
        return same
    except OSError:
        return False
    finally:
        os.close(fd)


def _holds_listing(directory: str, detail: int, witness: Witness) -> bool:
    if not isinstance(witness, tuple):  # the directory could not be listed
        return listing_witness(directory) == witness
    noted, hashed = witness
    info = os.stat(directory)
    if full(info) != noted:
        return False
    return hashed is None or _names_digest(directory) == hashed


def listing_witness(directory: str) -> Witness:
    try:
        info = os.stat(directory)
        return full(info), _names_digest(directory) if racy(info) else None
    except OSError as error:
        return error.errno
    except ValueError:
        return -1


def _names_digest(directory: str) -> bytes:
    """A digest of the names ``directory`` holds and of their inodes."""
    with os.scandir(directory) as entries:
        names = sorted(f"{e.name}\0{e.inode()}" for e in entries)
    return digest("\n".join(names).encode("utf-8", "surrogateescape"))


CHECKS = {"stat": _holds_status, "lstat": _holds_lstatus, "real": _holds_real,
           "content": _holds_content, "listing": _holds_listing}


def racy(info: os.stat_result) -> bool:
    return max(info.st_mtime_ns, info.st_ctime_ns) >= time.time_ns() - RACY_NS


def digest(data: bytes) -> bytes:
    return blake2b(data, digest_size=16).digest()


def read_fd(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
