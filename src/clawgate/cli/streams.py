"""A closed stdout (``policy check "rm -rf /" | true``) must not turn a decision into an internal
error: while the CLI runs, stdout and stderr discard what a reader that went away would have
read, and the subcommand's own exit code stands."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


class _PipeSafe(io.RawIOBase):
    """A file descriptor whose writes succeed after its reader has gone (EPIPE), discarded."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self.gone = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: ReadableBuffer, /) -> int:
        size = len(memoryview(data))
        if self.gone:
            return size
        try:
            return os.write(self._fd, data)
        except BrokenPipeError:
            self.gone = True
            return size


def _safe(stream: io.TextIOWrapper, write_through: bool) -> io.TextIOWrapper | None:
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    raw = _PipeSafe(fd)
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=stream.encoding,
                            errors=stream.errors, line_buffering=stream.line_buffering,
                            write_through=write_through)


def pipe_safe(run: Callable[[], int]) -> int:
    """``run()`` with the process's real stdout and stderr made EPIPE-safe; streams that are
    not the process's own (a test's capture) are left as they are."""
    originals = sys.stdout, sys.stderr
    replaced: list[io.TextIOWrapper] = []
    for name, original, through in (("stdout", sys.__stdout__, False),
                                    ("stderr", sys.__stderr__, True)):
        current = getattr(sys, name)
        if current is None or current is not original or not isinstance(current, io.TextIOWrapper):
            continue
        safe = _safe(current, through)
        if safe is not None:
            _flush(current)
            setattr(sys, name, safe)
            replaced.append(safe)
    try:
        return run()
    finally:
        for stream in replaced:
            _flush(stream)
        sys.stdout, sys.stderr = originals


def _flush(stream: io.TextIOWrapper) -> None:
    try:
        stream.flush()
    except (BrokenPipeError, ValueError):  # the reader went away, or the stream is closed
        return
