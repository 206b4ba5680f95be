"""bubblewrap started before its options are built (``bwraplaunch.py``): it is in its run's
control group before it makes any namespace, it runs nothing where it cannot be put there, and
one whose options cannot be built is killed and reaped. Real bwrap, real cgroups."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from clawgate.errors import ExecutorError, SandboxUnavailable
from clawgate.executors import BwrapExecutor, ExecRequest, SpawnLimiter
from clawgate.executors import bwrap as bwrap_module
from clawgate.executors.base import Job
from clawgate.executors.bwraplaunch import Launch
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
    marker = unique_sleep()
    outside: list[str] = []

    def look() -> None:  # the sandboxed sleep's groups, seen from the host
        deadline = time.monotonic() + 60
        while not (found := alive_with(marker)) and time.monotonic() < deadline:
            time.sleep(0.01)
        outside.extend(Path(f"/proc/{found[0]}/cgroup").read_text().splitlines()
                       if found else [])

    looking = threading.Thread(target=look)
    looking.start()
    result = sandbox.run(ExecRequest(f"cat /proc/self/cgroup; sleep {marker}", timeout_s=2))
    looking.join()
    inside = _pids_groups(result.stdout.splitlines())
    assert inside == {"/"}, result.stdout  # the namespace's root: the run's own group
    assert len(_pids_groups(outside)) == 1
    assert _pids_groups(outside).pop().startswith(f"/clawgate-{os.getpid()}-"), outside


def _pids_groups(lines: list[str]) -> set[str]:
    """The group paths of the ``pids`` controller (v1), else of the unified hierarchy (v2)."""
    v1 = {line.rsplit(":", 1)[1] for line in lines if line.split(":")[1:2] == ["pids"]}
    return v1 or {line.rsplit(":", 1)[1] for line in lines if line.startswith("0::")}


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


def test_bubblewrap_whose_options_never_come_runs_nothing(workspace: Path) -> None:
    """This process killed before it writes the options: the pipe ends unwritten, and
    bubblewrap, confined by what its own command line holds, finds nothing to run."""
    sandbox = BwrapExecutor(workspace=workspace, seccomp=False)
    target = workspace / "ran"
    launch = Launch([sandbox.bwrap, *sandbox.confinement()], ["/usr/bin/touch", str(target)],
                    cwd=workspace, env={"PATH": "/usr/bin:/bin"}, pass_fds=(),
                    containment=None)
    assert launch.proc is not None
    launch._close()  # as the end of a process closes it
    _, err = launch.proc.communicate(timeout=60)
    assert launch.proc.returncode == 1
    assert err == b"bwrap: execvp /usr/bin/touch: No such file or directory\n"
    assert not target.exists()


def test_options_larger_than_a_pipe_reach_bubblewrap_whole(workspace: Path,
                                                           limiter: SpawnLimiter) -> None:
    """Hundreds of protected files make options larger than a pipe holds by default: they
    are written in one piece, and the last of them protects as the first does."""
    for index in range(400):
        folder = workspace / f"package-with-a-long-name-{index:03d}"
        folder.mkdir()
        (folder / "AGENTS.md").write_text("rules\n")
    sandbox = BwrapExecutor(workspace=workspace, limiter=limiter)
    job_options = sandbox.options(Job(["true"], workspace, Path("."), {}, 10.0, 1024, 1.0,
                                      ExecRequest(["true"])))
    assert len(b"".join(os.fsencode(o) + b"\0" for o in job_options)) > 65536
    result = sandbox.run(ExecRequest(
        "for n in 000 399; do echo x >> package-with-a-long-name-$n/AGENTS.md "
        "2>/dev/null && echo wrote $n; done; echo done"))
    assert result.stdout == "done\n", result.stderr
    assert (workspace / "package-with-a-long-name-399" / "AGENTS.md").read_text() == "rules\n"
