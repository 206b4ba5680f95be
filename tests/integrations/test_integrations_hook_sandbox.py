"""`policy hook claude-code|gemini --sandbox`: an allowed shell call comes back rewritten to run
through `policy run --sandboxed` (real bash, real bubblewrap); other answers are unchanged."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clawgate
from clawgate.cli import main
from clawgate.integrations.confine import agent_timeout, sandboxed_command

HookRunner = Callable[..., dict[str, Any]]  # the run_hook fixture (conftest.py)
HANG_GUARD_S = 120  # a hang guard only
MAIN = str(Path(clawgate.__file__).with_name("__main__.py"))  # the installed hook runs it


def claude(workspace: Path, command: str, **fields: Any) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(workspace),
            "tool_name": "Bash", "tool_input": {"command": command, **fields}}


def gemini(workspace: Path, command: str, **fields: Any) -> dict[str, Any]:
    return {"hook_event_name": "BeforeTool", "session_id": "s", "cwd": str(workspace),
            "tool_name": "run_shell_command", "tool_input": {"command": command, **fields}}


def as_the_agent(command: str, workspace: Path, env: dict[str, str] | None = None
                 ) -> subprocess.CompletedProcess[str]:
    """Run ``command`` as the agent's Bash tool does: ``bash -c`` in the workspace."""
    return subprocess.run(["bash", "-c", command], cwd=workspace, capture_output=True,
                          text=True, timeout=HANG_GUARD_S, check=False,
                          env=env if env is not None else dict(os.environ))


def updated(answer: dict[str, Any]) -> dict[str, Any]:
    specific = answer["hookSpecificOutput"]
    assert specific["permissionDecision"] == "allow", answer
    value: dict[str, Any] = specific["updatedInput"]
    return value


@pytest.mark.bwrap
def test_an_allowed_line_runs_in_bubblewrap_with_its_own_output_and_exit_code(
        run_hook: HookRunner, workspace: Path, policy_file: Path) -> None:
    line = "readlink /proc/self/ns/pid; echo to-stderr >&2; exit 7"
    answer = run_hook(["claude-code", "--sandbox", "--policy", str(policy_file)],
                      claude(workspace, line, description="show the pid namespace",
                             timeout=60000, run_in_background=False))
    new = updated(answer)
    assert {k: v for k, v in new.items() if k != "command"} == {
        "description": "show the pid namespace", "timeout": 60000, "run_in_background": False}
    words = shlex.split(new["command"])
    assert words[-2:] == ["--", line]
    assert words[words.index("--policy") + 1] == str(policy_file)
    assert words[words.index("--timeout") + 1] == "60"  # Claude Code's milliseconds
    assert "--yes" not in words
    done = as_the_agent(new["command"], workspace)
    assert done.returncode == 7
    assert done.stdout.strip() != os.readlink("/proc/self/ns/pid")  # its own pid namespace
    assert done.stdout.strip().startswith("pid:[")
    assert done.stderr.splitlines()[-1] == "to-stderr"


@pytest.mark.bwrap
def test_the_sandbox_has_a_private_tmp(run_hook: HookRunner, workspace: Path,
                                       tmp_path: Path) -> None:
    marker = Path("/tmp") / f"clawgate-hook-sandbox-{os.getpid()}"
    marker.write_text("host\n")
    try:
        new = updated(run_hook(["claude-code", "--sandbox"],
                               claude(workspace, f"cat {marker} || echo unseen")))
        done = as_the_agent(new["command"], workspace)
        on_the_host = as_the_agent(f"cat {marker} || echo unseen", workspace)
    finally:
        marker.unlink()
    assert (done.returncode, done.stdout) == (0, "unseen\n")
    assert on_the_host.stdout == "host\n"


@pytest.mark.parametrize(("line", "outcome"), [
    ("deploy-prod --now", "deny"),
    ("rm -rf /", "deny"),
    ("publish-release v1", "ask"),
])
def test_deny_and_ask_answers_are_not_rewritten(run_hook: HookRunner, workspace: Path,
                                                policy_file: Path, line: str,
                                                outcome: str) -> None:
    for agent, payload in (("claude-code", claude(workspace, line)),
                           ("gemini", gemini(workspace, line))):
        answer = run_hook([agent, "--sandbox", "--policy", str(policy_file)], payload)
        if agent == "claude-code":
            assert answer["hookSpecificOutput"]["permissionDecision"] == outcome
            assert "updatedInput" not in answer["hookSpecificOutput"]
        else:  # Gemini CLI hooks cannot ask: an ASK is a deny there
            assert answer["decision"] == "deny"
            assert "hookSpecificOutput" not in answer


def test_other_tools_and_hooks_without_sandbox_are_not_rewritten(
        run_hook: HookRunner, workspace: Path) -> None:
    read = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(workspace),
            "tool_name": "Read", "tool_input": {"file_path": str(workspace / "notes.txt")}}
    assert "updatedInput" not in run_hook(["claude-code", "--sandbox"],
                                          read)["hookSpecificOutput"]
    plain = run_hook(["claude-code"], claude(workspace, "ls"))["hookSpecificOutput"]
    assert plain["permissionDecision"] == "allow"
    assert "updatedInput" not in plain


