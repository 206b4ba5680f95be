"""The egress proxy on its own: a real Unix socket, a real HTTP server on 127.0.0.1, the
three ways of asking (CONNECT, an absolute URI, SOCKS5), what a refusal says and what the
audit sink receives."""

from __future__ import annotations

import os
import socket
import stat
import struct
import time
from collections.abc import Iterator

import pytest

from clawgate.egressrules import ALLOWED_KEY, LOOPBACK_KEY, EgressRules
from clawgate.executors.egress.proxy import MAX_CONNECTIONS, Connection, EgressProxy, Lane

TEST_DOMAIN = "pkg.test"


@pytest.fixture
def lane(port: int, seen: list[Connection]) -> Iterator[Lane]:
    rules = EgressRules(allowed_domains=(TEST_DOMAIN, "link.test"), allow_loopback_ports=(port,))
    resolved = {TEST_DOMAIN: ["127.0.0.1"], "link.test": ["169.254.169.254"]}
    proxy = EgressProxy(rules, resolve=lambda host, _port: resolved.get(host, []),
                        sink=seen.append)
    with proxy.lane("probe") as opened:
        yield opened


def _talk(lane: Lane, data: bytes) -> bytes:
    """Send ``data``, half-close, read everything back."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(30)
        client.connect(lane.socket_path)
        client.sendall(data)
        client.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_connect_to_an_allowed_name_tunnels(lane: Lane, port: int,
                                            seen: list[Connection]) -> None:
    request = (f"CONNECT {TEST_DOMAIN}:{port} HTTP/1.1\r\nHost: x\r\n\r\n"
               f"GET /t HTTP/1.0\r\nHost: {TEST_DOMAIN}\r\n\r\n").encode()
    answer = _talk(lane, request)
    assert answer.startswith(b"HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.0 200")
    assert answer.endswith(f"hello {TEST_DOMAIN} /t\n".encode())


def test_absolute_uri_is_sent_with_the_uri_host(lane: Lane, port: int) -> None:
    request = (f"GET http://{TEST_DOMAIN}:{port}/a?b=1 HTTP/1.1\r\nHost: evil.test\r\n"
               "Proxy-Authorization: Basic eDp5\r\n\r\n").encode()
    answer = _talk(lane, request)
    assert answer.startswith(b"HTTP/1.0 200")
    assert answer.endswith(f"hello {TEST_DOMAIN}:{port} /a?b=1\n".encode())


def test_socks5_with_a_domain_name(lane: Lane, port: int) -> None:
    name = TEST_DOMAIN.encode()
    request = (b"\x05\x01\x00" + b"\x05\x01\x00\x03" + bytes([len(name)]) + name
               + struct.pack(">H", port) + b"GET /s HTTP/1.0\r\n\r\n")
    answer = _talk(lane, request)
    assert answer[:2] == b"\x05\x00"
    assert answer[2:4] == b"\x05\x00"
    assert answer.endswith(b" /s\n")


@pytest.mark.parametrize(("target", "why"), [
    ("evil.test:443", "evil.test is not covered by executor.network.allowed_domains"),
    ("pypi.org.evil.test:443", "not covered"),
    ("127.0.0.1:1", "port 1 is not listed in executor.network.allow_loopback_ports"),
    ("10.0.0.1:80", "a private or special address not listed"),
])
def test_connect_refused_says_host_and_key(lane: Lane, target: str, why: str) -> None:
    answer = _talk(lane, f"CONNECT {target} HTTP/1.1\r\n\r\n".encode()).decode()
    status, _, body = answer.partition("\r\n\r\n")
    assert status.startswith(f"HTTP/1.1 403 clawgate refused {target} (executor.network.")
    assert "X-Clawgate-Policy-Key: executor.network." in status
    assert f"refused {target}" in body
    assert why in body


def test_socks5_refusal_is_reply_2(lane: Lane) -> None:
    request = b"\x05\x01\x00" + b"\x05\x01\x00\x01" + bytes([127, 0, 0, 1]) + b"\x00\x16"
    assert _talk(lane, request) == b"\x05\x00" + bytes([5, 2, 0, 1, 0, 0, 0, 0, 0, 0])


def test_a_name_resolving_to_metadata_is_refused(lane: Lane) -> None:
    answer = _talk(lane, b"CONNECT link.test:80 HTTP/1.1\r\n\r\n").decode()
    assert answer.startswith("HTTP/1.1 403 clawgate refused link.test:80")
    assert "169.254.169.254, a link-local" in answer


@pytest.mark.parametrize(("request_bytes", "status"), [
    (b"GET /relative HTTP/1.1\r\nHost: pkg.test\r\n\r\n", b"HTTP/1.1 400"),
    (b"GET https://pkg.test/ HTTP/1.1\r\n\r\n", b"HTTP/1.1 400"),
    (b"CONNECT pkg.test HTTP/1.1\r\n\r\n", b"HTTP/1.1 400"),
    (b"nonsense\r\n\r\n", b"HTTP/1.1 400"),
    (b"\x05\x01\x02", b"\x05\xff"),  # SOCKS5 asking for a password only
])
def test_what_the_proxy_does_not_speak(lane: Lane, request_bytes: bytes, status: bytes) -> None:
    assert _talk(lane, request_bytes).startswith(status)


def test_every_connection_is_reported(port: int) -> None:
    seen: list[Connection] = []
    proxy = EgressProxy(EgressRules(allowed_domains=(), allow_loopback_ports=(port,)),
                        sink=seen.append)
    with proxy.lane("sh -c probe") as lane:
        _talk(lane, f"GET http://localhost:{port}/bytes/1000 HTTP/1.1\r\n\r\n".encode())
        _talk(lane, b"CONNECT example.test:443 HTTP/1.1\r\n\r\n")
    refused, allowed = sorted(seen, key=lambda c: c.allowed)  # threads report in any order
    assert (allowed.host, allowed.port, allowed.via, allowed.allowed, allowed.key,
            allowed.address) == ("localhost", port, "http", True, LOOPBACK_KEY, "127.0.0.1")
    assert allowed.bytes_down > 1000 and allowed.bytes_up > 0
    assert (refused.host, refused.port, refused.via, refused.allowed, refused.key,
            refused.bytes_up, refused.bytes_down) == (
        "example.test", 443, "connect", False, ALLOWED_KEY, 0, 0)
    assert allowed.run == refused.run
    assert allowed.command == "sh -c probe"


def test_the_lane_is_private_and_gone_after(port: int) -> None:
    proxy = EgressProxy(EgressRules())
    with proxy.lane("x") as lane:
        assert stat.S_IMODE(os.stat(lane.directory).st_mode) == 0o700
    assert not os.path.exists(lane.directory)


def test_an_audit_failure_is_said_not_swallowed(port: int,
                                                caplog: pytest.LogCaptureFixture) -> None:
    def broken(connection: Connection) -> None:
        raise OSError("disk full")

    proxy = EgressProxy(EgressRules(allowed_domains=()), sink=broken)
    with proxy.lane("x") as lane:
        answer = _talk(lane, b"CONNECT example.test:443 HTTP/1.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 403")
    assert "example.test:443 could not be written to the audit log" in caplog.text


def test_a_connection_flood_is_capped() -> None:
    """A run holding MAX_CONNECTIONS open (saying nothing) gets a 503 for the next one, at
    once and recorded; the guard's process does not grow a thread per connection."""
    seen: list[Connection] = []
    proxy = EgressProxy(EgressRules(), sink=seen.append)
    held: list[socket.socket] = []
    with proxy.lane("flood") as lane:
        for _ in range(MAX_CONNECTIONS):
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.connect(lane.socket_path)
            held.append(client)
        deadline = time.monotonic() + 30  # a hang guard: the threads start as they are accepted
        while len([t for t in lane.threads if t.is_alive()]) < MAX_CONNECTIONS \
                and time.monotonic() < deadline:
            time.sleep(0.01)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as late:
            late.settimeout(30)
            late.connect(lane.socket_path)
            answer = late.recv(65536)
    for client in held:
        client.close()
    assert answer.startswith(b"HTTP/1.1 503")
    assert [(c.allowed, c.why) for c in seen] == [
        (False, f"more than {MAX_CONNECTIONS} connections of one run at once")]


