"""The downloading client of ``bench_egress.py``, in a process of its own: a program behind
the proxy never shares the proxy's process (nor its interpreter lock), and the direct download
and the proxied ones must be made by the same client with the same buffer.

One request a line on stdin, a JSON array ``[address, request, size]`` (``address``: a Unix
socket's path, or ``[host, port]``); answers with the download's milliseconds, connect to
last byte, measured here (no pipe round trip in the figure), or ``error: ...``.
"""

from __future__ import annotations

import json
import socket
import sys
import time

CHUNK = 1024 * 1024


def fetch(address: str | list[object], request: bytes, size: int, buffer: bytearray) -> float:
    """Connect, send ``request``, read the response to its end: milliseconds taken."""
    start = time.perf_counter()
    if isinstance(address, str):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(address)
    else:
        sock = socket.create_connection((str(address[0]), int(str(address[1]))))
    with sock:
        sock.sendall(request)
        got = 0
        while received := sock.recv_into(buffer):
            got += received
    elapsed = (time.perf_counter() - start) * 1000
    if got < size:
        raise RuntimeError(f"short read: {got} < {size}")
    return elapsed


def main() -> None:
    buffer = bytearray(CHUNK)
    for line in sys.stdin:
        address, request, size = json.loads(line)
        try:
            answer = f"{fetch(address, request.encode('latin-1'), size, buffer):.6f}"
        except (OSError, RuntimeError) as exc:
            answer = f"error: {exc}"
        print(answer, flush=True)


if __name__ == "__main__":
    main()
