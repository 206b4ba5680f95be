"""Which paths git tracks: the names in a repository's index (``.git/index``), read as git
writes it (versions 2, 3 and 4, SHA-1 or SHA-256 object names), without running git.

The whole file is accounted for or it is not read: the entries, then the extensions, each
with its size, up to the trailing checksum (which says the object names' size). A split index
(``core.splitIndex``) keeps most entries in ``sharedindex.<hash>``: its names count as well. A
sparse index holds a directory outside the sparse cone as one entry ``dir/``: everything below
it is tracked.

A delete that the project's ignore files would spare still needs a person when it takes a
tracked file with it: git does not ignore a tracked file whatever its ignore files say, and an
uncommitted change to one is lost with it.
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
from collections.abc import Sequence
from fnmatch import fnmatchcase

from clawgate import fsfacts
from clawgate.fswitness import racy

_MAX_INDEX_BYTES = 64 << 20  # a larger index is not read: nothing is known untracked
_ENTRY_FIXED = 40  # ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields
_EXTENDED = 0x4000
_NAME_MASK = 0x0FFF

_cache: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {}


def git_dir(start: str) -> tuple[str, str] | None:
    """The work tree and git directory of the repository holding ``start`` (a directory),
    looking upwards; None outside any repository. A ``.git`` file (a linked work tree or a
    submodule) is followed to the directory it names."""
    here = start
    while True:
        dot = os.path.join(here, ".git")
        if fsfacts.isdir(dot):
            return here, dot
        if fsfacts.isfile(dot):
            try:
                line = fsfacts.read_text(dot, 4096).strip()
            except OSError:
                return here, dot  # unreadable: tracked() then cannot tell
            target = line.removeprefix("gitdir:").strip()
            return here, os.path.normpath(os.path.join(here, target))
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def tracked_under(path: str) -> bool | None:
    """Whether the index of the repository holding ``path`` (absolute, normalised) names
    ``path`` or anything below it; False outside a repository or where it has no index yet;
    None when the index cannot be read (the caller fails closed)."""
    found = _index_of(os.path.dirname(path) or "/")
    if found is None:
        return False
    top, names = found
    if names is None:
        return None
    rel = os.path.relpath(path, top)
    if rel == ".":
        return bool(names)
    prefix = rel + "/"
    return any(n == rel or n.startswith(prefix) or _sparse_over(n, prefix) for n in names)


def _index_of(start: str) -> tuple[str, tuple[str, ...] | None] | None:
    """The work tree of the repository holding ``start`` and the names its index holds (None:
    the index cannot be read); None outside any repository."""
    found = git_dir(start)
    if found is None:
        return None
    top, gitdir = found
    return top, _names(gitdir)


def _sparse_over(name: str, prefix: str) -> bool:
    """``name`` is a sparse index's directory entry (``dir/``) holding ``prefix``."""
    return name.endswith("/") and prefix.startswith(name)


def tracked_matching(directory: str, pattern: str) -> bool | None:
    """Whether the index names something below ``directory/NAME`` for a NAME that the glob
    ``pattern`` (one component, as bash expands it: no dot files unless it starts with a dot)
    matches; as ``tracked_under``."""
    from fnmatch import fnmatchcase

    found = _index_of(directory)
    if found is None:
        return False
    top, names = found
    if names is None:
        return None
    rel = os.path.relpath(directory, top)
    prefix = "" if rel == "." else rel + "/"
    hidden = pattern.startswith(".")
    for name in names:
        if _sparse_over(name, prefix):
            return True
        if name.startswith(prefix):
            first = name[len(prefix):].split("/", 1)[0]
            if fnmatchcase(first, pattern) and (hidden or not first.startswith(".")):
                return True
    return False


