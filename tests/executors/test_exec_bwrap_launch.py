"""bubblewrap started before its options are built (``bwraplaunch.py``): it is in its run's
control group before it makes any namespace, it runs nothing where it cannot be put there, and
one whose options cannot be built is killed and reaped. Real bwrap, real cgroups."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawgate.errors import ExecutorError, SandboxUnavailable
from clawgate.executors import BwrapExecutor, ExecRequest, SpawnLimiter
from clawgate.executors import bwrap as bwrap_module
from clawgate.executors.cgroups import Containment
from proctable import alive_with, unique_sleep

CGROUPS = Containment.create(pids=8)
if CGROUPS is not None:
    CGROUPS.close()
needs_cgroups = pytest.mark.skipif(CGROUPS is None and not os.environ.get("CI"),
                                   reason="this machine lets us make no control group")

pytestmark = pytest.mark.bwrap


@needs_cgroups
@pytest.mark.parametrize("network", [False, True])
def test_the_sandbox_is_made_inside_its_control_group(workspace: Path, limiter: SpawnLimiter,
                                                      network: bool) -> None:
    """The sandbox's cgroup namespace is rooted at the run's own group: bubblewrap was in it
    before it made its namespaces, so the command sees itself at that root."""
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter, network=network)
    result = sandbox.run(ExecRequest("cat /proc/self/cgroup"))
    assert result.exit_code == 0, result.stderr
    pids = [line for line in result.stdout.splitlines() if line.split(":")[1:2] == ["pids"]
            or line.startswith("0::")]
    assert pids, result.stdout
    assert {line.rsplit(":", 1)[1] for line in pids} == {"/"}


@needs_cgroups
def test_a_sandbox_that_cannot_join_its_control_group_runs_nothing(
        workspace: Path, limiter: SpawnLimiter, monkeypatch: pytest.MonkeyPatch) -> None:
    made = Containment.create

    def gone_group(*, pids: int, memory: int | None = None) -> Containment | None:
        group = made(pids=pids, memory=memory)
        assert group is not None
        group.close()  # its directories removed: bubblewrap cannot be moved into them
        return group

    monkeypatch.setattr(bwrap_module.Containment, "create", gone_group)
    marker = unique_sleep()
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter)
    with pytest.raises(SandboxUnavailable, match="control group"):
        sandbox.run(ExecRequest(f"touch ran; sleep {marker}"))
    assert not (workspace / "ran").exists()
    assert alive_with(marker) == []


def test_bubblewrap_whose_options_cannot_be_built_is_killed_and_reaped(
        workspace: Path, limiter: SpawnLimiter, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter)

    def no_view() -> bwrap_module.SandboxView:
        raise ExecutorError("the view could not be built")

    monkeypatch.setattr(sandbox, "view", no_view)
    marker = unique_sleep()
    with pytest.raises(ExecutorError, match="the view could not be built"):
        sandbox.run(ExecRequest(f"touch ran; sleep {marker}"))
    assert not (workspace / "ran").exists()
    assert alive_with(marker) == []  # bubblewrap (its command line holds the marker) is gone
