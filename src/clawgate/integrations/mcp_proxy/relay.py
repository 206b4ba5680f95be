"""The wrapped server's stdout, one message (line) at a time, each within a byte bound.

``policy mcp-proxy`` starts the wrapped server through this relay (``python -I relay.py
MAX_BYTES -- COMMAND...``): stdin and stderr pass straight through; stdout is read in chunks and
each line passed on whole while it stays within ``MAX_BYTES``. A longer line is not kept: only
its first and last few KiB are, enough to find the JSON-RPC ``id`` it answers (first in the
Python SDK's output, last in the TypeScript SDK's), and the relay answers that request with a
JSON-RPC error naming the bound. Time and memory stay linear in what the server writes and
bounded by ``MAX_BYTES``, however much it writes: the MCP SDK's own reader joins every chunk to
what came before, which took about a minute for a 50 MB result.

The relay uses the standard library only and is run by path (``-I``): it starts in a few tens of
milliseconds and imports nothing of the server's environment.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import threading
from typing import BinaryIO

CHUNK = 1 << 16
EDGE = 4096  # bytes kept at each end of a line longer than the bound
SERVER_ERROR = -32000  # JSON-RPC: an implementation-defined server error
_ID = rb'(-?\d+|"(?:[^"\\]|\\.)*")'
HEAD_ID = re.compile(rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*' + _ID)
TAIL_ID = re.compile(rb'[,{]\s*"id"\s*:\s*' + _ID + rb'\s*\}\s*\Z')
# A top-level "method" before any nested value opens: a request or a notification of the
# server's, never an answer to the client (answering it would fail another request).
SERVER_SENT = re.compile(rb'\A\s*\{[^{}\[\]]*"method"\s*:')
BOUND_KEY = "hooks.budgets.max_message_bytes"


def request_id(head: bytes, tail: bytes) -> object | None:
    """The JSON-RPC ``id`` of the client's request a cut message answers, read at its start or
    its end; None if it cannot be read there, or the message is the server's own request or
    notification."""
    if SERVER_SENT.search(head):
        return None
    found = HEAD_ID.search(head) or TAIL_ID.search(tail)
    if found is None:
        return None
    try:
        value: object = json.loads(found.group(1))
    except ValueError:
        return None
    return value


def refusal(ident: object, size: int, bound: int) -> bytes:
    """The JSON-RPC error that stands for a message over the bound."""
    message = (f"the wrapped server sent a message of {size} bytes; the bound is {bound} "
               f"bytes ({BOUND_KEY}), so it was not relayed")
    return json.dumps({"jsonrpc": "2.0", "id": ident, "error": {
        "code": SERVER_ERROR, "message": message}}).encode() + b"\n"


class Lines:
    """Splits a byte stream into lines, passing each on (``emit``) within ``bound`` bytes."""

    def __init__(self, bound: int, out: BinaryIO) -> None:
        self.bound, self.out = bound, out
        self.line = bytearray()  # the current line while it is within the bound
        self.size = 0  # the current line's bytes so far
        self.head = b""
        self.tail = bytearray()  # the last EDGE bytes of an over-long line

    def feed(self, chunk: bytes) -> None:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                self._add(chunk[start:])
                return
            self._add(chunk[start:end])
            self._finish()
            start = end + 1

    def _add(self, piece: bytes) -> None:
        if not piece:
            return
        self.size += len(piece)
        if self.size <= self.bound:
            self.line += piece
            return
        if self.line:  # the line just passed the bound: keep only its ends from now on
            self.head = bytes(self.line[:EDGE])
            self.tail = self.line[-EDGE:]
            self.line = bytearray()
        if not self.head:
            self.head = piece[:EDGE]
        self.tail += piece[-EDGE:]
        del self.tail[:-EDGE]

    def _finish(self) -> None:
        if self.size <= self.bound:
            self.out.write(bytes(self.line) + b"\n")
        else:
            ident = request_id(self.head, bytes(self.tail))
            if ident is not None:
                self.out.write(refusal(ident, self.size, self.bound))
            else:
                sys.stderr.write(f"clawgate: a message of {self.size} bytes without a readable "
                                 f"id was dropped (the bound is {self.bound} bytes)\n")
        self.out.flush()
        self.line, self.size, self.head, self.tail = bytearray(), 0, b"", bytearray()


def _pump_stdin(child: subprocess.Popen[bytes]) -> None:
    """The client's messages to the server, unchanged; its end closes the server's stdin."""
    assert child.stdin is not None
    try:
        while chunk := os.read(0, CHUNK):
            child.stdin.write(chunk)
            child.stdin.flush()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            child.stdin.close()


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--" or not argv[0].isdigit():
        sys.stderr.write("usage: relay.py MAX_BYTES -- COMMAND [ARG...]\n")
        return 2
    bound, command = int(argv[0]), argv[2:]
    try:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except OSError as exc:
        sys.stderr.write(f"clawgate: cannot run the wrapped server: {exc}\n")
        return 127
    threading.Thread(target=_pump_stdin, args=(child,), daemon=True).start()
    assert child.stdout is not None
    lines = Lines(bound, sys.stdout.buffer)
    try:
        while chunk := os.read(child.stdout.fileno(), CHUNK):
            lines.feed(chunk)
    except (BrokenPipeError, ValueError):
        child.kill()  # the client went away
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
