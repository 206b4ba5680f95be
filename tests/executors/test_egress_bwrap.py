"""Egress from a real bubblewrap sandbox: no network of its own, a real HTTP server on
127.0.0.1 reached only through the proxy by name (a test domain the proxy's resolver maps to
127.0.0.1, on a loopback port the policy names), refusals the program can read, no resolver
inside, and every connection in the audit log (the Guard's and ``policy run``'s)."""

from __future__ import annotations

import errno
import json
import shlex
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from clawgate.audit import verify
from clawgate.cli import main
from clawgate.egressrules import EgressRules
from clawgate.errors import SandboxUnavailable
from clawgate.executors import BwrapExecutor, ExecRequest, SpawnLimiter
from clawgate.executors.egress import handoff
from clawgate.executors.egress import opening as opening_module
from clawgate.executors.egress.netns import can_join, listen_in
from clawgate.executors.egress.opening import Opening
from clawgate.executors.egress.proxy import Connection
from clawgate.guard import Guard
from clawgate.guard_setup import default_audit_path
from clawgate.policy.loader import load_policy
from egress_support import PYTHON, http_server, urlopen_script

pytestmark = pytest.mark.bwrap
TEST_DOMAIN = "pkg.test"
CURL = shutil.which("curl")


@pytest.fixture(params=["inside", "bridge"])
def sandbox(workspace: Path, limiter: SpawnLimiter, port: int, seen: list[Connection],
            request: pytest.FixtureRequest) -> Iterator[BwrapExecutor]:
    """Both ways to the proxy: its listener made in the sandbox's namespace (where this
    process may join it), and the bridge inside (where it may not)."""
    if request.param == "inside" and not can_join():
        pytest.skip("joining a sandbox's network namespace needs CAP_SYS_ADMIN")
    rules = EgressRules(allowed_domains=(TEST_DOMAIN,), allow_loopback_ports=(port,))
    with BwrapExecutor(workspace=workspace, limiter=limiter, egress=rules,
                       egress_resolver=lambda host, _p: ["127.0.0.1"] if host == TEST_DOMAIN
                       else [], egress_audit=seen.append) as executor:
        executor.listen_inside = request.param == "inside"
        yield executor


def _run(executor: BwrapExecutor, argv: list[str] | str) -> tuple[int, str]:
    result = executor.run(ExecRequest(argv, timeout_s=60))
    return result.exit_code, result.stdout + result.stderr


def test_allowed_domain_through_the_proxy(sandbox: BwrapExecutor, port: int,
                                          seen: list[Connection]) -> None:
    code, out = _run(sandbox, urlopen_script(f"http://{TEST_DOMAIN}:{port}/x"))
    assert (code, out) == (0, f"200 hello {TEST_DOMAIN}:{port} /x\n\n")
    (record,) = seen
    assert (record.host, record.port, record.via, record.allowed, record.address) == (
        TEST_DOMAIN, port, "http", True, "127.0.0.1")
    assert record.bytes_up > 0 and record.bytes_down > 0


def test_denied_domain_fails_fast_and_readably(sandbox: BwrapExecutor, port: int,
                                               seen: list[Connection]) -> None:
    code, out = _run(sandbox, urlopen_script(f"http://pypi.org:{port}/simple/"))
    assert code == 3
    assert out.startswith("403 clawgate: the sandbox's network policy refused pypi.org:")
    assert "policy key: executor.network.allowed_domains" in out
    (record,) = seen
    assert (record.host, record.allowed, record.key) == (
        "pypi.org", False, "executor.network.allowed_domains")


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
@pytest.mark.parametrize(("flags", "expect"), [
    ("", "hello {d}:{p} /c"),  # HTTP_PROXY
    ("-p", "hello {d}:{p} /c"),  # CONNECT
    ("--socks5-hostname 127.0.0.1:3128", "hello {d}:{p} /c"),
    ("-x \"$ALL_PROXY\"", "hello {d}:{p} /c"),
])
def test_curl_every_way(sandbox: BwrapExecutor, port: int, flags: str, expect: str) -> None:
    code, out = _run(sandbox, f"curl -sS {flags} http://{TEST_DOMAIN}:{port}/c")
    assert (code, out) == (0, expect.format(d=TEST_DOMAIN, p=port) + "\n")


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
def test_curl_tunnel_refusal(sandbox: BwrapExecutor) -> None:
    code, out = _run(sandbox, "curl -sS -p http://evil.test/")
    assert code == 56
    assert "CONNECT tunnel failed, response 403" in out


def test_no_way_around_the_proxy(sandbox: BwrapExecutor, port: int) -> None:
    code, out = _run(sandbox, urlopen_script(f"http://127.0.0.1:{port}/", proxy=False))
    assert code == 4
    assert "Connection refused" in out


def test_nothing_resolves_inside(sandbox: BwrapExecutor) -> None:
    script = ("import socket\ntry:\n    print(socket.getaddrinfo('pypi.org', 443))\n"
              "except OSError as e:\n    print('unresolved', type(e).__name__)\n")
    assert _run(sandbox, [PYTHON, "-I", "-c", script]) == (0, "unresolved gaierror\n")


