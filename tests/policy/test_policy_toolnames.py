"""Unknown tool names in any ``tools.*`` list stop loading with ``file:line``; MCP
``server__tool`` names, groups, globs and custom tools of any layer do not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from clawgate.cli import main
from clawgate.errors import PolicyError
from clawgate.policy.policy import Policy

Load = Callable[..., Policy]

TYPO_PLACES = [
    ("tools: {deny: [exec-shell]}", "tools.deny[0]"),
    ("tools: {allow: [read_file, exec-shell]}", "tools.allow[1]"),
    ("tools: {alsoAllow: [exec-shell]}", "tools.alsoAllow[0]"),
    ("tools: {byProvider: {openai: {allow: [exec-shell]}}}", "tools.byProvider.openai.allow[0]"),
    ("tools: {byGroup: {group:fs: {allow: [exec-shell]}}}", "tools.byGroup.group:fs.allow[0]"),
    ("tools: {agents: {bot: {deny: [exec-shell]}}}", "tools.agents.bot.deny[0]"),
    ("tools: {agents: {bot: {alsoAllow: [exec-shell]}}}", "tools.agents.bot.alsoAllow[0]"),
    ("tools: {agents: {bot: {byProvider: {x: {allow: [exec-shell]}}}}}",
     "tools.agents.bot.byProvider.x.allow[0]"),
    ("tools: {subagents: {deny: [exec-shell]}}", "tools.subagents.deny[0]"),
    ("tools: {subagents: {leafDeny: [exec-shell]}}", "tools.subagents.leafDeny[0]"),
    ("tools: {groups: {group:mine: [exec-shell]}}", "tools.groups.group:mine[0]"),
]


@pytest.mark.parametrize(("text", "where"), TYPO_PLACES)
def test_an_unknown_tool_name_is_a_load_error(load: Load, text: str, where: str) -> None:
    with pytest.raises(PolicyError) as caught:
        load("version: 1\n" + text + "\n")
    message = str(caught.value)
    assert message.startswith(f"{caught.value.path}:2: {where}: unknown tool 'exec-shell'")


@pytest.mark.parametrize("entry", ["gh__create_issue", "mcp", "mcp:gh", "group:fs", "web_*",
                                   "exec_shell"])
def test_known_shapes_load(load: Load, entry: str) -> None:
    load(f"version: 1\ntools: {{deny: ['{entry}']}}\n")


CUSTOM = "version: 1\ntools: {custom: {dig: {command: 'dig {{name}}'}}}\n"
DENY_DIG = "version: 1\ntools: {deny: [dig]}\n"


@pytest.mark.parametrize("order", [(CUSTOM, DENY_DIG), (DENY_DIG, CUSTOM)])
def test_a_custom_tool_of_any_layer_is_known(load: Load, order: tuple[str, str]) -> None:
    policy = load(*order)
    assert "dig" not in policy.visible_tools(["dig", "read_file"]).tools


def test_the_cli_exits_2_with_file_and_line(write: Callable[..., Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = write("version: 1\ntools:\n  deny: [web_fetch, exec-shell]\n")
    assert main(["check", "--policy", str(path), "ls"]) == 2
    err = capsys.readouterr().err
    assert err == f"{path}:3: tools.deny[1]: unknown tool 'exec-shell' (not a built-in tool, " \
        "a group, an MCP server__tool name or a tools.custom tool of any layer; declare a " \
        "tool added in code under tools.custom)\n"


def test_the_claude_code_hook_fails_closed_on_a_typo(
        write: Callable[..., Path], tmp_path: Path) -> None:
    path = write("version: 1\ntools: {deny: [exec-shell]}\n")
    payload = {"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": str(tmp_path),
               "permission_mode": "default", "hook_event_name": "PreToolUse",
               "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"}
    code = "import sys; from clawgate.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", code, "hook", "claude-code", "--policy",
                           str(path)], input=json.dumps(payload), text=True,
                          capture_output=True, env=dict(os.environ), check=False)
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "unknown tool 'exec-shell'" in answer["permissionDecisionReason"]


def test_the_hook_discovers_the_project_policy(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".clawgate.yaml").write_text("version: 1\ntools: {deny: [exec_shell]}\n")
    payload = {"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": str(repo),
               "permission_mode": "default", "hook_event_name": "PreToolUse",
               "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"}
    code = "import sys; from clawgate.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", code, "hook", "claude-code"], cwd=tmp_path,
                          input=json.dumps(payload), text=True, capture_output=True,
                          env=dict(os.environ), check=False)
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny", answer
