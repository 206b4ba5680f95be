"""Egress from a real Docker container: no network of its own, its only way out the egress
proxy listening inside its network namespace, a real HTTP server on 127.0.0.1 reached only
through the proxy by name (a test domain the proxy's resolver maps to 127.0.0.1, on a
loopback port the policy names), refusals the program can read, no resolver, and every
connection in the audit log. The image is busybox: ``wget`` (``http_proxy``), ``nc``."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import clawgate
from clawgate.audit import verify
from clawgate.cli import main
from clawgate.egressrules import EgressRules
from clawgate.executors import DockerExecutor, DockerSettings, ExecRequest, SpawnLimiter
from clawgate.executors.egress.netns import NamespaceUnavailable, listen_in
from clawgate.executors.egress.proxy import Connection
from clawgate.guard import Guard
from clawgate.guard_setup import default_audit_path
from clawgate.policy.loader import load_policy
from egress_support import http_server
from sandboxes import IMAGE

pytestmark = pytest.mark.docker
TEST_DOMAIN = "pkg.test"
PROXY_PORT = "${HTTP_PROXY##*:}"  # the run's proxy port, as a shell inside reads it


def _resolve(host: str, _port: int) -> list[str]:
    return ["127.0.0.1"] if host == TEST_DOMAIN else []


@pytest.fixture(scope="module")
def docker_port() -> Iterator[int]:
    with http_server() as bound:
        yield bound


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox's toolchain cache (bound when a container starts): not the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def warm(module_workspace: Path, docker_port: int) -> Iterator[DockerExecutor]:
    rules = EgressRules(allowed_domains=(TEST_DOMAIN,), allow_loopback_ports=(docker_port,))
    with DockerExecutor(DockerSettings(image=IMAGE), workspace=module_workspace,
                        limiter=SpawnLimiter(5), egress=rules,
                        egress_resolver=_resolve) as executor:
        yield executor


@pytest.fixture
def container(warm: DockerExecutor, seen: list[Connection]) -> Iterator[DockerExecutor]:
    """The module's warm container, reporting this test's connections to ``seen``."""
    warm.egress_audit = seen.append
    yield warm
    warm.egress_audit = None


def _run(executor: DockerExecutor, command: str) -> tuple[int, str]:
    result = executor.run(ExecRequest(command, timeout_s=60))
    return result.exit_code, result.stdout + result.stderr


def test_allowed_domain_through_the_proxy(container: DockerExecutor, docker_port: int,
                                          seen: list[Connection]) -> None:
    code, out = _run(container, f"wget -q -O - http://{TEST_DOMAIN}:{docker_port}/x")
    assert (code, out) == (0, f"hello {TEST_DOMAIN}:{docker_port} /x\n")
    (record,) = seen
    assert (record.host, record.port, record.via, record.allowed, record.address) == (
        TEST_DOMAIN, docker_port, "http", True, "127.0.0.1")
    assert record.bytes_up > 0 and record.bytes_down > 0
    assert record.command == f"sh -c 'wget -q -O - http://{TEST_DOMAIN}:{docker_port}/x'"


def test_denied_domain_fails_fast_and_readably(container: DockerExecutor, docker_port: int,
                                               seen: list[Connection]) -> None:
    code, out = _run(container, f"wget -q -O - http://pypi.org:{docker_port}/simple/")
    assert (code, out) == (1, f"wget: server returned error: HTTP/1.1 403 clawgate refused "
                              f"pypi.org:{docker_port} (executor.network.allowed_domains)\n")
    (record,) = seen
    assert (record.host, record.allowed, record.key) == (
        "pypi.org", False, "executor.network.allowed_domains")


@pytest.mark.parametrize(("via", "request_bytes"), [
    ("connect", "CONNECT pkg.test:{port} HTTP/1.1\\r\\n\\r\\nGET /c HTTP/1.0\\r\\n\\r\\n"),
    ("socks5", "\\005\\001\\000\\005\\001\\000\\003\\010pkg.test\\{hi:03o}\\{lo:03o}"
               "GET /c HTTP/1.0\\r\\n\\r\\n"),
])
def test_connect_and_socks5(container: DockerExecutor, docker_port: int,
                            seen: list[Connection], via: str, request_bytes: str) -> None:
    data = request_bytes.format(port=docker_port, hi=docker_port >> 8, lo=docker_port & 255)
    code, out = _run(container, f"printf '{data}' | nc 127.0.0.1 {PROXY_PORT}")
    assert code == 0
    assert out.endswith("\r\n\r\nhello None /c\n")
    assert [(r.via, r.host, r.port, r.allowed) for r in seen] == [
        (via, TEST_DOMAIN, docker_port, True)]


def test_no_way_around_the_proxy(container: DockerExecutor, docker_port: int) -> None:
    """The host's loopback is not the container's: the named port is not reached directly."""
    assert _run(container, f"nc 127.0.0.1 {docker_port} </dev/null") == (
        1, "nc: can't connect to remote host (127.0.0.1): Connection refused\n")


def test_only_loopback_and_nothing_resolves(container: DockerExecutor) -> None:
    code, out = _run(container, "cat /proc/net/dev | tail -n +3 | cut -d: -f1; "
                                "nslookup pypi.org >/dev/null 2>&1; echo resolved=$?")
    assert (code, out.split()) == (0, ["lo", "resolved=1"])


def test_a_loopback_port_not_named_is_refused(container: DockerExecutor,
                                              seen: list[Connection]) -> None:
    with http_server() as other:
        code, out = _run(container, f"wget -q -O - http://localhost:{other}/")
    assert (code, out) == (1, f"wget: server returned error: HTTP/1.1 403 clawgate refused "
                              f"localhost:{other} (executor.network.allow_loopback_ports)\n")
    assert [(r.host, r.port, r.allowed) for r in seen] == [("localhost", other, False)]


def test_each_run_has_its_own_port_and_lane(container: DockerExecutor) -> None:
    first = _run(container, "echo $HTTP_PROXY $ALL_PROXY $NO_PROXY")
    second = _run(container, "echo $HTTP_PROXY")
    assert first[0] == second[0] == 0
    http, socks = first[1].split()
    assert http.startswith("http://127.0.0.1:") and socks == "socks5h://" + http[7:]
    assert second[1].strip() != http  # the first run's listener closed with its run


def test_a_per_call_container_gets_the_proxy(module_workspace: Path, docker_port: int,
                                             seen: list[Connection]) -> None:
    rules = EgressRules(allowed_domains=(TEST_DOMAIN,), allow_loopback_ports=(docker_port,))
    with DockerExecutor(DockerSettings(image=IMAGE, warm=False), workspace=module_workspace,
                        limiter=SpawnLimiter(5), egress=rules, egress_resolver=_resolve,
                        egress_audit=seen.append) as executor:
        code, out = _run(executor, f"wget -q -O - http://{TEST_DOMAIN}:{docker_port}/p; "
                                   "exit 7")
    assert (code, out) == (7, f"hello {TEST_DOMAIN}:{docker_port} /p\n")
    assert [(r.host, r.allowed) for r in seen] == [(TEST_DOMAIN, True)]


def _policy(tmp_path: Path, port: int) -> Path:
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"version: 1\nexecutor:\n  kind: docker\n  docker:\n    image: {IMAGE}\n"
                      f"  network:\n    allowed_domains: [pypi.org]\n"
                      f"    allow_loopback_ports: [{port}]\n", encoding="utf-8")
    return policy


def test_the_guard_audits_each_connection(tmp_path: Path, docker_port: int) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    policy = _policy(tmp_path, docker_port)
    log = tmp_path / "audit.jsonl"
    with Guard(load_policy(policy), workspace=workspace, audit_log=log) as guard:
        out = guard.executor.run(ExecRequest(f"wget -q -O - http://localhost:{docker_port}/g"))
        refused = guard.executor.run(ExecRequest("wget -q -O - http://evil.test/h"))
    assert (out.exit_code, out.stdout, refused.exit_code) == (
        0, f"hello localhost:{docker_port} /g\n", 1)
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    network = [(e["args"]["host"], e["decision"]["outcome"],
                e["decision"]["reasons"][0]["rule_id"]) for e in lines if e["tool"] == "network"]
    assert network == [("localhost", "allow", "executor.network.allow_loopback_ports"),
                       ("evil.test", "deny", "executor.network.allowed_domains")]
    assert verify(log).ok


def test_policy_run_audits_and_explains(tmp_path: Path, docker_port: int,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    policy = _policy(tmp_path, docker_port)
    code = main(["run", "--policy", str(policy), "--workspace", str(workspace), "--yes", "--",
                 f"wget -q -O - http://localhost:{docker_port}/r"])
    assert (code, capsys.readouterr().out) == (0, f"hello localhost:{docker_port} /r\n")
    log = default_audit_path(str(workspace))
    (entry,) = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert (entry["tool"], entry["args"]["host"], entry["args"]["port"],
            entry["decision"]["outcome"]) == ("network", "localhost", docker_port, "allow")
    assert main(["run", "--policy", str(policy), "--workspace", str(workspace),
                 "--explain-sandbox", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["network"]["mode"], shown["network"]["listener"], shown["network"]["proxy"],
            shown["env"]["HTTP_PROXY"], shown["network"]["allow_loopback_ports"]) == (
        "proxy", "inside", "http://127.0.0.1:PORT", "http://127.0.0.1:PORT", [docker_port])


def _container_pid(executor: DockerExecutor) -> int:
    assert executor.run(ExecRequest("true")).exit_code == 0  # the warm container runs
    container = executor._warm
    container.reload()
    return int(container.attrs["State"]["Pid"])


@pytest.mark.parametrize(("whose", "why"), [
    ("guard", "is in this process's own network namespace"),
    ("container, not the sandbox's", "is not the sandbox's"),
    ("none", "cannot be opened"),
])
def test_no_listener_where_it_would_not_be_the_sandboxs(warm: DockerExecutor, whose: str,
                                                         why: str) -> None:
    """The guard's own namespace, a process the caller does not vouch for, or none."""
    pid = {"guard": os.getpid(), "none": 2 ** 22 + 1}.get(whose) or _container_pid(warm)
    with pytest.raises(NamespaceUnavailable, match=why):
        listen_in(pid, belongs=lambda: whose == "guard")


