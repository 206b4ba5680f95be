"""Attacks on a Docker container's network, now that the egress proxy listens inside each
container (before it, a container had no way out at all, and a policy that needed
``pip install`` had to share the host's network). Each row is something a command inside
tries through the proxy: a CONNECT to a refused host dressed in an allowed ``Host`` header,
a plain request whose ``Host`` header names an allowed host, SOCKS5 to the host's loopback
on a port the policy does not name, an IP literal of a private or metadata address under
``allowed_domains: ["*"]``, a name that only looks like an allowed one. Every target is on
127.0.0.1, or refused before anything is sent; each run first checks that the container has
no network interface but its own loopback, so nothing here reaches beyond this machine."""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clawgate.executors import DockerExecutor, ExecRequest, executor_from_settings
from egress_support import http_server
from sandboxes import IMAGE

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[int, int]]:
    """Two HTTP servers on the host's loopback: the policy names the first port only."""
    with http_server() as named, http_server() as unnamed:
        yield named, unnamed


def _container(workspace: Path, named: int, allowed: list[str] | None) -> Any:
    network: dict[str, Any] = {"denied_domains": ["evil.test"],
                               "allow_loopback_ports": [named]}
    if allowed is not None:
        network["allowed_domains"] = allowed
    return executor_from_settings({"kind": "docker", "docker": {"image": IMAGE},
                                   "network": network}, workspace=workspace)


@pytest.fixture(scope="module")
def default(tmp_path_factory: pytest.TempPathFactory,
            servers: tuple[int, int]) -> Iterator[DockerExecutor]:
    """The default allowed domains (package registries), ``evil.test`` denied."""
    with _cache(tmp_path_factory), _container(tmp_path_factory.mktemp("ws"), servers[0],
                                              None) as executor:
        yield executor  # the cache stays redirected: the container starts on first use


@pytest.fixture(scope="module")
def star(tmp_path_factory: pytest.TempPathFactory,
         servers: tuple[int, int]) -> Iterator[DockerExecutor]:
    """Every domain allowed."""
    with _cache(tmp_path_factory), _container(tmp_path_factory.mktemp("ws"), servers[0],
                                              ["*"]) as executor:
        yield executor


@contextlib.contextmanager
def _cache(factory: pytest.TempPathFactory) -> Iterator[None]:
    """The sandbox's toolchain cache in a temporary directory, not the user's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(factory.mktemp("cache")))
        yield


def _send(executor: DockerExecutor, data: bytes, cut: int) -> str:
    """Send ``data`` to the run's proxy from inside; the first ``cut`` bytes of the answer,
    as ``od -c`` prints them, or the error. First: the container's only interface is its
    loopback (else the attack could reach the host's network)."""
    interfaces = executor.run(ExecRequest("tail -n +3 /proc/net/dev | cut -d: -f1"))
    assert interfaces.stdout.split() == ["lo"]
    octal = "".join(f"\\{byte:03o}" for byte in data)
    result = executor.run(ExecRequest(
        f"printf '{octal}' | nc 127.0.0.1 ${{HTTP_PROXY##*:}} | head -c {cut} | od -An -c",
        timeout_s=60))
    return " ".join((result.stdout + result.stderr).split())


def _socks(host: bytes, port: int, kind: int) -> bytes:
    address = bytes([len(host)]) + host if kind == 3 else host
    return b"\x05\x01\x00" + bytes([5, 1, 0, kind]) + address + struct.pack(">H", port)


@pytest.mark.parametrize("host", ["10.0.0.1", "192.168.1.1", "169.254.169.254", "[fd00::1]",
                                  "0.0.0.0"])
def test_private_ip_literal_is_refused_even_under_star(star: DockerExecutor, host: str) -> None:
    request = f"CONNECT {host}:80 HTTP/1.1\r\nHost: pypi.org\r\n\r\n".encode()
    assert _send(star, request, 12) == "H T T P / 1 . 1 4 0 3"


def test_connect_to_a_refused_host_with_an_allowed_host_header(
        default: DockerExecutor, servers: tuple[int, int]) -> None:
    named, unnamed = servers
    tunnel = (f"CONNECT 127.0.0.1:{unnamed} HTTP/1.1\r\nHost: 127.0.0.1:{named}\r\n\r\n"
              f"GET / HTTP/1.0\r\n\r\n").encode()
    plain = f"GET http://evil.test/ HTTP/1.1\r\nHost: 127.0.0.1:{named}\r\n\r\n".encode()
    assert _send(default, tunnel, 12) == "H T T P / 1 . 1 4 0 3"
    assert _send(default, plain, 12) == "H T T P / 1 . 1 4 0 3"
    spoofed = f"GET http://localhost:{named}/p HTTP/1.1\r\nHost: evil.test\r\n\r\n".encode()
    assert _send(default, spoofed, 12) == "H T T P / 1 . 0 2 0 0"


@pytest.mark.parametrize(("host", "kind"), [(b"\x7f\x00\x00\x01", 1), (b"localhost", 3),
                                        (b"\x00" * 15 + b"\x01", 4), (b"127.9.9.9", 3),
                                        (b"2130706433", 3)])
def test_socks5_to_an_unnamed_loopback_port(star: DockerExecutor, servers: tuple[int, int],
                                            host: bytes, kind: int) -> None:
    assert _send(star, _socks(host, servers[1], kind), 4) == "005 \\0 005 002"


@pytest.mark.parametrize("host", ["pypi.org.evil.test", "evilpypi.org", "pypi-org",
                                  "xn--pypi-org.test", "github.com@evil.test",
                                  "github.com.evil.test", "files.pythonhosted.org.evil.test"])
def test_names_that_look_allowed(default: DockerExecutor, host: str) -> None:
    request = f"CONNECT {host}:443 HTTP/1.1\r\n\r\n".encode()
    assert _send(default, request, 12) == "H T T P / 1 . 1 4 0 3"
