"""Red team, the sandbox's newest parts, second pass: the pool of placeholders' mount points,
the protected links held in the sandbox, the listener the bridge hands over and the
system-call filter's loader. Each attack is what a command (or a second run) can do; real
bubblewrap, real file systems, real sockets.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from clawgate.executors import BwrapExecutor, ExecRequest, ExecResult, SpawnLimiter
from sandboxview import fake_home

HANG_GUARD_S = 120.0  # only against a hang: every wait below ends on an event


@pytest.fixture
def base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of the test's own, and the guard's state (its pool) on the workspaces' file
    system."""
    fake_home(tmp_path, monkeypatch)
    monkeypatch.setenv("CLAWGATE_STATE_HOME", str(tmp_path / "state"))
    return tmp_path


def _wait_for(what: Callable[[], bool], why: str) -> None:
    deadline = time.monotonic() + HANG_GUARD_S
    while not what():
        assert time.monotonic() < deadline, f"never happened: {why}"
        time.sleep(0.02)


class _Run:
    """A sandboxed run on a thread of its own."""

    def __init__(self, workspace: Path, command: str) -> None:
        self.result: ExecResult | None = None
        sandbox = BwrapExecutor(workspace=workspace, limiter=SpawnLimiter(5))
        self._thread = threading.Thread(target=self._run, args=(sandbox, command), daemon=True)
        self._thread.start()

    def _run(self, sandbox: BwrapExecutor, command: str) -> None:
        self.result = sandbox.run(ExecRequest(command, timeout_s=HANG_GUARD_S))

    def done(self) -> ExecResult:
        self._thread.join(HANG_GUARD_S + 30)
        assert self.result is not None, "the run did not end"
        return self.result


# A command of the workspace ``outer`` holds open a placeholder that a run of the nested
# workspace ``outer/inner`` made (below the top of ``outer``, nothing holds ``inner/.github``
# for it), and writes through that descriptor when told to.
HOLDER = (
    "while [ ! -d inner/.github ]; do sleep 0.02; done; exec 3< inner/.github; "
    "stat -c %i inner/.github > held; touch inner/ready; "
    "while [ ! -e now ] && [ ! -e stop ]; do sleep 0.02; done; "
    "if [ -e now ]; then mkdir /proc/self/fd/3/workflows && "
    "echo 'on: push' > /proc/self/fd/3/workflows/evil.yml; fi; touch written; echo held"
)


@pytest.mark.bwrap
def test_a_placeholder_held_open_by_a_command_is_never_another_workspaces_mount_point(
        base: Path) -> None:
    """A directory that stood in a workspace can be held open by whatever saw it there, and
    a descriptor follows it wherever it is moved: used again as a placeholder of another
    workspace, it would let the holder write that workspace's ``.github/workflows``."""
    outer, victim = base / "outer", base / "victim"
    (outer / "inner").mkdir(parents=True)
    victim.mkdir()
    holder = _Run(outer, HOLDER)
    inner = _Run(outer / "inner", "while [ ! -e ready ]; do sleep 0.02; done; echo inner")
    assert inner.done().stdout == "inner\n"
    held = int((outer / "held").read_text())
    other = _Run(victim, "touch started; while [ ! -e go ]; do sleep 0.02; done; echo other")
    _wait_for((victim / "started").exists, "the other workspace's run started")
    mount_points = {os.lstat(victim / name).st_ino for name in os.listdir(victim)}
    if held in mount_points:  # the holder writes into the other workspace's placeholder now
        (outer / "now").touch()
        _wait_for((outer / "written").exists, "the holder wrote")
    (victim / "go").touch()
    assert other.done().stdout == "other\n"
    (outer / "stop").touch()
    assert holder.done().stdout == "held\n"
    assert sorted(os.listdir(victim)) == ["go", "started"]
    assert held not in mount_points