def test_a_listener_in_the_container_takes_its_connections(warm: DockerExecutor) -> None:
    """What ``listen_in`` makes is in the container: a program there connects to it, and
    the host's loopback has no such port."""
    got: list[bytes] = []

    def take(listener: socket.socket) -> None:
        conn, _ = listener.accept()
        with conn:
            got.append(conn.recv(10))

    with listen_in(_container_pid(warm)) as listener:
        port = listener.getsockname()[1]
        listener.settimeout(60)
        taker = threading.Thread(target=take, args=(listener,))
        taker.start()
        result = warm.run(ExecRequest(f"echo hi | nc 127.0.0.1 {port}", timeout_s=60))
        taker.join(60)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=10).close()
    assert (result.exit_code, got) == (0, [b"hi\n"])


NO_SYS_ADMIN = """import os, sys
from clawgate.errors import SandboxUnavailable
from clawgate.executors import {kind}, ExecRequest, SpawnLimiter
{build}
with executor:
    try:
        result = executor.run(ExecRequest("ls /run 2>/dev/null | grep -vx clawgate-loader; "
                                          "touch ran; echo ok"))
        print("ran", result.exit_code, result.stdout.split())
    except SandboxUnavailable as exc:
        print("unavailable:", exc)
print("marker", os.path.exists("ran"))
"""
SETPRIV = shutil.which("setpriv")


