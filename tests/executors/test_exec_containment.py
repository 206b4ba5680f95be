"""What a command leaves behind, and how much it may start (issue 14): 20 calls that each leave
a ``setsid`` child behind leave nothing on the host or under bubblewrap; a fork loop and a
memory hog stay inside their run's control group. Real processes, real bwrap, real cgroups."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clawgate.executors import BwrapExecutor, ExecRequest, HostExecutor, Limits, SpawnLimiter
from clawgate.executors.cgroups import Containment
from clawgate.executors.host import RUN_MARK, sweep
from proctable import alive_with, gone, unique_sleep

CGROUPS = Containment.create(pids=8)
if CGROUPS is not None:
    CGROUPS.close()
needs_cgroups = pytest.mark.skipif(CGROUPS is None and not os.environ.get("CI"),
                                   reason="this machine lets us make no control group")


@needs_cgroups
def test_setsid_children_of_twenty_calls_do_not_survive_on_the_host(
        workspace: Path, limiter: SpawnLimiter) -> None:
    host = HostExecutor(workspace=workspace, limiter=limiter)
    marker = unique_sleep()
    for _ in range(20):
        result = host.run(ExecRequest(f"setsid sleep {marker} </dev/null >/dev/null 2>&1 & "
                                      "echo started"))
        assert result.stdout == "started\n"
    assert gone(marker)


@needs_cgroups
def test_a_setsid_loop_is_bounded_and_ends_with_its_call(workspace: Path,
                                                          limiter: SpawnLimiter) -> None:
    host = HostExecutor(workspace=workspace, limiter=limiter, limits=Limits(pids=16))
    marker = unique_sleep()
    result = host.run(ExecRequest(
        f"i=0; while [ $i -lt 100 ]; do setsid sleep {marker} </dev/null >/dev/null 2>&1 & "
        "i=$((i+1)); done; wait; echo looped", timeout_s=20))
    assert "cannot fork" in result.stderr.lower()  # the 16-process limit held
    assert not result.timed_out
    assert gone(marker)


@pytest.mark.bwrap
@needs_cgroups
def test_a_fork_loop_under_bubblewrap_is_bounded(workspace: Path, limiter: SpawnLimiter) -> None:
    marker = unique_sleep()
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter, limits=Limits(pids=32))
    result = sandbox.run(ExecRequest(
        f"n=0; while [ $n -lt 200 ]; do (sleep {marker} &); n=$((n+1)); done; echo spun",
        timeout_s=20))
    assert "spun" in result.stdout
    assert "fork" in result.stderr.lower() or "resource" in result.stderr.lower()
    assert len(alive_with(marker)) == 0


@pytest.mark.bwrap
@needs_cgroups
def test_memory_under_bubblewrap_is_bounded(workspace: Path, limiter: SpawnLimiter) -> None:
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter,
                            limits=Limits(memory=64 * 1024 * 1024))
    hog = "python3 -c 'b = bytearray(512 * 1024 * 1024); b[::4096] = b\"x\" * len(b[::4096])'"
    result = sandbox.run(ExecRequest(f"{hog}; echo status $?", timeout_s=60))
    assert result.stdout.strip() == f"status {128 + signal.SIGKILL}"  # the OOM killer's


def _wait_for_exec(pid: int, needle: bytes) -> None:
    """Until the child runs its program with its own environment (before its exec, /proc shows
    the parent's): a hang guard, not a clock."""
    for _ in range(12000):
        try:
            if needle in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                return
        except OSError:
            pass
        time.sleep(0.01)
    raise AssertionError(f"process {pid} never showed its environment")


def test_the_fallback_sweep_finds_a_marked_escapee() -> None:
    marker = unique_sleep()
    mark = os.urandom(8).hex()
    child = subprocess.Popen(["sleep", marker], env={**os.environ, RUN_MARK: mark},
                             start_new_session=True)  # a session of its own, as setsid gives
    try:
        _wait_for_exec(child.pid, f"{RUN_MARK}={mark}".encode())
        assert sweep(mark) == 1
        assert child.wait(timeout=10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert sweep(mark) == 0


def test_containment_removes_its_groups() -> None:
    group = Containment.create(pids=4)
    if group is None:
        pytest.skip("this machine lets us make no control group")
    dirs = list(group.dirs)
    done = subprocess.run(group.wrap([sys.executable, "-c", "print('inside')"]),
                          capture_output=True, text=True, check=False)
    assert done.stdout == "inside\n"
    group.close()
    assert not any(d.exists() for d in dirs)


@pytest.mark.bwrap
def test_without_cgroups_bubblewrap_falls_back_to_rlimits(
        workspace: Path, limiter: SpawnLimiter, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no control group can be made (here: CLAWGATE_CGROUPS=off), the memory limit is
    RLIMIT_DATA under prlimit: a hog gets MemoryError instead of the machine's memory."""
    monkeypatch.setenv("CLAWGATE_CGROUPS", "off")
    assert Containment.create(pids=8) is None
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter,
                            limits=Limits(memory=64 * 1024 * 1024))
    hog = "python3 -c 'b = bytearray(512 * 1024 * 1024)'"
    result = sandbox.run(ExecRequest(f"{hog}; echo status $?", timeout_s=60))
    assert result.stdout.strip() == "status 1"
    assert "MemoryError" in result.stderr
    small = sandbox.run(ExecRequest("python3 -c 'print(len(bytearray(8 * 1024 * 1024)))'"))
    assert small.stdout.strip() == str(8 * 1024 * 1024)
