"""The filesystem facts a decision read, so that a remembered decision is reused only while
every one of them still holds.

A decision depends on the filesystem: where a link leads (``h/../config`` is ``.git/config``
when ``h -> .git/hooks``), whether a path exists and what it is, how many hard links a file
has, what a Makefile, a ``package.json``, an ignore file, a git index or config says, which
names a directory holds. Every read a check makes goes through this module, which notes a
witness of what it saw in the recorder of the decision under way (a context variable, as the
budget in ``bounds.py``; outside a decision nothing is noted):

- ``stat``/``lstat``: the status fields that change with any change to the file (type, mode,
  inode, device, links, owner, size, modification and change times), or the error number;
  of a directory only its type, mode, inode, device and owner (what the checks ask of one:
  the names it holds are a listing fact), so that a file written inside it leaves it be;
- ``real``: what ``os.path.realpath`` looked at, component by component: whether each is a
  link, and where it leads; the same answers give the same real path;
- ``content``/``listing``: the status of the file read (taken before reading) or of the
  directory listed, and, when it was changed too recently for its times to tell a later
  change in the same clock tick (``RACY_NS``, as git's "racily clean" entries), a digest of
  what was read, read again to compare.

``holds(facts)`` says whether every witness is still what it was. A change the kernel makes
always sets the change time to the time of the change, which a program cannot set back.
"""

from __future__ import annotations

import os
import stat as _stat
import time
from collections.abc import Iterator
from contextvars import ContextVar
from hashlib import blake2b

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import TypeAlias

    Witness: TypeAlias = object

# A file changed less than this long before it was read may change again with the same times
# (file times advance by a clock tick; some filesystems keep two seconds): its content is
# compared as well.
RACY_NS = 2_000_000_000
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO does not hold the check up


class Facts:
    """The witnesses one decision (or one piece of one) noted, by (kind, path, detail)."""

    __slots__ = ("reusable", "seen")

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str, int], Witness] = {}
        self.reusable = True  # False: a fact changed while it was being read

    def note(self, key: tuple[str, str, int], witness: Witness) -> None:
        old = self.seen.setdefault(key, witness)
        if old is not witness and old != witness:
            self.reusable = False  # read twice, seen two ways: no single state to re-check

    def adopt(self, other: Facts) -> None:
        """Every fact of ``other`` (a remembered piece this decision reuses) as its own."""
        for key, witness in other.seen.items():
            self.note(key, witness)
        self.reusable = self.reusable and other.reusable


_CURRENT: ContextVar[Facts | None] = ContextVar("clawgate_fsfacts", default=None)


def recording() -> Recording:
    """Note the facts read until the block ends; an enclosing recording gets them as well:
    ``with recording() as facts: ...``."""
    return Recording()


class Recording:
    """One recording under way (``recording``)."""

    __slots__ = ("facts", "outer", "token")

    def __init__(self) -> None:
        self.facts = Facts()

    def __enter__(self) -> Facts:
        self.outer = _CURRENT.get()
        self.token = _CURRENT.set(self.facts)
        return self.facts

    def __exit__(self, *exc: object) -> None:
        _CURRENT.reset(self.token)
        if self.outer is not None:
            self.outer.adopt(self.facts)


def adopt(facts: Facts) -> None:
    """Make ``facts`` facts of the decision under way (a remembered piece it reuses)."""
    current = _CURRENT.get()
    if current is not None:
        current.adopt(facts)


def holds(facts: Facts) -> bool:
    """Whether every fact in ``facts`` is still as it was noted."""
    if not facts.reusable:
        return False
    try:
        for (kind, path, detail), witness in facts.seen.items():
            if not _CHECKS[kind](path, detail, witness):
                return False
    except (OSError, ValueError):
        return False
    return True


# -- reads that note what they saw ------------------------------------------------------------

def lstat(path: str) -> os.stat_result:
    """``os.lstat``, noted."""
    return _status(path, 0)


def stat(path: str) -> os.stat_result:
    """``os.stat``, noted."""
    return _status(path, 1)


