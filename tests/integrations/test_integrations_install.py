"""`policy hook install`: the settings entry printed, or merged into the project's settings."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import clawgate
from clawgate.cli import main
from clawgate.integrations.install import fail_closed, hook_command, is_ours

# The Python running the install and the package's __main__.py, by absolute path
HERE = shlex.join([sys.executable, "-P", str(Path(clawgate.__file__).with_name("__main__.py"))])


def claude_hook(command: str) -> dict[str, object]:
    return {"type": "command", "command": fail_closed(command), "timeout": 330}


def test_prints_the_claude_code_entry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hook", "install", "claude-code"]) == 0
    assert json.loads(capsys.readouterr().out) == {"hooks": {"PreToolUse": [
        {"matcher": "*", "hooks": [claude_hook(f"{HERE} hook claude-code")]}]}}


def test_prints_the_gemini_entry_with_a_policy(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    policy = tmp_path / "my policy.yaml"
    assert main(["hook", "install", "gemini", "--policy", str(policy)]) == 0
    command = fail_closed(f"{HERE} hook gemini --policy '{policy}'")
    assert json.loads(capsys.readouterr().out) == {"hooks": {"BeforeTool": [
        {"matcher": ".*", "hooks": [{"type": "command", "command": command,
                                     "timeout": 330_000}]}]}}


def test_a_program_is_named_by_absolute_path_and_a_longer_deadline_raises_the_timeout(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["hook", "install", "claude-code", "--program", "sh", "--deadline",
                 "900"]) == 0
    hook = json.loads(capsys.readouterr().out)["hooks"]["PreToolUse"][0]["hooks"][0]
    program = shlex.split(hook["command"].removeprefix("out=$(").split(")", 1)[0])[0]
    assert os.path.isabs(program) and os.path.basename(program) == "sh"
    assert "--deadline 900" in hook["command"]
    assert hook["timeout"] == 930
    assert main(["hook", "install", "claude-code", "--program", "no-such-clawgate-x"]) == 2
    assert "'no-such-clawgate-x' is not on PATH" in capsys.readouterr().err


def test_write_merges_keeps_other_keys_and_does_not_duplicate(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    existing = {"model": "opus", "permissions": {"allow": ["Bash(ls:*)"]},
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "./lint.sh"}]}],
                          "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}
    settings.write_text(json.dumps(existing))
    os.chmod(settings, 0o600)
    for _ in range(2):
        assert main(["hook", "install", "claude-code", "--write", "--project",
                     str(tmp_path)]) == 0
    merged = json.loads(settings.read_text())
    assert merged["model"] == "opus"
    assert merged["permissions"] == existing["permissions"]
    assert merged["hooks"]["Stop"] == existing["hooks"]["Stop"]
    assert merged["hooks"]["PreToolUse"] == [
        existing["hooks"]["PreToolUse"][0],
        {"matcher": "*", "hooks": [claude_hook(f"{HERE} hook claude-code")]}]
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert [p.name for p in settings.parent.iterdir()] == ["settings.json"]


def test_write_creates_the_gemini_settings(tmp_path: Path) -> None:
    assert main(["hook", "install", "gemini", "--write", "--project", str(tmp_path)]) == 0
    written = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    assert written["hooks"]["BeforeTool"][0]["hooks"][0]["command"] == fail_closed(
        f"{HERE} hook gemini")


@pytest.mark.parametrize(("content", "why"), [
    ("{not json", "not JSON"), ("[1]", "not a JSON object"),
    ('{"hooks": []}', "'hooks' is not an object"),
    ('{"hooks": {"PreToolUse": {}}}', "'hooks.PreToolUse' is not a list"),
    ('{"hooks": {"PreToolUse": [{"matcher": "*"}]}}', "has no 'hooks' list")])
def test_a_settings_file_it_cannot_read_is_left_alone(tmp_path: Path, content: str, why: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(content)
    assert main(["hook", "install", "claude-code", "--write", "--project", str(tmp_path)]) == 2
    assert settings.read_text() == content
    assert why in capsys.readouterr().err


@pytest.mark.parametrize(("command", "expected"), [
    (f"{HERE} hook claude-code", True),
    (fail_closed(f"{HERE} hook claude-code --deadline 60"), True),
    (f"{shlex.quote(sys.executable)} -P -m clawgate hook claude-code", True),  # earlier form
    (f"{shlex.quote(sys.executable)} -m clawgate hook claude-code", True),
    ("/usr/local/bin/policy hook claude-code", True),
    (f"{HERE} hook gemini", False),
    (f"{shlex.quote(sys.executable)} -P /tmp/other/__main__.py hook claude-code", False),
    (f"{shlex.quote(sys.executable)} -P clawgate/__main__.py hook claude-code", False),
    (f"{shlex.quote(sys.executable)} /abs/clawgate/__main__.py hook claude-code", False),
])
def test_which_commands_are_clawgates_hook(command: str, expected: bool) -> None:
    assert is_ours(command, "claude-code") is expected


def test_the_installed_command_starts_without_the_module_runner(tmp_path: Path) -> None:
    """The hook an agent runs starts clawgate as a script: ``-m``'s runner (``runpy`` and the
    importlib modules it loads) would add about half a bare start-up to every hook call."""
    words = shlex.split(hook_command("claude-code").removeprefix("out=$(").split(")", 1)[0])
    assert words[:2] == [sys.executable, "-P"]
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/",
                          "session_id": "s", "tool_input": {"command": "rm -rf /"}})
    env = {**os.environ, "CLAWGATE_STATE_HOME": str(tmp_path), "CLAWGATE_NO_DAEMON": "1"}
    done = subprocess.run([words[0], "-X", "importtime", *words[1:]], input=payload.encode(),
                          env=env, cwd=tmp_path, capture_output=True, check=False, timeout=300)
    assert done.returncode == 0
    said = json.loads(done.stdout)["hookSpecificOutput"]
    assert said["permissionDecision"] == "deny"
    assert b"| runpy" not in done.stderr
