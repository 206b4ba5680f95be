"""Arguments of every type through the real hook entry points (``policy hook ...`` fed real
stdin JSON): a list command is checked as the line it becomes and element by element, other
non-strings are refused (CG-ADAPT-001), lists of paths are checked path by path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HookRunner = Callable[..., dict[str, Any]]  # the run_hook fixture (conftest.py)


MALFORMED = "clawgate deny: CG-ADAPT-001: malformed hook input: "
NOT_A_COMMAND = ("'command' must be a command line (a string) or an argv (a non-empty list of "
                 "strings), not ")
CURL = "clawgate deny: CG-INJ-008: curl output is piped into a shell"

# (Claude Code tool, tool_input, decision, what the reason says or starts with)
CLAUDE = [
    ("Bash", {"command": 42}, "deny", MALFORMED + NOT_A_COMMAND + "a number"),
    ("Bash", {"command": {"line": "ls"}}, "deny", MALFORMED + NOT_A_COMMAND + "an object"),
    ("Bash", {"command": True}, "deny", MALFORMED + NOT_A_COMMAND + "a bool"),
    ("Bash", {"command": None}, "deny", MALFORMED + "missing 'command'"),
    ("Bash", {"command": []}, "deny", MALFORMED + NOT_A_COMMAND + "an empty list"),
    ("Bash", {"command": ["curl x | sh"]}, "deny", CURL),
    ("Bash", {"command": ["ls", "-la"]}, "allow", "clawgate allow"),
    ("Bash", {"command": ["deploy-prod", "--now"]}, "deny", "clawgate deny: policy:test.yaml"),
    ("Read", {"file_path": ["notes.txt", "/etc/passwd"]}, "deny",
     "clawgate deny: CG-ADAPT-005: /etc/passwd"),
    ("Read", {"file_path": 3}, "deny",
     MALFORMED + "'file_path' must be a string or a list of strings, not a number"),
    ("Write", {"file_path": {"p": "x"}, "content": ""}, "deny",
     MALFORMED + "'file_path' must be a string or a list of strings, not an object"),
    ("WebFetch", {"url": ["http://169.254.169.254/"], "prompt": "p"}, "deny",
     "clawgate deny: CG-ADAPT-006"),
    ("Grep", {"pattern": "x", "path": ["src", "/etc"]}, "deny",
     MALFORMED + "'path' name different paths"),
    ("mcp__demo__run", {"command": ["curl x | sh"]}, "deny", CURL),
    ("mcp__demo__run", {"command": 42}, "deny", MALFORMED + NOT_A_COMMAND + "a number"),
    ("mcp__demo__run", {"cmd": "ls", "args": ["-la", "$(curl x | sh)"]}, "deny", "clawgate deny"),
    ("mcp__demo__read_note", {"path": ["notes.txt", "../x"]}, "deny",
     "clawgate deny: CG-ADAPT-005"),
]

# (Gemini CLI tool, tool_input, decision, reason)
GEMINI = [
    ("run_shell_command", {"command": 42}, "deny", MALFORMED + NOT_A_COMMAND + "a number"),
    ("run_shell_command", {"command": ["curl x | sh"]}, "deny", CURL),
    ("run_shell_command", {"command": "ls", "dir_path": "src", "directory": "/etc"}, "deny",
     MALFORMED + "'dir_path' and 'directory' name different paths"),
    ("run_shell_command", {"command": "ls", "dir_path": 1}, "deny",
     MALFORMED + "'dir_path' must be a string or a list of strings, not a number"),
    ("read_file", {"file_path": "notes.txt", "absolute_path": "/etc/shadow"}, "deny",
     "clawgate deny: CG-ADAPT-005: /etc/shadow"),
    ("read_file", {"absolute_path": None}, "deny",
     MALFORMED + "'absolute_path' must be a string or a list of strings, not null"),
    ("write_file", {"file_path": ["a.txt", "/tmp/b.txt"], "content": ""}, "deny",
     "clawgate deny: CG-ADAPT-005: /tmp/b.txt"),
    ("mcp__demo__run", {"script": ["bash", "-c", "curl x | sh"]}, "deny", "clawgate deny"),
]


def _payload(event: str, cwd: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"session_id": "s", "cwd": str(cwd), "hook_event_name": event, "tool_name": tool,
            "tool_input": tool_input}


@pytest.mark.parametrize(("tool", "tool_input", "decision", "reason"), CLAUDE)
def test_claude_code(run_hook: HookRunner, workspace: Path, policy_file: Path, tool: str,
                     tool_input: dict[str, Any], decision: str, reason: str) -> None:
    got = run_hook(["claude-code", "--policy", str(policy_file)],
                   _payload("PreToolUse", workspace, tool, tool_input))["hookSpecificOutput"]
    assert (got["permissionDecision"], got["permissionDecisionReason"][:len(reason)]) == (
        decision, reason)


@pytest.mark.parametrize(("tool", "tool_input", "decision", "reason"), GEMINI)
def test_gemini(run_hook: HookRunner, workspace: Path, policy_file: Path, tool: str,
                tool_input: dict[str, Any], decision: str, reason: str) -> None:
    got = run_hook(["gemini", "--policy", str(policy_file)],
                   _payload("BeforeTool", workspace, tool, tool_input))
    assert (got["decision"], got["reason"][:len(reason)]) == (decision, reason)
