"""The filesystem facts a decision read, so that a remembered decision is reused only while
every one of them still holds.

A decision depends on the filesystem: where a link leads (``h/../config`` is ``.git/config``
when ``h -> .git/hooks``), whether a path exists and what it is, how many hard links a file
has, what a Makefile, a ``package.json``, an ignore file, a git index or config says, which
names a directory holds. Every read a check makes goes through this module, which notes a
witness of what it saw in the recorder of the decision under way (a context variable, as the
budget in ``bounds.py``; outside a decision nothing is noted): ``stat``/``lstat`` (a path's
status), ``real`` (what ``os.path.realpath`` looked at), ``content`` (a file read) and
``listing`` (the names a directory holds); ``fswitness.py`` says what each witness keeps.

``holds(facts)`` says whether every witness is still what it was. A change the kernel makes
always sets the change time to the time of the change, which a program cannot set back.
"""

from __future__ import annotations

import os
import stat as _stat
from collections.abc import Iterator
from contextvars import ContextVar

from clawgate.fswitness import (
    CHECKS,
    OPEN_FLAGS,
    digest,
    full,
    joinrealpath,
    listing_witness,
    racy,
    read_fd,
    signature,
    status_witness,
)

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import TypeAlias

    Witness: TypeAlias = object



class Facts:
    """The witnesses one decision (or one piece of one) noted, by (kind, path, detail)."""

    __slots__ = ("real", "reusable", "seen")

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str, int], Witness] = {}
        self.reusable = True  # False: a fact changed while it was being read
        # The real paths of absolute paths resolved under this recording, as read the first
        # time: one decision asks for the same path several times (each validator that
        # looks at a path), and reads the links on the way once (its witness is noted then)
        self.real: dict[str, str] = {}

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
            if not CHECKS[kind](path, detail, witness):
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
    where it leads (``joinrealpath``, which follows it step by step). Within one recording
    an absolute path is resolved once: later asks get the same answer (the facts of one
    decision are one reading of the disk; ``holds`` re-checks them before it is reused)."""
    current = _CURRENT.get()
    if current is None or not path.startswith("/"):
        real = os.path.realpath(path)
        if current is not None:  # relative: against the process's directory of the moment
            current.note(("real", path, 0), (os.getcwd(), real))
        return real
    found = current.real.get(path)
    if found is not None:  # resolved already in this decision: its witness is noted
        return found
    looked: list[tuple[str, str | None]] = []
    try:
        real, _ = joinrealpath("", path, {}, looked)
    finally:  # a link that cannot be read raises, as it does from realpath
        current.note(("real", path, 1), tuple(looked))
    found = current.real[path] = os.path.abspath(real)
    return found


def read(path: str, limit: int, *, follow: bool = True) -> bytes:
    """At most ``limit`` bytes of the file ``path`` (``follow=False``: not through a link at
    its end), noted. Raises OSError as ``open`` and ``read`` do (a directory: EISDIR)."""
    current = _CURRENT.get()
    try:
        fd = os.open(path, OPEN_FLAGS | (0 if follow else os.O_NOFOLLOW))
        try:
            info = os.fstat(fd)  # before reading: a write after it changes what is re-checked
            data = read_fd(fd, limit)
        finally:
            os.close(fd)
    except OSError:
        if current is not None:  # what made it fail is the path's status (absent, a link...)
            current.note(("stat" if follow else "lstat", path, 0), status_witness(path, follow))
        raise
    if current is not None:
        current.note(("content", path, limit * 2 + follow),
                     (full(info), digest(data) if racy(info) else None))
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
        current.note(("listing", directory, 0), listing_witness(directory))


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
        current.note(("stat" if follow else "lstat", path, 0), signature(info))
    return info
