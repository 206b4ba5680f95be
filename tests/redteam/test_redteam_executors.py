"""Red team, the executors (issue 14, processes and severe 1): what a command leaves behind
(``setsid`` survivors on host, bubblewrap and warm Docker), a fork loop and a memory hog under
bubblewrap, and ``.git/config`` with ``core.fsmonitor`` turned into code execution by an
allowed ``git status`` (written by ``exec_shell`` and by ``write_file``). Real processes,
real sandboxes, through the executor the Guard builds from its policy."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
from redteam_support import EXECUTORS, guard_for

from clawgate.approval import DenyAllApprover
from clawgate.errors import ToolError, ToolErrorKind
from clawgate.executors import ExecRequest
from clawgate.executors.cgroups import Containment
from proctable import alive_with, gone, unique_sleep

_PROBE = Containment.create(pids=8)
if _PROBE is not None:
    _PROBE.close()
needs_cgroups = pytest.mark.skipif(_PROBE is None, reason="no control group can be made here")
KINDS = [pytest.param("host", marks=needs_cgroups),
         pytest.param("bwrap", marks=[pytest.mark.bwrap, needs_cgroups]),
         pytest.param("docker", marks=pytest.mark.docker)]


@pytest.mark.parametrize("kind", KINDS)
def test_setsid_children_of_twenty_calls_do_not_survive(tmp_path: Path, kind: str) -> None:
    guard = guard_for(tmp_path, EXECUTORS[kind])
    marker = unique_sleep()
    try:
        for _ in range(20):
            result = guard.executor.run(ExecRequest(
                f"setsid sleep {marker} </dev/null >/dev/null 2>&1 & echo started",
                timeout_s=30))
            assert result.stdout == "started\n"
            if kind == "docker":  # inside the warm container: the engine's view, not /proc
                left = guard.executor.run(ExecRequest(f"ps | grep -c '[s]leep {marker}'"))
                assert left.stdout.strip() == "0"
        assert gone(marker)
    finally:
        guard.close()


@pytest.mark.bwrap
@needs_cgroups
def test_a_fork_loop_under_the_default_sandbox_stays_inside_its_run(tmp_path: Path) -> None:
    guard = guard_for(tmp_path, "executor: {kind: bwrap, docker: {pids: 32}}\n")
    marker = unique_sleep()
    result = guard.executor.run(ExecRequest(
        f"n=0; while [ $n -lt 300 ]; do (sleep {marker} &); n=$((n+1)); done; echo spun",
        timeout_s=30))
    assert "spun" in result.stdout
    assert len(alive_with(marker)) == 0
    guard.close()


@pytest.mark.bwrap
@needs_cgroups
def test_a_memory_hog_under_the_default_sandbox_is_killed(tmp_path: Path) -> None:
    guard = guard_for(tmp_path, "executor: {kind: bwrap, docker: {memory: 64m}}\n")
    hog = "python3 -c 'b = bytearray(768 * 1024 * 1024); b[::4096] = b\"x\" * len(b[::4096])'"
    result = guard.executor.run(ExecRequest(f"{hog}; echo status $?", timeout_s=60))
    assert result.stdout.strip() == f"status {128 + signal.SIGKILL}"
    guard.close()


def repository(workspace: Path) -> None:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "payload.sh").write_text("#!/bin/sh\ntouch pwned\n")
    (workspace / "payload.sh").chmod(0o755)


POISON = "[core]\n\tfsmonitor = ./payload.sh\n[alias]\n\tst = !touch pwned\n"


@pytest.mark.parametrize("kind", ["host", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_a_poisoned_git_config_runs_nothing_on_git_status(tmp_path: Path, kind: str) -> None:
    guard = guard_for(tmp_path, EXECUTORS[kind], approver=DenyAllApprover())
    workspace = tmp_path / "ws"
    repository(workspace)
    # the write through the file tool is refused (a protected path) ...
    with pytest.raises(ToolError) as refused:
        guard.call("write_file", {"path": ".git/config", "content": POISON})
    assert refused.value.kind is ToolErrorKind.PERMISSION_DENIED
    # ... and through a shell command
    for line in ("git config core.fsmonitor ./payload.sh", f"printf '{POISON}' >> .git/config"):
        with pytest.raises(ToolError) as refused:
            guard.call("exec_shell", {"command": line})
        assert refused.value.kind is ToolErrorKind.PERMISSION_DENIED
    # a config poisoned anyway (by the user's other tools, a clone) runs nothing either
    with (workspace / ".git" / "config").open("a") as config:
        config.write(POISON)
    (workspace / "tracked.txt").write_text("x\n")
    result = guard.call("exec_shell", {"command": "git status --short"})
    assert "tracked.txt" in str(result)
    assert not (workspace / "pwned").exists()
    guard.close()


@pytest.mark.parametrize("kind", ["host", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_an_executable_hook_planted_by_write_file_is_refused(tmp_path: Path, kind: str) -> None:
    guard = guard_for(tmp_path, EXECUTORS[kind], approver=DenyAllApprover())
    workspace = tmp_path / "ws"
    repository(workspace)
    hook = workspace / ".git" / "hooks" / "post-checkout"
    hook.write_text("#!/bin/sh\ntrue\n")
    hook.chmod(0o755)  # an existing executable hook: an overwrite would keep its mode
    for path in (".git/hooks/post-checkout", ".git/hooks/pre-commit"):
        with pytest.raises(ToolError) as refused:
            guard.call("write_file", {"path": path, "content": "#!/bin/sh\ntouch pwned\n"})
        assert refused.value.kind is ToolErrorKind.PERMISSION_DENIED
    with pytest.raises(ToolError) as refused:
        guard.call("edit_file", {"path": ".git/hooks/post-checkout", "old_text": "true",
                                 "new_text": "touch pwned"})
    assert refused.value.kind is ToolErrorKind.PERMISSION_DENIED
    guard.call("exec_shell", {"command": "git checkout -q -b feature"})
    assert not (workspace / "pwned").exists()
    guard.close()


@pytest.mark.parametrize("kind", ["host", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_git_reached_through_a_symlink_is_still_protected(tmp_path: Path, kind: str) -> None:
    """``ln -s .git g`` then ``printf … > g/config``: the link asks, and a link made anyway
    (a clone, the user) does not make the write through it an ordinary one."""
    guard = guard_for(tmp_path, EXECUTORS[kind], approver=DenyAllApprover())
    workspace = tmp_path / "ws"
    repository(workspace)
    with pytest.raises(ToolError) as refused:
        guard.call("exec_shell", {"command": "ln -s .git g"})
    assert refused.value.kind is ToolErrorKind.PERMISSION_DENIED
    (workspace / "g").symlink_to(".git")
    (workspace / "h").symlink_to(".git/hooks")
    before = (workspace / ".git" / "config").read_text()
    for line in (f"printf '{POISON}' >> g/config", "printf '#!/bin/sh\\ntouch pwned\\n' > "
                 "h/pre-commit", "cp payload.sh h/post-checkout"):
        with pytest.raises(ToolError) as refused:
            guard.call("exec_shell", {"command": line})
        assert refused.value.kind is ToolErrorKind.PERMISSION_DENIED
    for path in ("g/config", "h/pre-commit"):
        with pytest.raises(ToolError):
            guard.call("write_file", {"path": path, "content": POISON})
    assert (workspace / ".git" / "config").read_text() == before
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    guard.close()
