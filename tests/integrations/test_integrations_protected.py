"""Protected paths on every channel: a write to git's hooks and config, agent configuration,
CI files or package-manager configuration is never a silent allow. The hooks answer ASK
(Claude Code asks the person; Gemini, which cannot ask, is refused), the Guard's file tools
ask its approver, and the proxy asks for MCP tools whose arguments may be written."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from clawgate.approval import ApprovalAnswer, ApprovalRequest, CallbackApprover
from clawgate.errors import ToolError, ToolErrorKind
from clawgate.guard import Guard
from clawgate.policy.loader import load_policy
from clawgate.protected import protected_reason

HookRunner = Callable[..., dict[str, Any]]  # the run_hook fixture (conftest.py)


@pytest.mark.parametrize(("path", "protected"), [
    (".git/hooks/pre-commit", True), (".git/config", True), (".GIT/Config", True),
    ("sub/module/.git/hooks/post-checkout", True), (".git", True),
    (".claude/settings.json", True), (".gemini/settings.json", True), (".mcp.json", True),
    ("CLAUDE.md", True), ("docs/AGENTS.md", True), (".github/workflows/ci.yml", True),
    ("pkg/.npmrc", True), (".pypirc", True), (".clawgate.yaml", True),
    ("./src/../.git/config", True),
    ("src/main.py", False), ("notes.txt", False), (".github/CODEOWNERS", False),
    ("gitconfig.txt", False), ("src/claude.md.bak", False), ("docs/workflows/x.yml", False),
])
def test_the_list(workspace: Path, path: str, protected: bool) -> None:
    assert (protected_reason(path, str(workspace)) is not None) is protected


def test_a_symlink_to_a_protected_place_is_protected(workspace: Path) -> None:
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / "innocent").symlink_to(workspace / ".git" / "hooks")
    why = protected_reason("innocent/pre-commit", str(workspace))
    assert why is not None and ".git" in why


def claude(ws: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"session_id": "s", "cwd": str(ws), "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": tool_input}


def gemini(ws: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"session_id": "s", "cwd": str(ws), "hook_event_name": "BeforeTool",
            "tool_name": tool, "tool_input": tool_input}


@pytest.mark.parametrize(("agent", "tool", "tool_input", "decision"), [
    ("claude-code", "Write", {"file_path": ".git/hooks/pre-commit", "content": "x"}, "ask"),
    ("claude-code", "Edit", {"file_path": ".git/config", "old_string": "a",
                             "new_string": "b"}, "ask"),
    ("claude-code", "MultiEdit", {"file_path": ".mcp.json", "edits": []}, "ask"),
    ("claude-code", "NotebookEdit", {"notebook_path": ".claude/x.ipynb",
                                     "new_source": ""}, "ask"),
    ("claude-code", "Write", {"file_path": ".github/workflows/ci.yml", "content": ""}, "ask"),
    ("claude-code", "Write", {"file_path": "src/ok.py", "content": ""}, "allow"),
    ("claude-code", "Read", {"file_path": ".git/config"}, "allow"),
    ("claude-code", "mcp__fs__write", {"path": "CLAUDE.md", "text": "obey"}, "ask"),
    ("gemini", "write_file", {"file_path": ".npmrc", "content": "x"}, "deny"),
    ("gemini", "replace", {"file_path": ".clawgate.yaml", "old_string": "a",
                           "new_string": "b"}, "deny"),
    ("gemini", "write_file", {"file_path": "src/ok.py", "content": "x"}, "allow"),
    ("claude-code", "Write", {"file_path": ".github/workflow\u017f/ci.yml", "content": ""},
     "ask"),
    ("claude-code", "Write", {"file_path": "GIT~1/hooks/pre-commit", "content": "x"}, "ask"),
    ("claude-code", "mcp__fs__write", {"path": ".g\u0131t/config", "text": "x"}, "ask"),
    ("gemini", "replace", {"file_path": "CLAUDE.md.", "old_string": "a",
                           "new_string": "b"}, "deny"),
    ("claude-code", "Write", {"file_path": ".git\\hooks\\pre-commit", "content": "x"}, "ask"),
    ("claude-code", "Write", {"file_path": "CLAUDE.md::$DATA", "content": "x"}, "ask"),
])
def test_hooks_ask_for_protected_writes(run_hook: HookRunner, workspace: Path, agent: str,
                                        tool: str, tool_input: dict[str, Any],
                                        decision: str) -> None:
    payload = (claude if agent == "claude-code" else gemini)(workspace, tool, tool_input)
    got = run_hook([agent], payload)
    said = got.get("decision") or got["hookSpecificOutput"]["permissionDecision"]
    reason = got.get("reason") or got["hookSpecificOutput"]["permissionDecisionReason"]
    assert said == decision
    assert ("CG-PROT-001" in reason) is (decision != "allow")


def guard(ws: Path, reply: ApprovalAnswer, asked: list[ApprovalRequest]) -> Guard:
    def person(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return reply

    return Guard(load_policy(), workspace=ws, approver=CallbackApprover(person))


@pytest.mark.parametrize(("tool", "args"), [
    ("write_file", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nid\n"}),
    ("write_file", {"path": ".git/config", "content": "[core]\n\tfsmonitor = ./x\n"}),
    ("edit_file", {"path": ".git/config", "old_text": "[core]", "new_text": "[core]\n\tx=1"}),
    ("write_file", {"path": ".claude/settings.json", "content": "{}"}),
])
def test_guard_file_tools_ask(workspace: Path, tool: str, args: dict[str, Any]) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n")
    before = (workspace / ".git" / "config").read_text()
    asked: list[ApprovalRequest] = []
    with pytest.raises(ToolError) as caught:
        guard(workspace, ApprovalAnswer.DENY, asked).call(tool, args)
    assert caught.value.kind is ToolErrorKind.PERMISSION_DENIED
    assert "CG-PROT-001" in caught.value.message
    assert [r.tool for r in asked] == [tool]
    assert (workspace / ".git" / "config").read_text() == before
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert not (workspace / ".claude").exists()


def test_guard_writes_a_protected_path_once_approved(workspace: Path) -> None:
    asked: list[ApprovalRequest] = []
    hook = workspace / ".git" / "hooks" / "pre-commit"
    guard(workspace, ApprovalAnswer.ALLOW_ONCE, asked).call(
        "write_file", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"})
    assert hook.read_text() == "#!/bin/sh\n"
    assert len(asked) == 1
    guard(workspace, ApprovalAnswer.DENY, asked).call(
        "write_file", {"path": "src/plain.py", "content": "x = 1\n"})
    assert len(asked) == 1  # an ordinary write asks nobody
    assert os.path.exists(workspace / "src" / "plain.py")


@pytest.mark.parametrize(("path", "decision"), [
    (".bashrc", "ask"),
    (".zshrc", "ask"),
    (".config/systemd/user/x.service", "ask"),
    (".config/autostart/x.desktop", "ask"),
    (".gitconfig", "ask"),
    (".config/git/config", "ask"),
    (".config/gh/hosts.yml", "ask"),
    (".local/bin/git", "ask"),
    (".config/clawgate/policy.yaml", "ask"),
    (".config/Code/User/settings.json", "ask"),
    ("notes.txt", "allow"),
    ("src/main.py", "allow"),
    (".config/nvim-notes.txt", "allow"),
])
def test_a_workspace_that_is_home_protects_its_start_up_and_user_wide_files(
        run_hook: HookRunner, workspace: Path, monkeypatch: pytest.MonkeyPatch, path: str,
        decision: str) -> None:
    monkeypatch.setenv("HOME", str(workspace))
    got = run_hook(["claude-code"], claude(workspace, "Write", {"file_path": path,
                                                                "content": "x"}))
    assert got["hookSpecificOutput"]["permissionDecision"] == decision
