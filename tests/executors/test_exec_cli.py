"""``policy run``: decide first, then run on the chosen executor; exit codes and JSON."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from clawgate.cli import main
from clawgate.cli import run as run_module
from clawgate.engine import Engine

DENIED = "touch ran.txt; echo 'unterminated"
ASKED = "git push --force origin main"  # the default policy asks; no repository here


def outcome_of(line: str) -> str:
    return Engine.from_files().check(line).outcome.label


@pytest.fixture(autouse=True)
def _preconditions() -> None:
    """The tests lean on the core engine's opinion of two lines; say so if it changes."""
    assert outcome_of(DENIED) == "deny"
    assert outcome_of(ASKED) == "ask"


def test_allowed_command_runs_and_exits_with_its_code(
        workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--workspace", str(workspace), "--", "echo hi; echo oops >&2; exit 5"])
    out, err = capsys.readouterr()
    assert code == 5
    assert out == "hi\n"
    assert "oops" in err


def test_several_arguments_are_quoted_and_joined(
        workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--workspace", str(workspace), "--", "printf", "%s|", "a b", "c"]) == 0
    assert capsys.readouterr().out == "a b|c|"


def test_json_output(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--json", "--workspace", str(workspace), "--", "touch made.txt"])
    value = json.loads(capsys.readouterr().out)
    assert code == 0
    assert value["decision"]["outcome"] == "allow"
    assert set(value["result"]) == {"exit_code", "stdout", "stderr", "duration_ms",
                                    "timed_out", "truncated"}
    assert value["result"]["exit_code"] == 0
    assert (workspace / "made.txt").exists()


def test_deny_exits_4_without_running(workspace: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--json", "--workspace", str(workspace), "--", DENIED])
    value = json.loads(capsys.readouterr().out)
    assert code == 4
    assert value["decision"]["outcome"] == "deny"
    assert value["result"] is None
    assert not (workspace / "ran.txt").exists()


def test_ask_without_a_terminal_is_not_run(workspace: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--workspace", str(workspace), "--", ASKED])
    assert code == 3
    assert "--yes" in capsys.readouterr().err


def test_ask_with_yes_runs(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--yes", "--json", "--workspace", str(workspace), "--", ASKED])
    value = json.loads(capsys.readouterr().out)
    assert value["decision"]["outcome"] == "ask"
    assert code == value["result"]["exit_code"] == 128  # git: not a repository


@pytest.mark.parametrize(("answer", "expected"), [("y\n", 128), ("n\n", 4)])
def test_ask_on_a_terminal_asks(workspace: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str], answer: str,
                                expected: int) -> None:
    monkeypatch.setattr(run_module, "_on_terminal", lambda: True)
    monkeypatch.setattr("sys.stdin", io.StringIO(answer))
    assert main(["run", "--workspace", str(workspace), "--", ASKED]) == expected
    assert "Run it?" in capsys.readouterr().err


def test_timeout_exits_124(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--timeout", "0.2", "--workspace", str(workspace), "--", "sleep 5"])
    assert code == 124
    assert "timed out" in capsys.readouterr().err


def test_missing_sandbox_is_an_error_not_a_host_run(
        workspace: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:9")
    code = main(["run", "--json", "--executor", "docker", "--workspace", str(workspace), "--",
                 "touch made.txt"])
    value = json.loads(capsys.readouterr().out)
    assert code == 1
    assert "no Docker engine" in value["error"]
    assert value["result"] is None
    assert not (workspace / "made.txt").exists()


@pytest.mark.bwrap
def test_run_in_bwrap(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a write outside the workspace asks; --yes approves it, and the sandbox still refuses it
    code = main(["run", "--yes", "--executor", "bwrap", "--workspace", str(workspace), "--",
                 "touch /usr/x 2>/dev/null || echo sandboxed"])
    assert code == 0
    assert capsys.readouterr().out == "sandboxed\n"


@pytest.mark.docker
def test_run_in_docker(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--executor", "docker", "--workspace", str(workspace), "--", "pwd"])
    assert code == 0
    assert capsys.readouterr().out == "/workspace\n"
