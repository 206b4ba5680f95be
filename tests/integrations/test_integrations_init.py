"""``policy init``: a working, fail-closed set-up in one step (checked by running the written
hook as its client runs it, and by ``policy doctor``), and undone in one step."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from clawgate.cli import main
from clawgate.cli.exitcodes import ExitCode
from clawgate.doctor import hook_findings, policy_finding
from clawgate.integrations.init import STARTER
from clawgate.policy.lint import lint_file


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return project


@pytest.mark.parametrize("agent", ["claude-code", "gemini"])
def test_init_writes_a_hook_that_works_and_fails_closed(
        agent: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    assert main(["init", agent, "--project", str(project)]) == ExitCode.OK
    said = capsys.readouterr().out
    assert "wrote a starter project policy" in said
    assert f"undo it: policy init {agent} --undo" in said
    (finding,) = hook_findings(project, agent)
    assert finding.status == "ok", finding  # allows, blocks, fails closed, needs no PATH
    assert policy_finding(project).status == "ok"
    assert lint_file(str(project / ".clawgate.yaml")) == []


def test_init_twice_changes_nothing_and_keeps_an_edited_policy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    main(["init", "claude-code", "--project", str(project)])
    settings = (project / ".claude" / "settings.json").read_text()
    (project / ".clawgate.yaml").write_text(STARTER + "# mine\n")
    capsys.readouterr()
    assert main(["init", "claude-code", "--project", str(project)]) == ExitCode.OK
    said = capsys.readouterr().out
    assert "already had the PreToolUse hook" in said
    assert "kept (a project policy is there already)" in said
    assert (project / ".claude" / "settings.json").read_text() == settings


def test_undo_removes_what_init_wrote_and_only_that(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / ".claude").mkdir()
    theirs = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "their-own-hook"}]}]}, "model": "x"}
    (project / ".claude" / "settings.json").write_text(json.dumps(theirs))
    main(["init", "claude-code", "--project", str(project)])
    assert main(["init", "claude-code", "--undo", "--project", str(project)]) == ExitCode.OK
    assert json.loads((project / ".claude" / "settings.json").read_text()) == theirs
    assert not (project / ".clawgate.yaml").exists()


def test_undo_leaves_an_edited_policy(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    main(["init", "gemini", "--project", str(project)])
    (project / ".clawgate.yaml").write_text(STARTER + "# edited\n")
    main(["init", "gemini", "--undo", "--project", str(project)])
    assert (project / ".clawgate.yaml").exists()
    assert "left in place" in capsys.readouterr().out
    assert json.loads((project / ".gemini" / "settings.json").read_text()) == {}


def test_init_mcp_proxy_writes_the_server_behind_the_proxy(tmp_path: Path) -> None:
    project = _project(tmp_path)
    server = ["python3", "notes_server.py"]
    assert main(["init", "mcp-proxy", "--name", "notes", "--project", str(project), "--",
                 *server]) == ExitCode.OK
    config = json.loads((project / ".mcp.json").read_text())
    assert config["mcpServers"]["notes"] == {
        "command": sys.executable,
        "args": ["-P", "-m", "clawgate", "mcp-proxy", "--name", "notes", "--", *server]}
    assert main(["init", "mcp-proxy", "--name", "notes", "--undo", "--project",
                 str(project)]) == ExitCode.OK
    assert json.loads((project / ".mcp.json").read_text()) == {"mcpServers": {}}


def test_init_mcp_proxy_never_replaces_someone_s_server(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"notes": {"command": "x"}}}))
    assert main(["init", "mcp-proxy", "--name", "notes", "--project", str(project), "--",
                 "srv"]) == ExitCode.USAGE
    assert json.loads((project / ".mcp.json").read_text()) == {
        "mcpServers": {"notes": {"command": "x"}}}


def test_init_serve_makes_a_team_policy_and_tokens_that_resolve(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from clawgate.serve import default_database, tokens
    from clawgate.serve.db import connect

    project = _project(tmp_path)
    assert main(["init", "serve", "--project", str(project), "--approver", "alice",
                 "--agent", "ci-bot"]) == ExitCode.OK
    said = capsys.readouterr().out
    made = [line.rsplit(": ", 1)[1] for line in said.splitlines() if "token for" in line]
    assert len(made) == 2
    engine = connect(default_database())
    approver, agent = (tokens.resolve(engine, token) for token in made)
    assert approver is not None and agent is not None
    assert (approver.role, approver.agent) == ("approver", "alice")
    assert (agent.role, agent.agent) == ("agent", "ci-bot")
    assert lint_file(str(project / "clawgate-team.yaml")) == []
    assert f"policy serve --policy {project / 'clawgate-team.yaml'}" in said