def test_a_loopback_port_not_named_is_refused(sandbox: BwrapExecutor, port: int,
                                              seen: list[Connection]) -> None:
    with http_server() as other:
        code, out = _run(sandbox, urlopen_script(f"http://localhost:{other}/"))
    assert code == 3
    assert f"port {other} is not listed in executor.network.allow_loopback_ports" in out
    assert [(r.host, r.port, r.allowed) for r in seen] == [("localhost", other, False)]


def test_the_command_keeps_its_exit_code_and_output(sandbox: BwrapExecutor) -> None:
    result = sandbox.run(ExecRequest("echo out; echo err >&2; exit 7"))
    assert (result.exit_code, result.stdout, result.stderr) == (7, "out\n", "err\n")
    assert sandbox.run(ExecRequest("kill -TERM $$")).exit_code == 128 + 15


def test_a_shared_network_has_no_proxy(workspace: Path, limiter: SpawnLimiter) -> None:
    with BwrapExecutor(workspace=workspace, limiter=limiter, network=True) as shared:
        assert _run(shared, "echo ${HTTPS_PROXY:-none}") == (0, "none\n")


def _policy(tmp_path: Path, port: int) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(f"version: 1\nexecutor:\n  kind: bwrap\n  network:\n"
                    f"    allowed_domains: [pypi.org]\n    allow_loopback_ports: [{port}]\n",
                    encoding="utf-8")
    return path


def test_the_guard_audits_each_connection(tmp_path: Path, workspace: Path, port: int) -> None:
    """The Guard hands its audit log to its executor: what the sandbox connects to is there
    (run through the executor the Guard built, as exec_shell runs it)."""
    log = tmp_path / "audit.jsonl"
    with Guard(load_policy(_policy(tmp_path, port)), workspace=workspace,
               audit_log=log) as guard:
        out = guard.executor.run(ExecRequest(urlopen_script(f"http://localhost:{port}/g")))
        refused = guard.executor.run(ExecRequest(urlopen_script("http://evil.test/h")))
    assert (out.exit_code, refused.exit_code) == (0, 3)
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    network = [(e["args"]["host"], e["decision"]["outcome"],
                e["decision"]["reasons"][0]["rule_id"]) for e in lines if e["tool"] == "network"]
    assert network == [("localhost", "allow", "executor.network.allow_loopback_ports"),
                       ("evil.test", "deny", "executor.network.allowed_domains")]
    assert verify(log).ok


