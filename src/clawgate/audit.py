"""The audit log: one JSON line per tool call, each chained to the line before by its sha256.

Every line carries ``prev``, the sha256 (hex) of the previous line's bytes without the newline;
the first line carries 64 zeros. Altering, inserting or removing a line breaks the chain at the
next line, which ``verify`` reports. (Removing lines at the very end cannot be seen from the
file alone; keep ``AuditLog.head()`` somewhere else to anchor it.)

Writers take a thread lock and an exclusive ``flock`` on the file, so threads and processes can
share one log; each line is written with one ``write`` on an ``O_APPEND`` descriptor, then
flushed and fsynced before ``append`` returns.

A torn last line (a writer killed or a disk filled mid-line) is handled deliberately: the next
writer does not hide or repair it. It ends the fragment with a newline and first writes a
``torn-line-sealed`` record chained to the fragment's bytes, then its own record. The log keeps
the evidence and ``verify`` keeps reporting it as broken at the torn line, so an operator has
to look; the chain after it is intact and can be checked with ``verify(path, start=...)``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from clawgate.decision import Reason
from clawgate.tools.scrub import Scrubber

GENESIS = "0" * 64
_CHUNK = 65536


def line_hash(line: bytes) -> str:
    """The hash the next line's ``prev`` must carry; ``line`` is without its newline."""
    return hashlib.sha256(line).hexdigest()


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """What one tool call left behind. ``args`` and ``result`` are scrubbed before writing."""

    session: str
    agent: str
    tool: str
    args: Mapping[str, object]
    outcome: str  # "allow", "ask", "deny", or "error"
    reasons: Sequence[Reason] = ()
    result: Mapping[str, object] = field(default_factory=dict)
    duration_ms: float = 0.0


@dataclass(frozen=True, slots=True)
class VerifyResult:
    ok: bool
    lines: int  # lines read (up to and including the first bad one)
    first_bad_line: int | None  # 1-based
    why: str


class AuditLog:
    """An append-only, hash-chained JSONL file, safe across threads and processes."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        scrubber: Scrubber | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.scrubber = scrubber or Scrubber()
        self._clock = clock
        self._lock = threading.Lock()
        self._fd: int | None = None

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def _descriptor(self) -> int:
        if self._fd is None:
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
            self._fd = os.open(self.path, flags, 0o600)
        return self._fd

    def append(self, record: AuditRecord) -> str:
        """Write ``record`` as one line, durably; return that line's hash."""
        body = self._entry(record)
        with self._lock:
            fd = self._descriptor()
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                prev = self._prev_hash(fd)
                return self._write(fd, body, prev)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def head(self) -> str:
        """The hash of the last line (GENESIS for an empty log): an anchor to keep elsewhere."""
        with self._lock:
            fd = self._descriptor()
            fcntl.flock(fd, fcntl.LOCK_SH)
            try:
                last, _complete = _last_line(fd)
                return GENESIS if last is None else line_hash(last)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def _entry(self, record: AuditRecord) -> dict[str, object]:
        return {
            "time": self._now(),
            "session": record.session,
            "agent": record.agent,
            "tool": record.tool,
            "args": self.scrubber.scrub_value(dict(record.args)),
            "decision": {
                "outcome": record.outcome,
                "reasons": [self.scrubber.scrub_value(r.as_dict()) for r in record.reasons],
            },
            "result": self.scrubber.scrub_value(dict(record.result)),
            "duration_ms": round(record.duration_ms, 3),
        }

    def _prev_hash(self, fd: int) -> str:
        """The previous line's hash; a torn last line is sealed first (see the module doc)."""
        last, complete = _last_line(fd)
        if last is None:
            return GENESIS
        if complete:
            return line_hash(last)
        _write_all(fd, b"\n")
        seal = {"event": "torn-line-sealed", "time": self._now(), "torn_bytes": len(last)}
        return self._write(fd, seal, line_hash(last))

    def _now(self) -> str:
        stamp = datetime.fromtimestamp(self._clock(), UTC).isoformat(timespec="milliseconds")
        return stamp.replace("+00:00", "Z")

    @staticmethod
    def _write(fd: int, entry: Mapping[str, object], prev: str) -> str:
        line = json.dumps({**entry, "prev": prev}, ensure_ascii=False, separators=(",", ":"),
                          default=str).encode("utf-8", "surrogateescape")
        _write_all(fd, line + b"\n")
        os.fsync(fd)
        return line_hash(line)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _last_line(fd: int) -> tuple[bytes | None, bool]:
    """The last line of the file (without newline) and whether it ended with a newline."""
    size = os.fstat(fd).st_size
    if size == 0:
        return None, True
    complete = os.pread(fd, 1, size - 1) == b"\n"
    end = size - 1 if complete else size
    tail = b""
    pos = end
    while pos > 0:
        step = min(_CHUNK, pos)
        pos -= step
        tail = os.pread(fd, step, pos) + tail
        cut = tail.rfind(b"\n")
        if cut >= 0:
            return tail[cut + 1:], complete
    return tail, complete


def verify(path: str | os.PathLike[str], start: int = 1) -> VerifyResult:
    """Check every line's JSON and chain from line ``start`` (1-based) to the end.

    Raises OSError if the file cannot be read.
    """
    expected: str | None = GENESIS if start == 1 else None
    number = 0
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number < start:
                continue
            problem, digest = _check_line(raw, expected, number)
            if problem:
                return VerifyResult(False, number, number, problem)
            expected = digest
    return VerifyResult(True, number, None, f"{number} lines, chain intact")


def _check_line(raw: bytes, expected: str | None, number: int) -> tuple[str | None, str]:
    if not raw.endswith(b"\n"):
        return "torn line: no newline at the end (a writer stopped mid-line)", ""
    line = raw[:-1]
    try:
        entry = json.loads(line)
    except ValueError:
        return "not a JSON record (a torn line, sealed by a later writer, or an edit)", ""
    if not isinstance(entry, dict) or not isinstance(entry.get("prev"), str):
        return "not an audit record (no 'prev' hash)", ""
    if expected is not None and entry["prev"] != expected:
        return (f"does not chain to line {number - 1}: that line or this one was altered, "
                "or lines were inserted or removed"), ""
    return None, line_hash(line)
