"""Reading a container's multiplexed output: bounded, under a deadline, and without losing bytes.

The engine answers an exec or an attach by upgrading the HTTP connection and sending frames (an
8-byte header: stream 1 or 2 and a length, then the data). The Docker SDK reads those frames
from the raw socket under the HTTP response's buffered reader, so output that arrived together
with the response headers sits in that buffer and is lost (docker/docker-py#3332): a fast
``echo`` comes back empty now and then, over TCP more than over the local socket. Frames are
therefore read here, from the buffered reader itself.
"""

from __future__ import annotations

import contextlib
import struct
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from clawgate.executors.base import ExecResult, Job
from clawgate.executors.docker_engine import sdk_failures

STDOUT, STDERR = 1, 2
IDLE_MARGIN_S = 30.0  # a stream may be silent this long beyond its command's timeout
HEADER = struct.Struct(">BxxxL")


class Capture:
    """One output stream's first ``cap`` bytes."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.truncated = False

    def feed(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if len(chunk) > room:
            self.truncated = True
        if room > 0:
            self.data += chunk[:room]


def frames(stream: Any) -> Iterator[tuple[int, bytes]]:
    """(stream id, data) frames of an SDK stream, read from its response's buffered reader."""
    reader = stream._response.raw._fp.fp  # the SDK's own path to the socket, one level up
    while True:
        header = reader.read(HEADER.size)
        if len(header) < HEADER.size:
            return
        kind, size = HEADER.unpack(header)
        data = reader.read(size) if size else b""
        if size and not data:
            return
        yield kind, data


def collect(stream: Any, job: Job, kill: Callable[[], None]) -> tuple[Capture, Capture, bool]:
    """Read a stream to its end, keeping ``job.output_cap`` bytes per output; when the timeout
    passes, ``kill`` (the container) ends it. Returns stdout, stderr and whether it timed out."""
    out, err = Capture(job.output_cap), Capture(job.output_cap)
    fired = threading.Event()
    broken: tuple[type[BaseException], ...] = (OSError, ValueError, *sdk_failures())

    def on_timeout() -> None:
        fired.set()
        kill()

    _idle_timeout(stream, job.timeout_s + job.kill_grace_s + IDLE_MARGIN_S)
    timer = threading.Timer(job.timeout_s, on_timeout)
    timer.daemon = True
    timer.start()
    try:
        for kind, data in frames(stream):
            (err if kind == STDERR else out).feed(data)
    except broken:  # a closed reader raises ValueError, a reset socket OSError
        if not fired.is_set():  # a broken stream is expected only after the kill
            raise
    finally:
        timer.cancel()
        timer.join()  # a kill under way finishes before the run reports its timeout
        close(stream)
    return out, err, fired.is_set()


def _idle_timeout(stream: Any, seconds: float) -> None:
    """A command may print nothing for its whole timeout, longer than an API call may take; and
    if the engine stops answering (the kill included), the read still ends."""
    raw: Any = getattr(stream._response.raw._fp.fp, "raw", None)
    sock: Any = getattr(raw, "_sock", raw)
    with contextlib.suppress(AttributeError, OSError):  # an SSH channel: its own timeouts
        sock.settimeout(seconds)


def close(stream: Any) -> None:
    """Close a hijacked stream's connection: the SDK leaves it open once read to its end."""
    with contextlib.suppress(*sdk_failures(), OSError):
        stream.close()
    response = getattr(stream, "_response", None)
    if response is not None:
        with contextlib.suppress(*sdk_failures(), OSError):
            response.close()


def result_of(code: int, out: Capture, err: Capture, start: float, *,
              timed_out: bool = False) -> ExecResult:
    return ExecResult(code, out.data.decode("utf-8", "replace"),
                      err.data.decode("utf-8", "replace"), (time.monotonic() - start) * 1000,
                      timed_out, out.truncated or err.truncated)