def tracked_named(directory: str, patterns: Sequence[str]) -> bool | None:
    """Whether the index names ``directory`` or a path below it with a component (from
    ``directory``'s own name down) that a glob of ``patterns`` matches as ``find -name`` or
    ``-iname`` does (dot files too, either case): what ``find DIRECTORY -name P -delete`` (or
    ``-exec rm -rf``) takes with it; as ``tracked_under``. One expression over the index's
    names joined (a large index is read in C, not name by name)."""
    found = _index_of(directory)
    if found is None:
        return False
    top, names = found
    if names is None:
        return None
    rel = os.path.relpath(directory, top)
    lowered = [p.lower() for p in patterns]
    if rel != "." and any(fnmatchcase(rel.rsplit("/", 1)[-1].lower(), p) for p in lowered):
        return tracked_under(directory)  # find's tests match its start point too
    prefix = "" if rel == "." else rel + "/"
    globs = [_glob(p) for p in lowered]
    try:
        expression = re.compile(rf"^{re.escape(prefix.lower())}(?:[^\n]*/)?"
                                rf"(?:{'|'.join(g for g, _ in globs)})(?:/|$)", re.M)
    except re.error:
        return None  # a glob read otherwise than find reads it: nothing is known untracked
    blob = _blob(top, names)
    if any(run in blob for _, run in globs) and expression.search(blob) is not None:
        return True  # (a substring search first: most names are in no tracked path)
    return "/\n" in blob + "\n" and any(_sparse_over(n, prefix) for n in names)


_blobs: dict[str, tuple[tuple[str, ...], str]] = {}


def _blob(top: str, names: tuple[str, ...]) -> str:
    """The index's names, lowercased, one a line (for the last index read)."""
    cached = _blobs.get(top)
    if cached is not None and cached[0] is names:
        return cached[1]
    blob = "\n".join(names).lower()
    _blobs.clear()
    _blobs[top] = (names, blob)
    return blob


def _glob(pattern: str) -> tuple[str, str]:
    """``pattern`` (one component, as fnmatch reads it) as an expression matching within one
    component of one line (``*`` and ``?`` cross neither ``/`` nor a newline), and the longest
    run of it that every match holds as it is (``.pyc`` of ``*.pyc``)."""
    out: list[str] = []
    runs, run = [""], ""
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        i += 1
        j = -1
        if char == "[":
            j = i + (i < n and pattern[i] == "!")
            j += j < n and pattern[j] == "]"
            j = pattern.find("]", j)
        if char not in "*?" and j < 0:
            out.append("(?!)" if char == "/" else re.escape(char))  # one component only
            run += char
            continue
        runs.append(run)
        run = ""
        if char == "*":
            out.append("[^/\n]*")
        elif char == "?":
            out.append("[^/\n]")
        else:
            inside = re.sub(r"([\\\[&~|])", r"\\\1", pattern[i:j])  # no nested sets
            i = j + 1
            inside = "^" + inside[1:] if inside.startswith("!") else (
                "\\" + inside if inside.startswith("^") else inside)
            out.append(f"(?![/\n])[{inside}]")
    return "".join(out), max([*runs, run], key=len)


