"""`policy hook install`: the settings entry printed, or merged into the project's settings."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from clawgate.cli import main


def test_prints_the_claude_code_entry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hook", "install", "claude-code"]) == 0
    assert json.loads(capsys.readouterr().out) == {"hooks": {"PreToolUse": [
        {"matcher": "*", "hooks": [{"type": "command", "command": "policy hook claude-code"}]}]}}


def test_prints_the_gemini_entry_with_a_policy(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    policy = tmp_path / "my policy.yaml"
    assert main(["hook", "install", "gemini", "--policy", str(policy)]) == 0
    command = f"policy hook gemini --policy '{policy}'"
    assert json.loads(capsys.readouterr().out) == {"hooks": {"BeforeTool": [
        {"matcher": ".*", "hooks": [{"type": "command", "command": command}]}]}}


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
        {"matcher": "*", "hooks": [{"type": "command", "command": "policy hook claude-code"}]}]
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert [p.name for p in settings.parent.iterdir()] == ["settings.json"]


def test_write_creates_the_gemini_settings(tmp_path: Path) -> None:
    assert main(["hook", "install", "gemini", "--write", "--project", str(tmp_path)]) == 0
    written = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    assert written["hooks"]["BeforeTool"][0]["hooks"][0]["command"] == "policy hook gemini"


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