@pytest.mark.skipif(SETPRIV is None, reason="setpriv (util-linux) is not installed")
@pytest.mark.parametrize(("kind", "build", "expect"), [
    ("DockerExecutor", "from clawgate.executors import DockerSettings\n"
     f"executor = DockerExecutor(DockerSettings(image={IMAGE!r}), workspace='.', "
     "limiter=SpawnLimiter(5))",
     "unavailable: the container's egress proxy cannot be set up: the egress proxy cannot "
     "listen inside the network namespace of process PID: setns: Operation not permitted "
     "(joining it needs CAP_SYS_ADMIN: run the guard as root) (engine: the local Docker "
     "socket); nothing was run\nmarker False\n"),
    ("BwrapExecutor", "executor = BwrapExecutor(workspace='.', limiter=SpawnLimiter(5))",
     "ran 0 ['clawgate-bridge', 'clawgate-egress', 'ok']\nmarker True\n"),
])
def test_without_the_right_to_join_a_namespace(tmp_path: Path, kind: str, build: str,
                                               expect: str) -> None:
    """A guard without CAP_SYS_ADMIN (a real process whose bounding set lacks it): Docker's
    run fails before its command, saying why; bubblewrap falls back to the bridge inside."""
    if kind == "BwrapExecutor" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    code = NO_SYS_ADMIN.format(kind=kind, build=build)
    done = subprocess.run([str(SETPRIV), "--bounding-set=-sys_admin", "--inh-caps=-sys_admin",
                           sys.executable, "-c", code], cwd=workspace, capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": str(Path(clawgate.__file__).parents[1]),
                               "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert re.sub(r"process \d+", "process PID", done.stdout) == expect, done.stderr
