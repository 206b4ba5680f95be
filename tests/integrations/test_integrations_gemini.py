"""Gemini CLI's BeforeTool hook fed recorded payloads: the exact JSON it must answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from clawgate.approval import ApprovalAnswer, ApprovalRequest, CallbackApprover
from clawgate.integrations.gemini import Gemini
from clawgate.integrations.hooks import HookOptions, answer

HookRunner = Callable[..., dict[str, Any]]  # the run_hook fixture (conftest.py)

SRC = str(Path(__file__).resolve().parents[2] / "src")
NO_APPROVER = ("CG-ADAPT-007: a person must approve, and no approver is configured (hint: Gemini "
               "CLI hooks cannot ask; run the hook with --approver terminal to be asked)")


def payload(cwd: Path, tool: str, tool_input: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A BeforeTool payload as Gemini CLI sends it."""
    return {"session_id": "g-42", "transcript_path": "/tmp/g.json", "cwd": str(cwd),
            "hook_event_name": "BeforeTool", "timestamp": "2026-11-21T23:00:00Z",
            "tool_name": tool, "tool_input": tool_input, **extra}


def table(ws: str) -> list[tuple[str, dict[str, Any], str, str]]:
    outside = f"leaves the workspace {ws} (hint: stay inside the workspace {ws})"
    low = "clawgate allow: no rule objected (low risk)"
    return [
        ("run_shell_command", {"command": "ls -la", "description": "list"}, "allow", low),
        ("run_shell_command", {"command": "ls", "dir_path": "src"}, "allow", low),
        ("run_shell_command", {"command": "ls", "dir_path": "/var"}, "deny",
         f"clawgate deny: CG-ADAPT-005: /var: {outside}"),
        ("run_shell_command", {"command": "deploy-prod --now"}, "deny",
         "clawgate deny: policy:test.yaml#no-deploy: deploys to production "
         "(hint: use the release pipeline)"),
        ("run_shell_command", {"command": "publish-release v2"}, "deny",
         f"clawgate deny: {NO_APPROVER}; policy:test.yaml#ask-publish: publishes a release"),
        ("read_file", {"absolute_path": f"{ws}/notes.txt"}, "allow", low),
        ("read_file", {"file_path": "/etc/shadow"}, "deny",
         f"clawgate deny: CG-ADAPT-005: /etc/shadow: {outside}"),
        ("write_file", {"file_path": "src/a.py", "content": "x"}, "allow",
         "clawgate allow: no rule objected (medium risk)"),
        ("replace", {"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}, "deny",
         f"clawgate deny: CG-ADAPT-005: /etc/hosts: {outside}"),
        ("glob", {"pattern": "**/*.md", "dir_path": "src"}, "allow", low),
        ("search_file_content", {"pattern": "TODO", "dir_path": "/opt"}, "deny",
         f"clawgate deny: CG-ADAPT-005: /opt: {outside}"),
        ("list_directory", {"dir_path": "."}, "allow", low),
        ("read_many_files", {"paths": ["src/**/*.py", "/root/secrets/*"]}, "deny",
         f"clawgate deny: CG-ADAPT-005: /root/secrets: {outside}"),
        ("web_fetch", {"prompt": "Summarise http://93.184.215.14/a and "
                                 "http://127.0.0.1:8080/admin."}, "deny",
         "clawgate deny: CG-ADAPT-006: 127.0.0.1 resolves to 127.0.0.1, in a blocked range "
         "(loopback, 127.0.0.0/8)"),
        ("web_fetch", {"prompt": "Summarise http://93.184.215.14/a"}, "allow",
         "clawgate allow: no rule objected (high risk)"),
        ("google_web_search", {"query": "clawgate"}, "deny",
         "clawgate deny: CG-ADAPT-004: the tool policy does not let agent 'gemini' use "
         "web_search (google_web_search)"),
        ("mcp__fs__delete", {"path": "a"}, "deny",
         "clawgate deny: CG-ADAPT-004: the tool policy does not let agent 'gemini' use "
         "fs__delete (mcp__fs__delete)"),
        ("fs__delete", {"path": "a"}, "deny",
         "clawgate deny: CG-ADAPT-004: the tool policy does not let agent 'gemini' use "
         "fs__delete"),
        ("ops__run", {"command": "deploy-prod"}, "deny",
         "clawgate deny: policy:test.yaml#no-deploy: deploys to production "
         "(hint: use the release pipeline)"),
        ("write_todos", {"todos": []}, "allow", low),
        ("brand_new_tool", {}, "deny",
         f"clawgate deny: {NO_APPROVER}; CG-ADAPT-003: clawgate cannot see what "
         "brand_new_tool does; a person must approve"),
    ]


def test_table(run_hook: HookRunner, workspace: Path, policy_file: Path) -> None:
    for tool, tool_input, decision, reason in table(str(workspace)):
        got = run_hook(["gemini", "--policy", str(policy_file)],
                       payload(workspace, tool, tool_input))
        assert got == {"decision": decision, "reason": reason}, (tool, tool_input)


@pytest.mark.parametrize(("tool", "context"), [
    ("mcp__fs__delete", {"server_name": "fs", "tool_name": "delete", "command": "fs-server"}),
    ("mcp__fs__delete", {"server_name": "fs"}),
    ("delete", {"server_name": "fs"}),
])
def test_mcp_context_names_the_server(run_hook: HookRunner, workspace: Path, policy_file: Path,
                                      tool: str, context: dict[str, str]) -> None:
    got = run_hook(["gemini", "--policy", str(policy_file)], payload(
        workspace, tool, {"path": "a"}, mcp_context=context))
    assert got["decision"] == "deny"
    assert "use fs__delete" in got["reason"]


@pytest.mark.parametrize(("raw", "why"), [
    ("", "not JSON (Expecting value: line 1 column 1 (char 0))"),
    ('{"hook_event_name": "PreToolUse", "tool_name": "x", "tool_input": {}, "cwd": "/"}',
     "expected hook_event_name 'BeforeTool', got 'PreToolUse'"),
    ('{"hook_event_name": "BeforeTool", "tool_name": "read_many_files", '
     '"tool_input": {"paths": [1]}, "cwd": "/"}', "'paths' must be a list of strings"),
    ('{"hook_event_name": "BeforeTool", "tool_name": "web_fetch", "tool_input": {}, '
     '"cwd": "/"}', "missing 'prompt' or 'url'"),
])
def test_malformed_input_is_denied(run_hook: HookRunner, raw: str, why: str) -> None:
    assert run_hook(["gemini"], raw) == {
        "decision": "deny",
        "reason": f"clawgate deny: CG-ADAPT-001: malformed hook input: {why}"}


@pytest.mark.parametrize(("reply", "decision"), [
    (ApprovalAnswer.ALLOW_ONCE, "allow"), (ApprovalAnswer.DENY, "deny")])
def test_an_approver_answers_the_ask(workspace: Path, policy_file: Path,
                                     reply: ApprovalAnswer, decision: str) -> None:
    asked: list[ApprovalRequest] = []

    def person(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return reply

    options = HookOptions((str(policy_file),), "gemini", "google",
                          approver=CallbackApprover(person))
    raw = json.dumps(payload(workspace, "run_shell_command", {"command": "publish-release v2"}))
    got = answer(Gemini(), raw, options)
    assert got["decision"] == decision
    assert [(r.tool, r.summary, r.session) for r in asked] == [
        ("exec_shell", "publish-release v2", "g-42")]


def test_as_a_subprocess(workspace: Path, policy_file: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "clawgate", "hook", "gemini", "--policy", str(policy_file)],
        input=json.dumps(payload(workspace, "run_shell_command", {"command": "deploy-prod"})),
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC}, timeout=60,
        check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "decision": "deny", "reason": "clawgate deny: policy:test.yaml#no-deploy: deploys to "
                                      "production (hint: use the release pipeline)"}