def test_an_ask_the_hook_settles_itself_is_run_without_asking_again(
        run_hook: HookRunner, workspace: Path, policy_file: Path, tmp_path: Path) -> None:
    trusted = tmp_path / "trusted.yaml"
    trusted.write_text("version: 1\nhooks:\n  trusted: true\n")
    new = updated(run_hook(["claude-code", "--sandbox", "--policy", str(policy_file),
                            "--policy", str(trusted)], claude(workspace, "publish-release v1")))
    words = shlex.split(new["command"])
    assert "--yes" in words[:words.index("--")]
    assert words[-1] == "publish-release v1"


@pytest.mark.bwrap
def test_gemini_gets_the_rewrite_as_tool_input(run_hook: HookRunner, workspace: Path) -> None:
    answer = run_hook(["gemini", "--sandbox"],
                      gemini(workspace, "pwd; exit 3", dir_path="src", description="where"))
    assert answer["decision"] == "allow"
    new = answer["hookSpecificOutput"]["tool_input"]
    assert (new["dir_path"], new["description"]) == ("src", "where")
    done = as_the_agent(new["command"], workspace / "src")
    assert (done.returncode, done.stdout) == (3, f"{workspace / 'src'}\n")


@pytest.mark.parametrize(("tool", "tool_input", "seconds"), [
    ("Bash", {"timeout": 60000}, 60.0),
    ("Bash", {"timeout": 9_000_000}, 300.0),  # capped at the policy's executor.max_timeout_s
    ("Bash", {"timeout": 0}, None),
    ("Bash", {"timeout": "600000"}, None),
    ("Bash", {"timeout": True}, None),
    ("Bash", {}, None),
    ("run_shell_command", {"timeout": 60000}, None),  # Gemini CLI's tool has no timeout
])
def test_the_agents_own_timeout_is_kept_within_the_policy(
        tool: str, tool_input: dict[str, Any], seconds: float | None) -> None:
    assert agent_timeout(tool, tool_input, 300.0) == seconds


# The quoting: the line reaches `policy run` as one argument, byte for byte, whatever it holds.
LAST_ARGUMENT = ["bash", "-c", 'printf %s "${@: -1}"', "argv0"]


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab '\"$\\\n\t`;&|(){}*?!#~=%", max_size=40))
def test_any_line_reaches_policy_run_exactly_as_written(line: str) -> None:
    command = sandboxed_command(line, root="/w s", cwd="/w s/d'q", program=LAST_ARGUMENT)
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                          timeout=HANG_GUARD_S, check=True)
    assert done.stdout == line


@pytest.mark.bwrap
def test_a_line_with_quotes_dollars_newlines_and_backslashes_runs_as_written(
        run_hook: HookRunner, workspace: Path) -> None:
    line = "printf '%s|' \"it's\" '$HOME' 'a\\nb' \"x\\\\y\"\nprintf 'two\\n'"
    new = updated(run_hook(["claude-code", "--sandbox"], claude(workspace, line)))
    done = as_the_agent(new["command"], workspace)
    direct = as_the_agent(line, workspace)
    assert (done.returncode, done.stdout) == (0, "it's|$HOME|a\\nb|x\\y|two\n")
    assert done.stdout == direct.stdout


def test_no_sandbox_means_nothing_runs(workspace: Path) -> None:
    """`policy run --sandboxed` where bubblewrap cannot be found: exit 1, said, not run."""
    env = {**os.environ, "PATH": "/nonexistent"}
    done = subprocess.run([sys.executable, "-m", "clawgate", "run", "--sandboxed", "--",
                           "echo ran > ran.txt"], cwd=workspace, env=env, capture_output=True,
                          text=True, timeout=HANG_GUARD_S, check=False)
    assert done.returncode == 1
    assert "--sandboxed: no bwrap sandbox works here" in done.stderr
    assert "nothing was run" in done.stderr
    assert not (workspace / "ran.txt").exists()


def test_the_host_is_not_a_sandbox(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--sandboxed", "--executor", "host", "--workspace", str(workspace),
                 "--", "true"]) == 2
    assert "--executor host --sandboxed: the host is not a sandbox" in capsys.readouterr().err


def test_install_writes_the_sandbox_option_and_undo_removes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "p"
    project.mkdir()
    for agent, settings_file, event in (("claude-code", ".claude/settings.json", "PreToolUse"),
                                        ("gemini", ".gemini/settings.json", "BeforeTool")):
        assert main(["hook", "install", agent, "--sandbox", "--write",
                     "--project", str(project)]) == 0
        written = json.loads((project / settings_file).read_text())
        command = written["hooks"][event][0]["hooks"][0]["command"]
        inner = shlex.split(command.removeprefix("out=$(").split(")", 1)[0])
        assert inner == [sys.executable, "-P", MAIN, "hook", agent, "--sandbox"]
        assert main(["init", agent, "--undo", "--project", str(project)]) == 0
        assert "hooks" not in json.loads((project / settings_file).read_text())
    capsys.readouterr()

