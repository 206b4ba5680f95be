"""The audit log: one JSON line per tool call, keyed and chained to the line before.

Every line carries ``prev``, the HMAC-SHA256 (hex), under the audit key, of the previous line's
bytes without the newline (the first line carries 64 zeros), and ``mac``, the HMAC of its own
bytes without the ``mac`` member. Altering, inserting or removing a line breaks the chain at the
next line, and altering any line, the last one included, breaks its own ``mac``; without the key
(kept with the guard's state, see ``clawgate.statedir``) neither can be recomputed, so an edit
followed by a re-chain, or a whole forged log, fails ``verify``. What the chain cannot show by
itself is lines cut off at the end or an emptied file: each append also records an *anchor*
(the line count and the last line's chain value) under the state root, ``verify`` checks
against it when it exists, and ``policy audit anchor`` prints it to keep somewhere else.

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
import hmac
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


_MAC_HEAD = b',"mac":"'
_MAC_TAIL = b'"}'
_MAC_LEN = len(_MAC_HEAD) + 64 + len(_MAC_TAIL)


def line_hash(key: bytes, line: bytes) -> str:
    """The chain value the next line's ``prev`` must carry; ``line`` is without its newline."""
    return hmac.new(key, line, hashlib.sha256).hexdigest()


def default_key() -> bytes:
    """The audit key under the state root, made on first use."""
    from clawgate.statedir import state_key

    return state_key("audit")


def anchor_path(log: str | os.PathLike[str]) -> Path:
    """Where the anchor of the log at ``log`` is kept: under the state root, by its real path."""
    from clawgate.statedir import state_root

    real = os.path.realpath(log).encode("utf-8", "surrogateescape")
    return state_root() / "anchors" / f"{hashlib.sha256(real).hexdigest()[:24]}.json"


@dataclass(frozen=True, slots=True)
class Anchor:
    """How many lines a log had, and the chain value of its last line then."""

    lines: int
    head: str

    def as_dict(self) -> dict[str, object]:
        return {"lines": self.lines, "head": self.head}

    @classmethod
    def parse(cls, text: str) -> Anchor:
        """``N:HEAD`` or the JSON object ``as_dict`` makes. Raises ValueError."""
        text = text.strip()
        if text.startswith("{"):
            data = json.loads(text)
            lines, head = data["lines"], data["head"]
        else:
            count, _, head = text.partition(":")
            lines = int(count)
        if not isinstance(lines, int) or lines < 0 or not isinstance(head, str) \
                or len(head) != 64:
            raise ValueError("an anchor is a line count and a 64-hex chain value")
        return cls(lines, head)


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
        *,
        key: bytes | None = None,
        anchor: str | os.PathLike[str] | None = None,
    ) -> None:
        self.path = Path(path)
        self.scrubber = scrubber or Scrubber()
        self._clock = clock
        self._key = key if key is not None else default_key()
        self.anchor_path = Path(anchor) if anchor is not None else anchor_path(self.path)
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
                head = self._write(fd, body, prev)
                self._record_anchor(fd, prev, head)
                return head
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def head(self) -> str:
        """The chain value of the last line (GENESIS for an empty log)."""
        with self._lock:
            fd = self._descriptor()
            fcntl.flock(fd, fcntl.LOCK_SH)
            try:
                last, _complete = _last_line(fd)
                return GENESIS if last is None else line_hash(self._key, last)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def _record_anchor(self, fd: int, prev: str, head: str) -> None:
        """Keep the line count and head apart from the log, under the writer's lock: one more
        than the stored anchor when that anchored the line just chained to, else counted."""
        try:
            stored = read_anchor(self.anchor_path)
        except (OSError, ValueError):
            stored = None
        lines = stored.lines + 1 if stored is not None and stored.head == prev \
            else _count_lines(fd)
        self.anchor_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.anchor_path.with_name(f".{self.anchor_path.name}.{os.urandom(6).hex()}")
        tmp.write_text(json.dumps({**Anchor(lines, head).as_dict(),
                                   "log": os.path.realpath(self.path)}), encoding="utf-8")
        os.replace(tmp, self.anchor_path)

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
            return line_hash(self._key, last)
        _write_all(fd, b"\n")
        seal = {"event": "torn-line-sealed", "time": self._now(), "torn_bytes": len(last)}
        return self._write(fd, seal, line_hash(self._key, last))

    def _now(self) -> str:
        stamp = datetime.fromtimestamp(self._clock(), UTC).isoformat(timespec="milliseconds")
        return stamp.replace("+00:00", "Z")

    def _write(self, fd: int, entry: Mapping[str, object], prev: str) -> str:
        body = json.dumps({**entry, "prev": prev}, ensure_ascii=False, separators=(",", ":"),
                          default=str).encode("utf-8", "surrogateescape")
        mac = line_hash(self._key, body).encode("ascii")
        line = body[:-1] + _MAC_HEAD + mac + _MAC_TAIL
        _write_all(fd, line + b"\n")
        os.fsync(fd)
        return line_hash(self._key, line)