def islink(path: str) -> bool:
    try:
        return _stat.S_ISLNK(lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def lexists(path: str) -> bool:
    try:
        lstat(path)
    except (OSError, ValueError):
        return False
    return True


def isdir(path: str) -> bool:
    try:
        return _stat.S_ISDIR(stat(path).st_mode)
    except (OSError, ValueError):
        return False


def isfile(path: str) -> bool:
    try:
        return _stat.S_ISREG(stat(path).st_mode)
    except (OSError, ValueError):
        return False


def exists(path: str) -> bool:
    try:
        stat(path)
    except (OSError, ValueError):
        return False
    return True


def realpath(path: str) -> str:
    """``os.path.realpath``, noted: what it looked at, each component whether a link and
    where it leads (``_joinrealpath``, which follows it step by step)."""
    current = _CURRENT.get()
    if current is None or not path.startswith("/"):
        real = os.path.realpath(path)
        if current is not None:  # relative: against the process's directory of the moment
            current.note(("real", path, 0), (os.getcwd(), real))
        return real
    looked: list[tuple[str, str | None]] = []
    try:
        real, _ = _joinrealpath("", path, {}, looked)
    finally:  # a link that cannot be read raises, as it does from realpath
        current.note(("real", path, 1), tuple(looked))
    return os.path.abspath(real)


def read(path: str, limit: int, *, follow: bool = True) -> bytes:
    """At most ``limit`` bytes of the file ``path`` (``follow=False``: not through a link at
    its end), noted. Raises OSError as ``open`` and ``read`` do (a directory: EISDIR)."""
    current = _CURRENT.get()
    try:
        fd = os.open(path, _OPEN_FLAGS | (0 if follow else os.O_NOFOLLOW))
        try:
            info = os.fstat(fd)  # before reading: a write after it changes what is re-checked
            data = _read_fd(fd, limit)
        finally:
            os.close(fd)
    except OSError:
        if current is not None:  # what made it fail is the path's status (absent, a link...)
            current.note(("stat" if follow else "lstat", path, 0), _status_witness(path, follow))
        raise
    if current is not None:
        current.note(("content", path, limit * 2 + follow),
                     (_full(info), _digest(data) if _racy(info) else None))
    return data


def read_text(path: str, limit: int, *, follow: bool = True, newline: str | None = None
              ) -> str:
    """At most ``limit`` characters of ``path`` read as ``open(path, encoding="utf-8",
    errors="replace", newline=newline).read(limit)`` reads them, noted."""
    text = read(path, limit * 4, follow=follow).decode("utf-8", errors="replace")
    if newline is None:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text[:limit]


def listing(directory: str) -> None:
    """Note the names ``directory`` holds: call it before listing them (``os.scandir``,
    ``os.listdir``, a glob)."""
    current = _CURRENT.get()
    if current is not None:
        current.note(("listing", directory, 0), _listing_witness(directory))


def walk(top: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top, onerror=...)`` that raises the first OSError, each directory noted."""
    listing(top)
    with os.scandir(top) as entries:
        found = list(entries)
    dirs: list[str] = []
    files: list[str] = []
    below: list[str] = []
    for entry in found:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        (dirs if is_dir else files).append(entry.name)
        if is_dir and not entry.is_symlink():
            below.append(entry.name)
    yield top, dirs, files
    for name in dirs:  # the caller may prune ``dirs``, as with os.walk
        if name in below:
            yield from walk(os.path.join(top, name))


# -- witnesses ----------------------------------------------------------------------------------

def _status(path: str, follow: int) -> os.stat_result:
    current = _CURRENT.get()
    try:
        info = os.stat(path) if follow else os.lstat(path)
    except OSError as error:
        if current is not None:
            current.note(("stat" if follow else "lstat", path, 0), error.errno)
        raise
    if current is not None:
        current.note(("stat" if follow else "lstat", path, 0), _signature(info))
    return info


def _full(info: os.stat_result) -> tuple[int, ...]:
    return (info.st_mode, info.st_ino, info.st_dev, info.st_nlink, info.st_uid, info.st_gid,
            info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _signature(info: os.stat_result) -> tuple[int, ...]:
    if _stat.S_ISDIR(info.st_mode):
        return info.st_mode, info.st_ino, info.st_dev, info.st_uid, info.st_gid
    return _full(info)


def _status_witness(path: str, follow: int) -> Witness:
    try:
        return _signature(os.stat(path) if follow else os.lstat(path))
    except OSError as error:
        return error.errno
    except ValueError:
        return -1


def _joinrealpath(path: str, rest: str, seen: dict[str, str | None],
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
        path, ok = _joinrealpath(path, target, seen, looked)
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
    return _status_witness(path, 1) == witness


def _holds_lstatus(path: str, detail: int, witness: Witness) -> bool:
    return _status_witness(path, 0) == witness


def _holds_real(path: str, detail: int, witness: Witness) -> bool:
    if not detail:  # a relative path: computed again
        try:
            return (os.getcwd(), os.path.realpath(path)) == witness
        except (OSError, ValueError):
            return False
    assert isinstance(witness, tuple)
    return all(_link_target(looked) == target for looked, target in witness)


def _holds_content(path: str, detail: int, witness: Witness) -> bool:
    limit, follow = divmod(detail, 2)
    assert isinstance(witness, tuple)
    signature, digest = witness
    try:
        if _full(os.stat(path) if follow else os.lstat(path)) != signature:
            return False
    except OSError:
        return False
    if digest is None:
        return True
    try:  # changed too recently for its times to tell: what it holds is compared
        fd = os.open(path, _OPEN_FLAGS | (0 if follow else os.O_NOFOLLOW))
    except OSError:
        return False
    try:
        same: bool = _full(os.fstat(fd)) == signature and _digest(_read_fd(fd, limit)) == digest
        return same
    except OSError:
        return False
    finally:
        os.close(fd)


def _holds_listing(directory: str, detail: int, witness: Witness) -> bool:
    if not isinstance(witness, tuple):  # the directory could not be listed
        return _listing_witness(directory) == witness
    signature, digest = witness
    info = os.stat(directory)
    if _full(info) != signature:
        return False
    return digest is None or _names_digest(directory) == digest


def _listing_witness(directory: str) -> Witness:
    try:
        info = os.stat(directory)
        return _full(info), _names_digest(directory) if _racy(info) else None
    except OSError as error:
        return error.errno
    except ValueError:
        return -1


def _names_digest(directory: str) -> bytes:
    """A digest of the names ``directory`` holds and of their inodes."""
    with os.scandir(directory) as entries:
        names = sorted(f"{e.name}\0{e.inode()}" for e in entries)
    return _digest("\n".join(names).encode("utf-8", "surrogateescape"))


_CHECKS = {"stat": _holds_status, "lstat": _holds_lstatus, "real": _holds_real,
           "content": _holds_content, "listing": _holds_listing}


def _racy(info: os.stat_result) -> bool:
    return max(info.st_mtime_ns, info.st_ctime_ns) >= time.time_ns() - RACY_NS


def _digest(data: bytes) -> bytes:
    return blake2b(data, digest_size=16).digest()


def _read_fd(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