def test_policy_run_audits_and_explains(tmp_path: Path, workspace: Path, port: int,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    policy = _policy(tmp_path, port)
    line = shlex.join(urlopen_script(f"http://localhost:{port}/r"))
    code = main(["run", "--policy", str(policy), "--workspace", str(workspace), "--yes",
                 "--", line])
    assert code == 0
    assert f"hello localhost:{port} /r" in capsys.readouterr().out
    log = default_audit_path(str(workspace))
    (entry,) = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert (entry["tool"], entry["args"]["host"], entry["args"]["port"],
            entry["decision"]["outcome"]) == ("network", "localhost", port, "allow")
    assert entry["result"]["bytes_down"] > 0
    assert main(["run", "--policy", str(policy), "--workspace", str(workspace),
                 "--explain-sandbox", "--json"]) == 0
    network = json.loads(capsys.readouterr().out)["network"]
    assert (network["mode"], network["allowed_domains"], network["allow_loopback_ports"]) == (
        "proxy", ["pypi.org"], [port])


def test_a_run_that_times_out_mid_connection_is_recorded(sandbox: BwrapExecutor, port: int,
                                                         seen: list[Connection]) -> None:
    code = ("import socket, time\ns = socket.create_connection(('127.0.0.1', 3128))\n"
            f"s.sendall(b'CONNECT {TEST_DOMAIN}:{port} HTTP/1.1\\r\\n\\r\\n')\n"
            "print(s.recv(100), flush=True)\ntime.sleep(60)\n")
    result = sandbox.run(ExecRequest([PYTHON, "-I", "-c", code], timeout_s=3))
    assert result.timed_out
    assert "200 Connection established" in result.stdout
    (record,) = seen
    assert (record.host, record.allowed, record.bytes_up, record.bytes_down) == (
        TEST_DOMAIN, True, 0, 0)


def test_the_way_in_is_the_listener_or_the_bridge(sandbox: BwrapExecutor) -> None:
    """With the listener made inside, no program of ours runs in the sandbox and nothing is
    mounted for it (the filter's compiled loader aside); the sandbox's loopback listens on
    3128 either way, before the command."""
    code, out = _run(sandbox, "ls /run 2>/dev/null | grep -vx clawgate-loader; "
                              "grep -c ' 0100007F:0C38 ' /proc/net/tcp")
    assert (code, out) == (0, "1\n" if sandbox.listen_inside
                           else "clawgate-bridge\nclawgate-egress\n1\n")


def test_a_listener_that_cannot_be_made_runs_nothing(sandbox: BwrapExecutor) -> None:
    """Where the proxy's listener cannot be handed over, bubblewrap's sandbox is killed
    before its command starts (the run is never one with a different network)."""
    if not sandbox.listen_inside:
        pytest.skip("the bridge makes no listener outside")
    marker = Path(sandbox.workspace, "ran")

    def refuse(listener: socket.socket) -> None:
        listener.close()
        raise OSError("the lane is gone")

    with Opening(3128, refuse) as opening:
        job = sandbox.prepare(ExecRequest(["touch", str(marker)]))
        done = subprocess.run(sandbox.sandbox_argv(job, opening=opening), pass_fds=opening.fds,
                              capture_output=True, timeout=60, check=False)
    assert (done.returncode != 0, marker.exists(), opening.failure) == (
        True, False, "handing the listener to the proxy: the lane is gone")
    assert sandbox.run(ExecRequest(["touch", str(marker)])).exit_code == 0
    assert marker.exists()  # the same command, given its listener, runs


def test_a_time_limit_that_ends_the_run_before_its_listener_is_a_time_out(
        sandbox: BwrapExecutor, monkeypatch: pytest.MonkeyPatch) -> None:
    """A limit that ends the run while its proxy listener is still being handed over (the
    sandbox, and the namespace the listener was made in, go with it) is reported as what it
    is: a time-out, not a sandbox that could not be set up."""
    if not sandbox.listen_inside:
        pytest.skip("the bridge makes no listener outside")
    def slowly(pid: int, port: int, belongs: Callable[[], bool]) -> socket.socket:
        time.sleep(1.0)  # a loaded machine: past the run's limit
        return listen_in(pid, port, belongs)

    monkeypatch.setattr(opening_module, "listen_in", slowly)
    result = sandbox.run(ExecRequest(["sleep", "30"], timeout_s=0.2))
    assert (result.timed_out, result.exit_code) == (True, 124), result


def test_no_program_of_ours_stays_between_the_command_and_the_proxy(
        sandbox: BwrapExecutor, port: int, seen: list[Connection]) -> None:
    """Either way in, the proxy accepts the sandbox's connections itself: the bridge hands
    its listener over and becomes the command, so no relay runs beside it in the sandbox
    (process 1 is bubblewrap's own, its command line holds the loader and the bridge's)."""
    script = ("for p in /proc/[0-9]*; do [ $p = /proc/1 ] || tr '\\0' ' ' < $p/cmdline; "
              "echo; done; "
              f"curl -sS -o /dev/null -w '%{{http_code}}\\n' http://{TEST_DOMAIN}:{port}/x")
    if CURL is None:
        pytest.skip("curl is not installed")
    code, out = _run(sandbox, script)
    assert code == 0, out
    assert [line for line in out.splitlines() if "bridge" in line or "seccomp" in line] == []
    assert out.endswith("200\n")
    assert [(c.host, c.allowed) for c in seen] == [(TEST_DOMAIN, True)]


def test_the_sandbox_cannot_hand_over_a_listener_of_its_own(sandbox: BwrapExecutor) -> None:
    """The handoff socket takes one listener, the bridge's, before the command starts: the
    command finds nothing there to hand a socket of its own to."""
    code = ("import socket\ns = socket.socket(socket.AF_UNIX)\n"
            "try:\n    s.connect('/run/clawgate-egress/handoff.sock')\n    print('connected')\n"
            "except OSError as e:\n    print(type(e).__name__)\n")
    assert _run(sandbox, [PYTHON, "-I", "-c", code]) == (0, "FileNotFoundError\n")


def test_the_bridges_listener_is_taken_where_its_namespace_may_not_be_asked(
        sandbox: BwrapExecutor, port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the right to ask a socket its namespace (a setuid bubblewrap's), the proxy
    still knows the bridge's listener is not of the host's loopback, and takes it."""
    if sandbox.listen_inside:
        pytest.skip("the listener made inside is not handed over")

    def denied(*_args: object) -> int:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(handoff.fcntl, "ioctl", denied)
    code, out = _run(sandbox, urlopen_script(f"http://{TEST_DOMAIN}:{port}/x"))
    assert (code, out) == (0, f"200 hello {TEST_DOMAIN}:{port} /x\n\n")


def test_a_listener_the_proxy_refuses_runs_nothing(sandbox: BwrapExecutor,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the proxy refuses what the bridge hands over, the command is not run and the
    run fails saying why (it is never one with a different network)."""
    if sandbox.listen_inside:
        pytest.skip("the listener made inside is not handed over")
    marker = Path(sandbox.workspace, "ran")

    def refuse(_listener: socket.socket, _port: int) -> None:
        raise handoff.HandoffRefused("not this one")

    monkeypatch.setattr(handoff, "_check", refuse)
    with pytest.raises(SandboxUnavailable) as failed:
        sandbox.run(ExecRequest(["touch", str(marker)], timeout_s=60))
    assert str(failed.value) == ("the sandbox's egress proxy could not be set up: the "
                                 "listener handed over was refused: not this one; the "
                                 "command was not run")
    assert not marker.exists()
