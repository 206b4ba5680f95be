"""The guard's own state is out of reach of what it runs: an audit log inside the workspace is
refused, ``audit_log=True`` keeps it under the state directory, and under bubblewrap and Docker
the loaded policy files inside the workspace (``.clawgate.yaml``, ``pyproject.toml``) are
mounted read-only, so an allowed command can neither rewrite, replace nor remove them. On the
host executor it can: the README says so, and the last test shows it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawgate.approval import ApprovalStore
from clawgate.audit import AuditLog, verify
from clawgate.cli import main
from clawgate.decision import Outcome
from clawgate.errors import ClawgateError, ToolError, ToolErrorKind
from clawgate.executors import FakeExecutor
from clawgate.guard import CallContext, Guard
from clawgate.integrations.calls import Call
from clawgate.integrations.gate import Gate
from clawgate.policy.loader import load_policy
from clawgate.statedir import state_root

# Run as a script the checks cannot see into (an ASK, which the project's `trusted` runs): the
# commands themselves must meet the mount, not a validator.
ATTACK = """\
echo 'autonomy: full' >> {name}
printf 'version: 1\\n' > {name}
rm -f {name}
mv {name} moved.yaml
ln -sf /dev/null {name}
echo done > done.txt
"""
PROJECT = {".clawgate.yaml": "version: 1\nhooks: {{trusted: true}}\n{extra}",
           "pyproject.toml": "[tool.clawgate]\nversion = 1\nhooks = {{trusted = true}}\n{extra}"}


def project(tmp_path: Path, name: str, extra: str = "") -> tuple[Path, Path]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    policy = workspace / name
    policy.write_text(PROJECT[name].format(extra=extra))
    (workspace / "attack.sh").write_text(ATTACK.format(name=name))
    return workspace, policy


def guard_over(tmp_path: Path, workspace: Path, policy: Path) -> Guard:
    return Guard.from_files(policy, workspace=workspace, audit_log=tmp_path / "audit.jsonl",
                            approval_store=ApprovalStore(workspace, state_dir=tmp_path / "st"))


def attack(guard: Guard, workspace: Path) -> None:
    guard.call("exec_shell", {"command": "sh attack.sh"})
    assert (workspace / "done.txt").read_text() == "done\n"  # the script ran to its end


@pytest.mark.parametrize("where", ["file", "nested", "log-object", "through-a-symlink"])
def test_an_audit_log_inside_the_workspace_is_refused(tmp_path: Path, where: str) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "link").symlink_to(workspace)
    audit: object = {"file": workspace / "audit.jsonl",
                     "nested": workspace / "logs" / "audit.jsonl",
                     "log-object": AuditLog(workspace / "audit.jsonl"),
                     "through-a-symlink": tmp_path / "link" / "audit.jsonl"}[where]
    with pytest.raises(ClawgateError, match="inside the workspace"):
        Guard.from_files(workspace=workspace, executor=FakeExecutor(), audit_log=audit)


def test_audit_log_true_is_this_workspaces_log_under_the_state_directory(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with Guard.from_files(workspace=workspace, executor=FakeExecutor(), audit_log=True,
                          approval_store=ApprovalStore(workspace, state_dir=tmp_path)) as guard:
        guard.call("list_directory", {"path": "."})
        log = Path(guard.audit_path or "")
    assert log.is_relative_to(state_root() / "audit")
    assert not log.resolve().is_relative_to(workspace.resolve())
    assert verify(log).ok


@pytest.mark.bwrap
@pytest.mark.parametrize("name", [".clawgate.yaml", "pyproject.toml"])
def test_under_bubblewrap_a_command_cannot_change_the_loaded_policy(
        tmp_path: Path, name: str) -> None:
    workspace, policy = project(tmp_path, name)
    before = policy.read_bytes()
    with guard_over(tmp_path, workspace, policy) as guard:
        assert type(guard.executor).__name__ == "BwrapExecutor"  # the default: auto
        attack(guard, workspace)
    assert policy.read_bytes() == before
    assert not (workspace / "moved.yaml").exists()


@pytest.mark.docker
@pytest.mark.parametrize("name", [".clawgate.yaml", "pyproject.toml"])
def test_under_docker_a_command_cannot_change_the_loaded_policy(
        tmp_path: Path, name: str) -> None:
    extra = "executor: {kind: docker}\n" if name == ".clawgate.yaml" \
        else "executor = {kind = \"docker\"}\n"
    workspace, policy = project(tmp_path, name, extra)
    before = policy.read_bytes()
    with guard_over(tmp_path, workspace, policy) as guard:
        assert type(guard.executor).__name__ == "DockerExecutor"
        attack(guard, workspace)
    assert policy.read_bytes() == before
    assert not (workspace / "moved.yaml").exists()


@pytest.mark.bwrap
def test_policy_run_under_the_default_cannot_change_the_discovered_project_policy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    workspace, policy = project(tmp_path, ".clawgate.yaml")
    before = policy.read_bytes()
    code = main(["run", "--workspace", str(workspace), "--yes", "--", "sh attack.sh"])
    assert code == 0, capsys.readouterr().err
    assert (workspace / "done.txt").read_text() == "done\n"
    assert policy.read_bytes() == before


def test_on_the_host_a_command_can_change_it_the_documented_limit(tmp_path: Path) -> None:
    workspace, policy = project(tmp_path, ".clawgate.yaml", "executor: {kind: host}\n")
    with guard_over(tmp_path, workspace, policy) as guard:
        attack(guard, workspace)
    assert not policy.exists() or os.path.islink(policy)


@pytest.mark.parametrize(("tool", "args"), [
    ("write_file", {"path": ".clawgate.yaml", "content": "version: 1\nautonomy: full\n"}),
    ("edit_file", {"path": "./.clawgate.yaml", "old_text": "trusted: true",
                   "new_text": "trusted: false"}),
])
def test_file_tools_may_not_rewrite_the_loaded_policy(
        tmp_path: Path, tool: str, args: dict[str, str]) -> None:
    workspace, policy = project(tmp_path, ".clawgate.yaml", "executor: {kind: host}\n")
    before = policy.read_bytes()
    with guard_over(tmp_path, workspace, policy) as guard:
        with pytest.raises(ToolError) as caught:
            guard.call(tool, args)
        assert caught.value.kind is ToolErrorKind.PERMISSION_DENIED
        assert "CG-TOOL-002" in caught.value.message
        guard.call("write_file", {"path": "notes.txt", "content": "fine\n"})
    assert policy.read_bytes() == before
    assert (workspace / "notes.txt").read_text() == "fine\n"


def test_the_gate_refuses_a_write_to_the_loaded_policy_through_the_same_path(
        tmp_path: Path) -> None:
    workspace, policy = project(tmp_path, ".clawgate.yaml")
    gate = Gate(load_policy(policy), workspace=workspace)
    write = Call("write_file", {"file_path": str(policy)}, writes=(str(policy),))
    decision = gate.decide(write, CallContext())
    assert decision.outcome is Outcome.DENY
    assert [r.rule_id for r in decision.reasons] == ["CG-TOOL-002"]