def _count_lines(fd: int) -> int:
    count, pos, size = 0, 0, os.fstat(fd).st_size
    while pos < size:
        chunk = os.pread(fd, _CHUNK * 16, pos)
        count += chunk.count(b"\n")
        pos += len(chunk)
    return count


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


def verify(path: str | os.PathLike[str], start: int = 1, *, key: bytes | None = None,
           anchor: Anchor | None = None) -> VerifyResult:
    """Check every line's JSON, ``mac`` and chain from line ``start`` (1-based) to the end, and,
    given an ``anchor``, that the log still holds the anchored lines unchanged.

    ``key`` defaults to the audit key under the state root (never created here). Raises OSError
    if the file cannot be read, ClawgateError if there is no key.
    """
    if key is None:
        from clawgate.statedir import state_key

        key = state_key("audit", create=False)
    expected: str | None = GENESIS if start == 1 else None
    number, at_anchor = 0, None
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number < start:
                continue
            problem, digest = _check_line(key, raw, expected, number)
            if problem:
                return VerifyResult(False, number, number, problem)
            expected = digest
            if anchor is not None and number == anchor.lines:
                at_anchor = digest
    return _against_anchor(anchor, number, at_anchor) or VerifyResult(
        True, number, None, f"{number} lines, chain intact")


def _against_anchor(anchor: Anchor | None, lines: int,
                    at_anchor: str | None) -> VerifyResult | None:
    if anchor is None or anchor.lines == 0:
        return None
    if lines < anchor.lines:
        return VerifyResult(False, lines, lines + 1,
                            f"the log ends after {lines} lines; its anchor counts "
                            f"{anchor.lines}: lines were cut off or the file was emptied")
    if at_anchor != anchor.head:
        return VerifyResult(False, lines, anchor.lines, f"line {anchor.lines} is not the line "
                            "the anchor recorded: the log was rewritten")
    return None


def head_of(path: str | os.PathLike[str], key: bytes | None = None) -> str:
    """The chain value of the log's last line (GENESIS when empty)."""
    if key is None:
        from clawgate.statedir import state_key

        key = state_key("audit", create=False)
    with open(path, "rb") as handle:
        last, _complete = _last_line(handle.fileno())
    return GENESIS if last is None else line_hash(key, last)


def read_anchor(path: Path) -> Anchor | None:
    """The anchor kept at ``path``, or None if there is none. Raises ValueError if corrupt."""
    try:
        return Anchor.parse(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not an anchor") from exc


def _check_line(key: bytes, raw: bytes, expected: str | None,
                number: int) -> tuple[str | None, str]:
    if not raw.endswith(b"\n"):
        return "torn line: no newline at the end (a writer stopped mid-line)", ""
    line = raw[:-1]
    try:
        entry = json.loads(line)
    except ValueError:
        return "not a JSON record (a torn line, sealed by a later writer, or an edit)", ""
    if not isinstance(entry, dict) or not isinstance(entry.get("prev"), str):
        return "not an audit record (no 'prev' hash)", ""
    if not _mac_holds(key, line):
        return "its mac does not match: the line was altered or written without the key", ""
    if expected is not None and entry["prev"] != expected:
        return (f"does not chain to line {number - 1}: that line or this one was altered, "
                "or lines were inserted or removed"), ""
    return None, line_hash(key, line)


def _mac_holds(key: bytes, line: bytes) -> bool:
    if len(line) < _MAC_LEN or not line.endswith(_MAC_TAIL) \
            or line[-_MAC_LEN:-_MAC_LEN + len(_MAC_HEAD)] != _MAC_HEAD:
        return False
    body = line[:-_MAC_LEN] + b"}"
    mac = line[-_MAC_LEN + len(_MAC_HEAD):-len(_MAC_TAIL)]
    return hmac.compare_digest(line_hash(key, body).encode("ascii"), mac)
