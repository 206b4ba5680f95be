"""Paths that reach a process's environment (or its memory), however they are spelt.

``/proc/self/../$PPID/environ``, ``/proc//1/./environ``, ``/proc/thread-self/../../environ``,
``/proc/1/env*`` and ``cd /proc/1 && cat environ`` all read ``/proc/<pid>/environ``;
``grep -r KEY /proc/$PPID`` reads it too, and ``/proc/<pid>/mem`` holds the same secrets. A path is
made absolute against the directory the command runs in, unknown variables stand for one
component, ``self`` and ``thread-self`` are replaced by what they link to (``<pid>`` and
``<pid>/task/<tid>``) before ``..`` is folded, and the last component is compared with
``environ`` as the shell would match it (a glob that can match it counts). A path outside
``/proc`` that names ``environ`` is followed on disk: a symlink into ``/proc`` counts too.
"""

from __future__ import annotations

import fnmatch
import posixpath

from clawgate import fsfacts
from clawgate.lazyre import lazy_pattern

_VARIABLE = lazy_pattern(r"\$(?:\{[^}/]*\}|[A-Za-z_][A-Za-z0-9_]*|[0-9$!?#@*-])")
_TOKEN = lazy_pattern(r"[^\s'\"();,`<>|&=]+")
_GLOB = frozenset("*?[")
_SUBSTITUTION = lazy_pattern(r"\$\([^()]{0,256}\)|`[^`]{0,256}`")
_DYNAMIC = "\x01"  # a component known only when the command runs
_PROC = "/proc"
# what a process's directory holds that is its secrets: its environment and its memory
_SECRET_FILES = ("environ", "mem")


def reads_environ(text: str, cwd: str) -> bool:
    """Whether ``text`` (a word as written, or a token of code) names a process environment."""
    if "env" not in text and "mem" not in text and not _GLOB & set(text):
        return False
    plain = text.replace('"', "").replace("'", "").replace("\\", "")
    candidates = {plain, *_TOKEN.findall(plain)}
    return any(_names_environ(c, cwd) for c in candidates if c)


def _names_environ(path: str, cwd: str) -> bool:
    path = _VARIABLE.sub("_", path)
    if "$" in path:
        return False
    last = path.rstrip("/").rpartition("/")[2]
    if not _matches_environ(last):
        return False
    canonical = canonical_proc_path(path, cwd)
    if canonical == _PROC or canonical.startswith(_PROC + "/"):
        return True
    if _GLOB & set(path):
        return False
    try:  # a symlink (or a directory holding one) that leads into /proc
        real = fsfacts.realpath(posixpath.join(cwd, path))
    except (OSError, ValueError):
        return False
    return real.startswith(_PROC + "/")


def may_read_environ(text: str, cwd: str) -> bool:
    """Whether ``text`` may name a process environment, depending on values known only at run
    time: a dynamic last component in a process's directory (``/proc/$PPID/$f``,
    ``/proc/1/envir$(echo on)``), or ``environ``/``mem`` below a directory that is all dynamic
    (``$p/environ`` after ``p=/proc/$PPID``, ``/proc/$(echo $PPID)/environ``)."""
    if "$" not in text and "`" not in text:
        return False
    path = _SUBSTITUTION.sub(_DYNAMIC, text.replace('"', "").replace("'", ""))
    path = _VARIABLE.sub(_DYNAMIC, path)
    if "$" in path or "`" in path:
        return False
    directory, _, last = path.rstrip("/").rpartition("/")
    if _DYNAMIC in last:
        parts = canonical_proc_path(directory or ".", cwd).strip("/").split("/")
        return parts[0] == "proc" and (len(parts) == 2 or parts[2:3] == ["task"])
    if not _matches_environ(last):
        return False
    if _DYNAMIC not in directory:
        return False
    if canonical_proc_path(directory or ".", cwd).startswith(_PROC):
        return True
    # $p/environ: a directory all unknown; a glob there ($OUT/*) is every file, not this one
    return directory.split("/")[0].startswith(_DYNAMIC) and not _GLOB & set(last)


def canonical_proc_path(path: str, cwd: str) -> str:
    """``path`` absolute and folded, with ``/proc/self`` and ``/proc/thread-self`` replaced by
    what they point to (a pid; a pid's task)."""
    joined = posixpath.join(cwd, path)
    parts: list[str] = []
    for part in joined.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        if parts == ["proc"] and part == "self":
            parts.append("_")
        elif parts == ["proc"] and part == "thread-self":
            parts += ["_", "task", "_"]
        else:
            parts.append(part)
    return "/" + "/".join(parts)


def proc_directory(text: str, cwd: str) -> str | None:
    """Where ``cd TEXT`` goes when that is inside ``/proc`` with unknown components
    (``/proc/$PPID``), else None."""
    path = _VARIABLE.sub("_", text.replace('"', "").replace("'", ""))
    if "$" in path or "`" in path:
        return None
    canonical = canonical_proc_path(path, cwd)
    return canonical if canonical.startswith(_PROC + "/") else None


def _matches_environ(component: str) -> bool:
    if component in _SECRET_FILES:
        return True
    if "[" not in component and not _may_match_secret(component):
        return False  # fnmatch compiles each new glob (~40 us); most cannot match these
    return bool(_GLOB & set(component)) and any(fnmatch.fnmatchcase(name, component)
                                                for name in _SECRET_FILES)


# Every character a literal of a glob that matches one of _SECRET_FILES can be.
_SECRET_CHARS = frozenset("".join(_SECRET_FILES))
_SECRET_LONGEST = max(map(len, _SECRET_FILES))


def _may_match_secret(component: str) -> bool:
    """What a glob of ``*``, ``?`` and literals (no ``[…]``) needs to match one of
    _SECRET_FILES: each ``?`` and literal stands for one character of the name, so there are
    no more of them than the name is long, and each literal is a character of the name."""
    if len(component) - component.count("*") > _SECRET_LONGEST:
        return False
    return _SECRET_CHARS.issuperset(component.replace("*", "").replace("?", ""))


def process_tree(text: str, cwd: str) -> bool:
    """Whether ``text`` names ``/proc`` or a process's directory (``/proc/$PPID``, its
    ``task/<tid>``, anything under its ``root``): a recursive read of it reads ``environ``."""
    path = _VARIABLE.sub("_", text.replace('"', "").replace("'", ""))
    if "$" in path or "`" in path:
        return False
    parts = canonical_proc_path(path, cwd).strip("/").split("/")
    if parts[0] != "proc":
        return False
    rest = parts[1:]
    return (len(rest) <= 1 or rest[1] == "root" or
            (rest[1] == "task" and len(rest) <= 3))
