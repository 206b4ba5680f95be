"""The decider's wire format: length-prefixed byte fields, nothing to import.

A request is ``MAGIC``, then fields: the client's identity (which installation it is), its
working directory, its argv joined by NUL, its environment as ``NAME=VALUE`` joined by NUL, and
its standard input. The answer is one byte ``ACCEPTED`` as soon as a fork has the call, then
the exit code and two fields, stdout and stderr. Each field is a 4-byte big-endian length and
that many bytes. (argv and environment strings cannot hold NUL: the kernel's do not.)
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

MAGIC = b"CGD1"
ACCEPTED = b"+"
STALE = b"!"  # the server is of another installation or its code changed: decide in process
MAX_FIELD = 64 << 20  # a hook's input is bounded far below this


def field(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def request(identity: str, cwd: bytes, argv: list[bytes], env: list[bytes],
            stdin: bytes) -> bytes:
    return MAGIC + b"".join(field(part) for part in (
        identity.encode(), cwd, b"\0".join(argv), b"\0".join(env), stdin))


def answer(code: int, stdout: bytes, stderr: bytes) -> bytes:
    return (code & 0xFF).to_bytes(1, "big") + field(stdout) + field(stderr)


class Reader:
    """Reads exact byte counts from a receive function (``sock.recv``)."""

    def __init__(self, recv: Callable[[int], bytes]) -> None:
        self._recv = recv
        self._buffer = b""

    def exactly(self, count: int) -> bytes:
        while len(self._buffer) < count:
            chunk = self._recv(max(65536, count - len(self._buffer)))
            if not chunk:
                raise EOFError("the other side closed the connection")
            self._buffer += chunk
        data, self._buffer = self._buffer[:count], self._buffer[count:]
        return bytes(data)

    def field(self) -> bytes:
        size = int.from_bytes(self.exactly(4), "big")
        if size > MAX_FIELD:
            raise ValueError(f"a field of {size} bytes is over the bound")
        return self.exactly(size)
