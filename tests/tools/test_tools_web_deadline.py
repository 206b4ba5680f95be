"""web_fetch's deadline covers the status line and headers, not only the body (issue 14: a
6 s deadline took 40 s against a server dripping its headers). A real server on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.tools.urls import UrlPolicy, fetch

LOOPBACK = ("127.0.0.0/8",)


def drip(conn: socket.socket, stage: str) -> bool:
    """Answer one request, dripping the status line or the headers a byte every 50 ms for
    about 10 s (every read is quick, the whole is slow), then a complete, valid response.
    True if the client hung up before the end."""
    with conn:
        conn.recv(65536)
        status = b"HTTP/1.1 200 " + b"O" * 200 + b"\r\n"
        rest = b"X-Slow: " + b"z" * 200 + b"\r\n"
        slow, fast = (status, rest) if stage == "status" else (rest, b"")
        try:
            if stage == "headers":
                conn.sendall(status)
            for byte in slow:
                conn.sendall(bytes([byte]))
                time.sleep(0.05)
            conn.sendall(fast + b"Content-Length: 2\r\nConnection: close\r\n\r\nok")
        except OSError:
            return True
        return False


@pytest.fixture
def dripper(request: pytest.FixtureRequest) -> Iterator[tuple[str, list[bool]]]:
    server = socket.create_server(("127.0.0.1", 0))
    stage = request.param
    hung_up: list[bool] = []

    def serve() -> None:
        conn, _ = server.accept()
        hung_up.append(drip(conn, stage))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/", hung_up
    thread.join(30)
    server.close()


@pytest.mark.parametrize("dripper", ["status", "headers"], indirect=True)
def test_slow_headers_hit_the_deadline(dripper: tuple[str, list[bool]]) -> None:
    """The client gives up while the server is still dripping (a deadline that only covered
    the body would wait for every header byte, then time out)."""
    url, hung_up = dripper
    policy = UrlPolicy(allowed_networks=LOOPBACK, deadline_s=0.5, timeout_s=5.0)
    with pytest.raises(ToolError) as err:
        fetch(url, policy)
    assert err.value.kind is ToolErrorKind.TIMEOUT
    for _ in range(200):  # the server notices the hang-up at its next write (50 ms)
        if hung_up:
            break
        time.sleep(0.05)
    assert hung_up == [True]
