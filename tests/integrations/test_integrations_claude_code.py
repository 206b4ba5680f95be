"""Claude Code's PreToolUse hook fed recorded payloads: the exact JSON it must answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HookRunner = Callable[..., dict[str, Any]]  # the run_hook fixture (conftest.py)


SRC = str(Path(__file__).resolve().parents[2] / "src")


def payload(cwd: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """A PreToolUse payload as Claude Code sends it."""
    return {"session_id": "9f1c", "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd),
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_01"}


def expected(decision: str, reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                   "permissionDecision": decision,
                                   "permissionDecisionReason": reason}}


ALLOW_LOW = "clawgate allow: no rule objected (low risk)"


def table(ws: str) -> list[tuple[str, dict[str, Any], str, str]]:
    outside = f"leaves the workspace {ws} (hint: stay inside the workspace {ws})"
    return [
        ("Bash", {"command": "ls -la src", "description": "list"}, "allow", ALLOW_LOW),
        ("Bash", {"command": "deploy-prod --now"}, "deny",
         "clawgate deny: policy:test.yaml#no-deploy: deploys to production "
         "(hint: use the release pipeline)"),
        ("Bash", {"command": "git status && deploy-prod", "timeout": 5}, "deny",
         "clawgate deny: policy:test.yaml#no-deploy: deploys to production "
         "(hint: use the release pipeline)"),
        ("Bash", {"command": "publish-release v2"}, "ask",
         "clawgate ask: policy:test.yaml#ask-publish: publishes a release"),
        ("Read", {"file_path": f"{ws}/notes.txt"}, "allow", ALLOW_LOW),
        ("Read", {"file_path": "/etc/hostname", "offset": 1, "limit": 10}, "deny",
         f"clawgate deny: CG-ADAPT-005: /etc/hostname: {outside}"),
        ("Write", {"file_path": f"{ws}/src/new.py", "content": "x = 1\n"}, "allow",
         "clawgate allow: no rule objected (medium risk)"),
        ("Edit", {"file_path": "../escape.txt", "old_string": "a", "new_string": "b"}, "deny",
         f"clawgate deny: CG-ADAPT-005: {ws}/../escape.txt: {outside}"),
        ("MultiEdit", {"file_path": "src/a.py", "edits": []}, "allow",
         "clawgate allow: no rule objected (medium risk)"),
        ("Glob", {"pattern": "src/**/*.py"}, "allow", ALLOW_LOW),
        ("Glob", {"pattern": "/etc/**/*.conf"}, "deny",
         f"clawgate deny: CG-ADAPT-005: /etc: {outside}"),
        ("Grep", {"pattern": "TODO", "path": "/usr"}, "deny",
         f"clawgate deny: CG-ADAPT-005: /usr: {outside}"),
        ("WebFetch", {"url": "http://169.254.169.254/latest/meta-data", "prompt": "x"}, "deny",
         "clawgate deny: CG-ADAPT-006: 169.254.169.254 resolves to 169.254.169.254, "
         "a cloud metadata endpoint"),
        ("WebFetch", {"url": "http://93.184.215.14/", "prompt": "summarise"}, "allow",
         "clawgate allow: no rule objected (high risk)"),
        ("WebSearch", {"query": "clawgate"}, "deny",
         "clawgate deny: CG-ADAPT-004: the tool policy does not let agent 'claude-code' use "
         "web_search (WebSearch)"),
        ("mcp__fs__delete", {"path": "notes.txt"}, "deny",
         "clawgate deny: CG-ADAPT-004: the tool policy does not let agent 'claude-code' use "
         "fs__delete (mcp__fs__delete)"),
        ("mcp__fs__read", {"path": "notes.txt"}, "allow", ALLOW_LOW),
        ("mcp__fs__read", {"path": "~/.ssh/id_rsa"}, "deny",
         "clawgate deny: CG-ADAPT-005: ~/.ssh/id_rsa: leaves the workspace "
         f"{ws} (hint: stay inside the workspace {ws})"),
        ("mcp__ops__run", {"cmd": "deploy-prod"}, "deny",
         "clawgate deny: policy:test.yaml#no-deploy: deploys to production "
         "(hint: use the release pipeline)"),
        ("TodoWrite", {"todos": []}, "allow", ALLOW_LOW),
        ("SomeNewTool", {"x": 1}, "ask",
         "clawgate ask: CG-ADAPT-003: clawgate cannot see what SomeNewTool does; "
         "a person must approve"),
    ]


def test_table(run_hook: HookRunner, workspace: Path, policy_file: Path) -> None:
    for tool, tool_input, decision, reason in table(str(workspace)):
        answer = run_hook(["claude-code", "--policy", str(policy_file)],
                          payload(workspace, tool, tool_input))
        assert answer == expected(decision, reason), (tool, tool_input)


@pytest.mark.parametrize(("raw", "why"), [
    ("not json", "not JSON (Expecting value: line 1 column 1 (char 0))"),
    ("[1, 2]", "expected a JSON object, got list"),
    ('{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {}, "cwd": "/"}',
     "expected hook_event_name 'PreToolUse', got 'PostToolUse'"),
    ('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls", "cwd": "/"}',
     "'tool_input' must be an object"),
    ('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}, "cwd": "rel"}',
     "'cwd' must be an absolute path"),
    ('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}, "cwd": "/"}',
     "missing 'command'"),
    ('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": 7},'
     ' "cwd": "/"}', "'command' must be a command line (a string) or an argv (a non-empty list "
                   "of strings), not a number"),
    ('{"hook_event_name": "PreToolUse", "tool_input": {}, "cwd": "/"}', "missing 'tool_name'"),
])
def test_malformed_input_is_denied(run_hook: HookRunner, raw: str, why: str) -> None:
    assert run_hook(["claude-code"], raw) == expected(
        "deny", f"clawgate deny: CG-ADAPT-001: malformed hook input: {why}")


def test_a_broken_policy_is_a_deny(run_hook: HookRunner, workspace: Path,
                                   tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nautonomy: sometimes\n")
    answer = run_hook(["claude-code", "--policy", str(bad)],
                      payload(workspace, "Bash", {"command": "ls"}))
    reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert reason.startswith(
        "clawgate deny: CG-ADAPT-002: clawgate could not decide (PolicyError: ")
    assert "bad.yaml" in reason


def test_readonly_policy_denies_writes(run_hook: HookRunner, workspace: Path,
                                       tmp_path: Path) -> None:
    readonly = tmp_path / "ro.yaml"
    readonly.write_text("version: 1\nautonomy: readonly\n")
    answer = run_hook(["claude-code", "--policy", str(readonly)],
                      payload(workspace, "Write", {"file_path": "a.txt", "content": ""}))
    assert answer == expected("deny", "clawgate deny: CG-TOOL-001: this agent may only read "
                                      "(autonomy readonly or no write permission)")


def test_trusted_policy_allows_an_ask(run_hook: HookRunner, workspace: Path, policy_file: Path,
                                      tmp_path: Path) -> None:
    trusted = tmp_path / "trusted.yaml"
    trusted.write_text("version: 1\nhooks: {trusted: true}\n")
    answer = run_hook(["claude-code", "--policy", str(policy_file), "--policy", str(trusted)],
                      payload(workspace, "Bash", {"command": "publish-release v2"}))
    assert answer == expected("allow", "clawgate allow: policy:test.yaml#ask-publish: publishes "
                                       "a release; CG-ADAPT-008: allowed without asking: the "
                                       "policy sets hooks.trusted")


def test_agent_tool_policy(run_hook: HookRunner, workspace: Path, tmp_path: Path) -> None:
    """`tools.agents.claude-code.deny: [exec_shell]` takes Bash away from Claude Code only."""
    per_agent = tmp_path / "agents.yaml"
    per_agent.write_text("version: 1\ntools:\n  agents:\n    claude-code: {deny: [exec_shell]}\n")
    call = payload(workspace, "Bash", {"command": "ls"})
    denied = run_hook(["claude-code", "--policy", str(per_agent)], call)
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    other = run_hook(["claude-code", "--policy", str(per_agent), "--agent", "reviewer"], call)
    assert other["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_audit_log(run_hook: HookRunner, workspace: Path, policy_file: Path,
                   tmp_path: Path) -> None:
    from clawgate.audit import verify

    log = tmp_path / "audit.jsonl"
    for command in ("ls", "deploy-prod"):
        run_hook(["claude-code", "--policy", str(policy_file), "--audit", str(log)],
                 payload(workspace, "Bash", {"command": command}))
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["tool"], r["decision"]["outcome"]) for r in lines] == [
        ("exec_shell", "allow"), ("exec_shell", "deny")]
    assert lines[0]["session"] == "9f1c"
    assert lines[0]["agent"] == "claude-code"
    assert verify(log).ok


@pytest.mark.parametrize(("tool", "tool_input", "decision"), [
    ("Bash", {"command": "deploy-prod"}, "deny"),
    ("Read", {"file_path": "notes.txt"}, "allow"),
    ("Bash", {"command": "publish-release"}, "ask"),
])
def test_as_a_subprocess(workspace: Path, policy_file: Path, tool: str,
                         tool_input: dict[str, Any], decision: str) -> None:
    """The way Claude Code runs it: a process, the payload on stdin, JSON on stdout, exit 0."""
    done = subprocess.run(
        [sys.executable, "-m", "clawgate", "hook", "claude-code", "--policy", str(policy_file)],
        input=json.dumps(payload(workspace, tool, tool_input)), capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": SRC}, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == decision


def test_subprocess_malformed(workspace: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "clawgate", "hook", "claude-code"],
                          input="{", capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "PYTHONPATH": SRC})
    assert done.returncode == 0
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
