"""Red team, protected paths that do not exist yet: a script the checker cannot see into (run
by an allowed ``sh tool.sh``) creates a CI workflow, an agent's settings, a git hook where the
repository has no hooks directory, a CI file at the top. In a sandbox none of them is made,
and the workspace on the host is as it was before the run (no placeholder left behind).
Real Guard, real bubblewrap, real Docker.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from redteam_support import EXECUTORS, guard_for

from clawgate.approval import DenyAllApprover
from sandboxview import fake_home

KINDS = [pytest.param("bwrap", marks=pytest.mark.bwrap),
         pytest.param("docker", marks=pytest.mark.docker)]

# (what the workspace holds first, what the script tries, the path it must not make)
CASES = [
    pytest.param((), "mkdir -p .github/workflows && printf 'on: push\\n' > "
                 ".github/workflows/x.yml", ".github/workflows/x.yml", id="workflow"),
    pytest.param((".github/ISSUE_TEMPLATE/bug.md",), "mkdir -p .github/workflows && "
                 "printf 'on: push\\n' > .github/workflows/x.yml", ".github/workflows/x.yml",
                 id="workflow-in-existing-github"),
    pytest.param((".github/ISSUE_TEMPLATE/bug.md",), "mv .github .github-old && mkdir -p "
                 ".github/workflows && printf 'on: push\\n' > .github/workflows/x.yml",
                 ".github/workflows/x.yml", id="workflow-after-moving-github"),
    pytest.param((), "chmod 777 .github; mkdir -p .github/workflows && printf 'on: push\\n' > "
                 ".github/workflows/x.yml", ".github/workflows/x.yml", id="workflow-after-chmod"),
    pytest.param((), "mkdir -p .claude && printf '{\"hooks\": {}}' > .claude/settings.json",
                 ".claude/settings.json", id="claude-settings"),
    pytest.param((), "mkdir -p .vscode && printf '{}' > .vscode/tasks.json",
                 ".vscode/tasks.json", id="vscode-tasks"),
    pytest.param((), "printf 'job:\\n  script: x\\n' > .gitlab-ci.yml", ".gitlab-ci.yml",
                 id="gitlab-ci"),
    pytest.param((), "printf 'repos: []\\n' > .pre-commit-config.yaml",
                 ".pre-commit-config.yaml", id="pre-commit-config"),
    pytest.param((), "printf 'obey\\n' > CLAUDE.md", "CLAUDE.md", id="claude-md"),
    pytest.param((), "rm -f .npmrc; printf 'script-shell=./x\\n' > .npmrc", ".npmrc",
                 id="npmrc"),
]


def snapshot(root: Path) -> dict[str, tuple[str, bytes]]:
    """Every path below ``root`` with its kind and, for a file, its content."""
    found: dict[str, tuple[str, bytes]] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = ("link", os.readlink(path).encode())
        elif path.is_dir():
            found[rel] = ("dir", b"")
        elif path.is_file():
            found[rel] = ("file", path.read_bytes())
        else:
            found[rel] = ("other", b"")
    return found


def attempt(tmp_path: Path, kind: str) -> str:
    """What ``sh tool.sh`` prints, run by a Guard over ``kind``."""
    guard = guard_for(tmp_path, EXECUTORS[kind], approver=DenyAllApprover())
    try:
        result = guard.call("exec_shell", {"command": "sh tool.sh"})
    finally:
        guard.close()
    return str(result["stdout"])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("files", "script", "target"), CASES)
def test_a_protected_path_that_does_not_exist_cannot_be_created(
        tmp_path: Path, kind: str, files: tuple[str, ...], script: str, target: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake_home(tmp_path, monkeypatch)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for rel in files:
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text("x\n")
    (workspace / "tool.sh").write_text(f"{{ {script}; }} 2>/dev/null\necho done\n")
    before = snapshot(workspace)
    assert attempt(tmp_path, kind) == "done\n"
    assert not (workspace / target).exists()
    assert snapshot(workspace) == before


@pytest.mark.parametrize("kind", KINDS)
def test_a_hook_cannot_be_planted_in_a_repository_without_a_hooks_directory(
        tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``git init`` without its sample hooks, or a clone whose hooks directory was removed:
    no ``.git/hooks`` to mount read-only, and none may be made."""
    fake_home(tmp_path, monkeypatch)
    workspace = tmp_path / "ws"
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    shutil.rmtree(workspace / ".git" / "hooks")
    (workspace / "tool.sh").write_text(
        "{ mkdir -p .git/hooks && printf '#!/bin/sh\\nid\\n' > .git/hooks/pre-commit && "
        "chmod +x .git/hooks/pre-commit; } 2>/dev/null\necho done\n")
    before = snapshot(workspace)
    assert attempt(tmp_path, kind) == "done\n"
    assert not (workspace / ".git" / "hooks").exists()
    assert snapshot(workspace) == before


@pytest.mark.parametrize("kind", KINDS)
def test_runs_at_once_in_one_workspace_hold_the_paths_and_leave_nothing(
        tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One run ending while another still runs in the same workspace does not take the
    other's placeholders away (removing a mount point would unmount it there)."""
    fake_home(tmp_path, monkeypatch)
    guard = guard_for(tmp_path, EXECUTORS[kind], approver=DenyAllApprover())
    workspace = tmp_path / "ws"
    (workspace / "slow.sh").write_text(
        "echo > running\n"
        "i=0; while [ ! -e started ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\n"
        "mkdir -p .github/workflows 2>/dev/null && echo x > .github/workflows/x.yml\n"
        "echo x > CLAUDE.md 2>/dev/null\necho slow\n")
    (workspace / "quick.sh").write_text("echo quick\n")
    before = snapshot(workspace)
    outputs: list[str] = []

    def slow() -> None:
        outputs.append(str(guard.call("exec_shell", {"command": "sh slow.sh"})["stdout"]))

    try:
        runner = threading.Thread(target=slow)
        runner.start()
        for _ in range(1200):  # a hang guard only
            if (workspace / "running").exists():
                break
            time.sleep(0.05)
        outputs.append(str(guard.call("exec_shell", {"command": "sh quick.sh"})["stdout"]))
        (workspace / "started").write_text("")  # the quick run is over: now the slow one tries
        runner.join(120)
    finally:
        guard.close()
    for marker in ("running", "started"):
        (workspace / marker).unlink()
    assert sorted(outputs) == ["quick\n", "slow\n"]
    assert snapshot(workspace) == before


def test_a_run_leaves_no_placeholder_behind_when_it_returns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between two runs the host's tree holds no entry a command did not make: an agent
    reading the workspace (its ``CLAUDE.md``, its ``.github``) finds it as it was."""
    fake_home(tmp_path, monkeypatch)
    workspace = tmp_path / "ws"
    (workspace / ".github").mkdir(parents=True)
    (workspace / ".github" / "CODEOWNERS").write_text("* @me\n")
    before = snapshot(workspace)
    guard = guard_for(tmp_path, EXECUTORS["bwrap"], approver=DenyAllApprover())
    try:
        for _ in range(2):
            assert guard.call("exec_shell", {"command": "true"})["exit_code"] == 0
            assert snapshot(workspace) == before
    finally:
        guard.close()
