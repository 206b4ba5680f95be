"""Which paths git tracks: the names in a repository's index (``.git/index``), read as git
writes it (versions 2, 3 and 4, SHA-1 or SHA-256 object names), without running git.

A delete that the project's ignore files would spare still needs a person when it takes a
tracked file with it: git does not ignore a tracked file whatever its ignore files say, and an
uncommitted change to one is lost with it.
"""

from __future__ import annotations

import os
import struct

_MAX_INDEX_BYTES = 64 << 20  # a larger index is not read: nothing is known untracked
_ENTRY_FIXED = 40  # ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields
_EXTENDED = 0x4000
_NAME_MASK = 0x0FFF

_cache: dict[str, tuple[tuple[int, int], tuple[str, ...]]] = {}


def git_dir(start: str) -> tuple[str, str] | None:
    """The work tree and git directory of the repository holding ``start`` (a directory),
    looking upwards; None outside any repository. A ``.git`` file (a linked work tree or a
    submodule) is followed to the directory it names."""
    here = start
    while True:
        dot = os.path.join(here, ".git")
        if os.path.isdir(dot):
            return here, dot
        if os.path.isfile(dot):
            try:
                with open(dot, encoding="utf-8", errors="replace") as handle:
                    line = handle.read(4096).strip()
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
    found = git_dir(os.path.dirname(path) or "/")
    if found is None:
        return False
    top, gitdir = found
    names = _names(gitdir)
    if names is None:
        return None
    rel = os.path.relpath(path, top)
    if rel == ".":
        return bool(names)
    prefix = rel + "/"
    return any(n == rel or n.startswith(prefix) for n in names)


def tracked_matching(directory: str, pattern: str) -> bool | None:
    """Whether the index names something below ``directory/NAME`` for a NAME that the glob
    ``pattern`` (one component, as bash expands it: no dot files unless it starts with a dot)
    matches; as ``tracked_under``."""
    from fnmatch import fnmatchcase

    found = git_dir(directory)
    if found is None:
        return False
    top, gitdir = found
    names = _names(gitdir)
    if names is None:
        return None
    rel = os.path.relpath(directory, top)
    prefix = "" if rel == "." else rel + "/"
    hidden = pattern.startswith(".")
    for name in names:
        if name.startswith(prefix):
            first = name[len(prefix):].split("/", 1)[0]
            if fnmatchcase(first, pattern) and (hidden or not first.startswith(".")):
                return True
    return False


def _names(gitdir: str) -> tuple[str, ...] | None:
    index = os.path.join(gitdir, "index")
    try:
        info = os.stat(index)
    except FileNotFoundError:
        return ()  # a repository with nothing added yet
    except OSError:
        return None
    if info.st_size > _MAX_INDEX_BYTES:
        return None
    stamp = (info.st_mtime_ns, info.st_size)
    cached = _cache.get(index)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        with open(index, "rb") as handle:
            data = handle.read(_MAX_INDEX_BYTES + 1)
        names = parse(data, _hash_size(gitdir))
    except (OSError, ValueError, struct.error, UnicodeDecodeError):
        return None
    _cache.clear()  # one repository at a time: a bounded cache
    _cache[index] = (stamp, names)
    return names


def _hash_size(gitdir: str) -> int:
    """32 for a SHA-256 repository (``extensions.objectformat``), else 20."""
    try:
        with open(os.path.join(gitdir, "config"), encoding="utf-8", errors="replace") as h:
            text = h.read(1 << 16).lower()
    except OSError:
        return 20
    squeezed = "".join(text.split())
    return 32 if "objectformat=sha256" in squeezed else 20


def parse(data: bytes, hash_size: int = 20) -> tuple[str, ...]:
    """The path names of an index file's entries (ValueError: not an index git writes)."""
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
    return tuple(names)


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
