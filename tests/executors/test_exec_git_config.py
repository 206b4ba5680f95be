"""A file write is not code execution (issue 14): a repository whose .git/config sets
``core.fsmonitor`` and whose hooks are executable runs neither when an allowed ``git status``,
``git commit`` or ``git checkout -b`` runs on an executor, unless ``Limits.repo_programs``.
Real git, real repositories, the host and bubblewrap executors."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from clawgate.executors import BwrapExecutor, ExecRequest, HostExecutor, Limits, SpawnLimiter
from clawgate.executors.base import git_safe_env

IDENTITY = ["-c", "user.email=a@example.com", "-c", "user.name=A"]


def poisoned_repo(root: Path) -> Path:
    """A repository set up (with the payloads switched off) the way a written file leaves it."""
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "core.fsmonitor=false", *IDENTITY, *args], cwd=root,
                       check=True, capture_output=True)

    git("init", "-q", ".")
    (root / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("commit", "-qm", "init")
    git("config", "core.fsmonitor", f"touch {root}/pwned-fsmonitor; false")
    for hook in ("pre-commit", "post-checkout", "post-commit"):
        path = root / ".git" / "hooks" / hook
        path.write_text(f"#!/bin/sh\ntouch {root}/pwned-{hook}\n")
        path.chmod(0o755)
    return root


COMMANDS = ("git status --short; echo b > a.txt; "
            f"git {' '.join(IDENTITY)} commit -qam change; git checkout -qb other; echo done")


def test_git_runs_no_repository_program_on_the_host(workspace: Path,
                                                    limiter: SpawnLimiter) -> None:
    poisoned_repo(workspace)
    result = HostExecutor(workspace=workspace, limiter=limiter).run(ExecRequest(COMMANDS))
    assert result.stdout.endswith("done\n")
    assert sorted(p.name for p in workspace.glob("pwned-*")) == []


@pytest.mark.bwrap
def test_git_runs_no_repository_program_under_bubblewrap(workspace: Path,
                                                         limiter: SpawnLimiter) -> None:
    poisoned_repo(workspace)
    result = BwrapExecutor(workspace=workspace, limiter=limiter).run(ExecRequest(COMMANDS))
    assert result.stdout.endswith("done\n")
    assert sorted(p.name for p in workspace.glob("pwned-*")) == []


def test_the_policy_can_let_repository_programs_run(workspace: Path,
                                                    limiter: SpawnLimiter) -> None:
    poisoned_repo(workspace)
    host = HostExecutor(workspace=workspace, limiter=limiter,
                        limits=Limits(repo_programs=True))
    host.run(ExecRequest(COMMANDS))
    assert (workspace / "pwned-pre-commit").exists()
    assert (workspace / "pwned-fsmonitor").exists()


def test_callers_git_config_pairs_are_kept_before_ours() -> None:
    env = git_safe_env({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name",
                        "GIT_CONFIG_VALUE_0": "A"})
    assert env["GIT_CONFIG_KEY_0"] == "user.name"
    assert env["GIT_CONFIG_KEY_1"] == "core.fsmonitor"
    assert int(env["GIT_CONFIG_COUNT"]) == 4
