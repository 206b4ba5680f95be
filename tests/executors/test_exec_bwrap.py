"""The bubblewrap executor against the real ``bwrap``: the sandbox holds, and timeouts kill."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from clawgate.executors import BwrapExecutor, ExecRequest, Limits, SpawnLimiter
from proctable import gone, unique_sleep

pytestmark = pytest.mark.bwrap


@pytest.fixture
def bwrap(workspace: Path, limiter: SpawnLimiter) -> BwrapExecutor:
    return BwrapExecutor(workspace=workspace, limiter=limiter, limits=Limits(kill_grace_s=0.3))


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on the host's loopback that answers every connection with 'hello'."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.05)
    port = server.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.sendall(b"hello\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield port
    stop.set()
    thread.join(2)
    server.close()


def test_runs_and_reports(bwrap: BwrapExecutor, workspace: Path) -> None:
    result = bwrap.run(ExecRequest("echo out; echo err >&2; pwd; exit 5"))
    assert (result.exit_code, result.stdout, result.stderr) == (5, f"out\n{workspace}\n", "err\n")


def test_the_system_is_read_only(bwrap: BwrapExecutor) -> None:
    result = bwrap.run(ExecRequest("touch /usr/clawgate-x; echo $? ; touch /etc/clawgate-x"))
    assert result.stdout.strip() == "1"
    assert "Read-only file system" in result.stderr
    assert not Path("/usr/clawgate-x").exists()
    assert not Path("/etc/clawgate-x").exists()


def test_the_workspace_is_writable(bwrap: BwrapExecutor, workspace: Path) -> None:
    assert bwrap.run(ExecRequest("echo data > made.txt")).exit_code == 0
    assert (workspace / "made.txt").read_text() == "data\n"


def test_nothing_outside_the_workspace_is_visible(bwrap: BwrapExecutor, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s3cret")
    result = bwrap.run(ExecRequest(f"cat {tmp_path / 'secret.txt'}; ls /root /home 2>&1"))
    assert "s3cret" not in result.stdout
    assert result.exit_code != 0


def test_tmp_is_private(bwrap: BwrapExecutor) -> None:
    marker = f"clawgate-{unique_sleep()}"
    host_file = Path("/tmp", f"{marker}-host")
    host_file.write_text("host")
    try:
        result = bwrap.run(ExecRequest(f"echo x > /tmp/{marker} && ls /tmp"))
    finally:
        host_file.unlink()
    listing = result.stdout.split()
    assert marker in listing
    assert host_file.name not in listing  # the host's /tmp is not there
    assert not Path("/tmp", marker).exists()  # and the sandbox's is gone with it


def test_password_hashes_are_masked(bwrap: BwrapExecutor) -> None:
    result = bwrap.run(ExecRequest("cat /etc/shadow"))
    assert ":" not in result.stdout


def test_no_network_by_default(bwrap: BwrapExecutor, listener: int) -> None:
    probe = f"exec 3<>/dev/tcp/127.0.0.1/{listener} && head -1 <&3"
    result = bwrap.run(ExecRequest(["bash", "-c", probe], timeout_s=5))
    assert result.exit_code != 0
    assert "hello" not in result.stdout
    table = bwrap.run(ExecRequest("cat /proc/net/dev")).stdout.splitlines()[2:]
    assert [line.split(":")[0].strip() for line in table] == ["lo"]


def test_network_when_the_policy_allows_it(workspace: Path, limiter: SpawnLimiter,
                                           listener: int) -> None:
    open_bwrap = BwrapExecutor(workspace=workspace, limiter=limiter, network=True)
    probe = f"exec 3<>/dev/tcp/127.0.0.1/{listener} && head -1 <&3"
    assert open_bwrap.run(ExecRequest(["bash", "-c", probe], timeout_s=5)).stdout == "hello\n"


def test_environment_allow_list(bwrap: BwrapExecutor, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_leakleakleak")
    result = bwrap.run(ExecRequest("env"))
    assert "ghp_leak" not in result.stdout
    assert "GITHUB_TOKEN" not in result.stdout


def test_capabilities_are_dropped(bwrap: BwrapExecutor) -> None:
    status = bwrap.run(ExecRequest("grep CapEff /proc/self/status")).stdout
    assert status.split() == ["CapEff:", "0000000000000000"]


def test_timeout_kills_even_a_process_that_left_the_group(bwrap: BwrapExecutor) -> None:
    marker = unique_sleep()
    result = bwrap.run(ExecRequest(f"setsid sleep {marker} & trap '' TERM; sleep {marker}",
                                   timeout_s=0.3))
    assert result.timed_out
    assert result.exit_code == 124
    assert gone(marker)


def test_a_backgrounded_process_does_not_survive(bwrap: BwrapExecutor) -> None:
    marker = unique_sleep()
    result = bwrap.run(ExecRequest(f"setsid sleep {marker} & echo started"))
    assert result.stdout == "started\n"
    assert gone(marker)


def test_output_flood_is_capped(bwrap: BwrapExecutor) -> None:
    result = bwrap.run(ExecRequest("head -c 20000000 /dev/zero"))
    assert result.truncated
    assert len(result.stdout) == 1024 * 1024
    assert result.exit_code == 0


def test_the_guard_state_is_hidden_even_inside_the_workspace(
        workspace: Path, limiter: SpawnLimiter, monkeypatch: pytest.MonkeyPatch) -> None:
    """A workspace of ``~`` holds the state root: the sandbox sees an empty, read-only tmpfs
    there, so neither the keys nor the approvals can be read or written from inside."""
    from clawgate.approval import ApprovalRequest, ApprovalStore
    from clawgate.executors.placeholders import PLACEHOLDERS
    from clawgate.statedir import state_key

    state = workspace / ".local" / "state" / "clawgate"
    monkeypatch.setenv("CLAWGATE_STATE_HOME", str(state))
    monkeypatch.delenv("CLAWGATE_STATE_DIR", raising=False)
    state_key("audit")
    ApprovalStore(workspace).remember(ApprovalRequest("exec_shell", {"command": "make"}))
    pool = state / "placeholders"  # the guard's own: the placeholders' empty directories
    own = (pool, state / "placeholders-spent",  # and those back from a workspace
           state / "egress")  # the runs' proxy sockets (without root)

    def contents() -> list[str]:
        return sorted(p.name for p in state.rglob("*")
                      if not any(p.is_relative_to(o) for o in own))

    before = contents()
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter)
    result = sandbox.run(ExecRequest(
        f"ls -A {state}; cat {state}/keys/audit.key; echo forged > {state}/keys/audit.key;"
        f" mkdir -p {state}/approvals && echo x > {state}/approvals/x.json; echo done"))
    assert result.stdout.splitlines()[-1] == "done"
    assert "No such file" in result.stderr
    assert "Read-only file system" in result.stderr
    PLACEHOLDERS.settle()  # the pool made up for what the run spent, before it is read
    assert contents() == before
    assert sorted(os.listdir(pool)) == sorted(str(p.stat().st_ino) for p in pool.iterdir())
    assert all(not os.listdir(p) for p in pool.iterdir())
    assert len((state / "keys" / "audit.key").read_bytes()) == 32
