"""What a shadow run returns: each execution bash attempted, and the text of each command
whose redirections write or connect (``SourceText``: a builtin's ``echo … >> ~/.bashrc`` or
a ``/dev/tcp`` connection starts no program), read from the recorder's files."""

from __future__ import annotations

import os
from enum import Enum

from clawgate.records import record

MAX_RECORDS = 256  # a line that starts more programs than this is not read further
MAX_TEXTS = 32  # command texts read per run (and recorded per process)
TEXT_SUFFIX = ".t"  # a record of a command's text, not of an execution
MAX_RECORD_BYTES = 1 << 16
O_ACCMODE, O_WRONLY, O_RDWR, O_APPEND = 0o3, 0o1, 0o2, 0o2000


class Status(str, Enum):
    OK = "ok"  # bash ran the line to its end
    TIMEOUT = "timeout"  # killed at the time limit; the executions recorded before are kept
    FAILED = "failed"  # the sandbox could not run it
    UNAVAILABLE = "unavailable"  # no working bubblewrap here


@record(frozen=True, slots=True)
class Descriptor:
    """An open file descriptor of an execution: where it points, and how it was opened."""

    fd: int
    target: str
    writes: bool = False
    appends: bool = False


@record(frozen=True, slots=True)
class Execution:
    """One program bash started: its argv after every expansion (``argv[0]`` a bare name for
    a program found in a system directory), its working directory, its open descriptors, the
    exported variables that differ from the sandbox's start, and how many shells deep it ran."""

    argv: tuple[str, ...]
    cwd: str
    fds: tuple[Descriptor, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    depth: int = 0


@record(frozen=True, slots=True)
class SourceText:
    """A simple command bash ran whose text redirects output or names ``/dev/tcp`` or
    ``/dev/udp``, as bash read it (before expansion; ``eval``'s and decoded text's too), in
    the working directory it ran in."""

    text: str
    cwd: str
    depth: int = 0


@record(frozen=True, slots=True)
class ShadowRun:
    status: Status
    executions: tuple[Execution, ...] = ()
    detail: str = ""
    texts: tuple[SourceText, ...] = ()


def read_trace(directory: str, hide: str = "") -> tuple[Execution, ...]:
    """The executions recorded in ``directory``, in the order they started; descriptors open
    to paths under ``hide`` (the sandbox's own files outside it) left out."""
    try:
        names = os.listdir(directory)
    except OSError:
        return ()
    found = []
    for data in _records(directory, [n for n in names if not n.endswith(TEXT_SUFFIX)],
                         MAX_RECORDS):
        execution = parse_record(data, hide)
        if execution is not None:
            found.append(execution)
    return tuple(found)


def read_texts(directory: str) -> tuple[SourceText, ...]:
    """The command texts recorded in ``directory``, in the order they ran."""
    try:
        names = [n for n in os.listdir(directory) if n.endswith(TEXT_SUFFIX)]
    except OSError:
        return ()
    found = []
    for data in _records(directory, names, MAX_TEXTS):
        text = parse_text(data)
        if text is not None:
            found.append(text)
    return tuple(found)


def _records(directory: str, names: list[str], most: int) -> list[bytes]:
    found = []
    for name in sorted(names, key=_order)[:most]:
        try:
            with open(os.path.join(directory, name), "rb") as handle:
                found.append(handle.read(MAX_RECORD_BYTES))
        except OSError:
            continue
    return found


def parse_text(data: bytes) -> SourceText | None:
    """One command-text record's fields; None when it holds no text (cut off)."""
    text: str | None = None
    cwd, depth = "/", 0
    for item in data.decode("utf-8", "surrogateescape").split("\0"):
        tag, value = item[:2], item[2:]
        if tag == "t:":
            text = value
        elif tag == "c:":
            cwd = value
        elif tag == "d:" and value.isdigit():
            depth = int(value)
    return None if text is None else SourceText(text, cwd, depth)


def _order(name: str) -> tuple[int, int, str]:
    stamp, _, pid = name.removesuffix(TEXT_SUFFIX).partition(".")
    return (int(stamp) if stamp.isdigit() else 0, int(pid) if pid.isdigit() else 0, name)


def parse_record(data: bytes, hide: str = "") -> Execution | None:
    """One record file's fields; None when it names no program (cut off while written)."""
    fields = data.decode("utf-8", "surrogateescape").split("\0")
    program: str | None = None
    args: list[str] = []
    cwd, depth = "/", 0
    env: list[tuple[str, str]] = []
    flags: dict[int, int] = {}
    targets: dict[int, str] = {}
    for item in fields:
        tag, value = item[:2], item[2:]
        if tag == "p:":
            program = value
        elif tag == "a:":
            args.append(value)
        elif tag == "c:":
            cwd = value
        elif tag == "d:" and value.isdigit():
            depth = int(value)
        elif tag == "e:":
            name, _, text = value.partition("=")
            env.append((name, text))
        elif tag in ("m:", "f:"):
            fd, _, text = value.partition("=")
            if fd.isdigit() and tag == "m:":
                flags[int(fd)] = int(text, 8) if text.isdigit() else 0
            elif fd.isdigit():
                targets[int(fd)] = text
    if program is None:
        return None
    fds = tuple(Descriptor(fd, target, _writes(flags.get(fd, 0)),
                           bool(flags.get(fd, 0) & O_APPEND))
                for fd, target in sorted(targets.items())
                if not (hide and target.startswith(hide + "/")))
    return Execution((program, *args), cwd, fds, tuple(env), depth)


def _writes(flags: int) -> bool:
    return flags & O_ACCMODE in (O_WRONLY, O_RDWR)