@pytest.mark.parametrize("listener", ["unix", "tcp"])
def test_a_large_download_arrives_whole_and_counted(port: int, listener: str) -> None:
    """Many MiB through the relay (``splice`` through a pipe), on the run's Unix socket or on
    a TCP listener handed to the lane (as one made inside a container): every byte arrives,
    and the audit counts exactly what went each way."""
    size = 9 * 1024 * 1024 + 7
    seen: list[Connection] = []
    proxy = EgressProxy(EgressRules(allowed_domains=(), allow_loopback_ports=(port,)),
                        sink=seen.append)
    tcp = socket.create_server(("127.0.0.1", 0)) if listener == "tcp" else None
    request = f"GET http://localhost:{port}/bytes/{size} HTTP/1.0\r\n\r\n".encode()
    with proxy.lane("big", tcp) as lane:
        if tcp is None:
            answer = _talk(lane, request)
        else:
            with socket.create_connection(tcp.getsockname(), timeout=30) as client:
                client.sendall(request)
                client.shutdown(socket.SHUT_WR)
                answer = b"".join(iter(lambda: client.recv(1 << 20), b""))
    head, _, body = answer.partition(b"\r\n\r\n")
    assert (head.split(b"\r\n")[0], len(body), body.count(b"x")) == (
        b"HTTP/1.0 200 OK", size, size)
    (record,) = seen
    assert (record.bytes_down, record.allowed) == (len(answer), True)
    assert record.bytes_up == len(f"GET /bytes/{size} HTTP/1.0\r\nHost: localhost:{port}\r\n"
                                  "Connection: close\r\n\r\n")