def _names(gitdir: str) -> tuple[str, ...] | None:
    index = os.path.join(gitdir, "index")
    try:
        info = fsfacts.stat(index)
    except FileNotFoundError:
        return ()  # a repository with nothing added yet
    except OSError:
        return None
    if info.st_size > _MAX_INDEX_BYTES:
        return None
    # every field a rewrite changes; none while the times cannot tell a rewrite in the same
    # clock tick (then it is read, and what was read is what the decision depends on)
    stamp = (info.st_ino, info.st_dev, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    cached = _cache.get(index)
    if cached is not None and cached[0] == stamp and not racy(info):
        return cached[1]
    try:
        names = _read(gitdir, index)
    except (OSError, ValueError, struct.error, UnicodeDecodeError, IndexError):
        return None
    _cache.clear()  # one repository at a time: a bounded cache
    _cache[index] = (stamp, names)
    return names


def _read(gitdir: str, index: str) -> tuple[str, ...]:
    """The names of ``index`` and, for a split index, of the shared index it links to."""
    data = fsfacts.read(index, _MAX_INDEX_BYTES + 1)
    if len(data) > _MAX_INDEX_BYTES:
        raise ValueError("index too large")
    names, shared = read_index(data, _hash_size(gitdir))
    if shared is None:
        return names
    data = fsfacts.read(os.path.join(gitdir, f"sharedindex.{shared}"), _MAX_INDEX_BYTES + 1)
    if len(data) > _MAX_INDEX_BYTES:
        raise ValueError("shared index too large")
    base, linked = read_index(data, _hash_size(gitdir))
    if linked is not None:
        raise ValueError("a shared index linking to another")
    return (*base, *names)


def _hash_size(gitdir: str) -> int:
    """32 for a SHA-256 repository (``extensions.objectformat``), else 20."""
    try:
        text = fsfacts.read_text(os.path.join(gitdir, "config"), 1 << 16).lower()
    except OSError:
        return 20
    squeezed = "".join(text.split())
    return 32 if "objectformat=sha256" in squeezed else 20


def parse(data: bytes, hash_size: int = 20) -> tuple[str, ...]:
    """The path names of an index file's entries (ValueError: not an index git writes)."""
    return read_index(data, hash_size)[0]


def read_index(data: bytes, hash_size: int = 20) -> tuple[tuple[str, ...], str | None]:
    """The path names of an index file's entries and, for a split index, the name of the
    shared index it links to (ValueError: not an index git writes, or one whose bytes are not
    all accounted for). The trailing checksum gives the object names' size; an index written
    without one (``index.skipHash``: zeros) is read with ``hash_size``."""
    for size, digest in ((20, hashlib.sha1), (32, hashlib.sha256)):
        if len(data) > size and digest(data[:-size]).digest() == data[-size:]:
            return _entries(data, size)
    if len(data) > hash_size and not any(data[-hash_size:]):
        return _entries(data, hash_size)
    raise ValueError("index checksum does not match")


def _entries(data: bytes, hash_size: int) -> tuple[tuple[str, ...], str | None]:
    if data[:4] != b"DIRC":
        raise ValueError("not a git index")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        raise ValueError(f"index version {version}")
    names: list[str] = []
    offset, previous = 12, b""
    for _ in range(count):
        start = offset
        offset += _ENTRY_FIXED + hash_size
        (flags,) = struct.unpack(">H", data[offset:offset + 2])
        offset += 2
        if version >= 3 and flags & _EXTENDED:
            offset += 2
        if version == 4:
            strip, offset = _varint(data, offset)
            end = data.index(b"\0", offset)
            if strip > len(previous):
                raise ValueError("index entry strips more than its predecessor holds")
            name = previous[:len(previous) - strip] + data[offset:end]
            offset = end + 1
        else:
            length = flags & _NAME_MASK
            end = offset + length if length < _NAME_MASK else data.index(b"\0", offset)
            name = data[offset:end]
            offset = start + ((end - start + 8) // 8) * 8  # NUL-padded to a multiple of 8
        if offset > len(data):
            raise ValueError("index entry runs past the end")
        names.append(name.decode("utf-8", errors="surrogateescape"))
        previous = name
    return tuple(names), _extensions(data, offset, len(data) - hash_size, hash_size)


def _extensions(data: bytes, offset: int, end: int, hash_size: int) -> str | None:
    """Walk the extensions from ``offset`` to exactly ``end``; the shared index a ``link``
    extension names (hex), if any."""
    shared = None
    while offset < end:
        if offset + 8 > end:
            raise ValueError("an extension header runs past the checksum")
        signature = data[offset:offset + 4]
        (size,) = struct.unpack(">I", data[offset + 4:offset + 8])
        offset += 8
        if offset + size > end:
            raise ValueError("an extension runs past the checksum")
        if signature == b"link":
            if size < hash_size:
                raise ValueError("a link extension without its index name")
            link = data[offset:offset + hash_size]
            if any(link):
                shared = link.hex()
        offset += size
    if offset != end:
        raise ValueError("entries run past the checksum")
    return shared


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    """git's offset encoding (varint.c): seven bits a byte, each continuation adding one."""
    byte = data[offset]
    offset += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[offset]
        offset += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, offset
