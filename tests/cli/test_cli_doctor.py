"""``policy doctor``: each check against the real thing — hook commands run as the client runs
them, bubblewrap, a real HTTP server on 127.0.0.1 for ``--server`` — and its exit codes."""

from __future__ import annotations

import json
import shlex
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from clawgate.cli import main
from clawgate.cli.exitcodes import ExitCode
from clawgate.doctor import examine, hook_findings, policy_finding, server_finding
from clawgate.integrations.install import TARGETS, install

POLICY = Path(sys.executable).with_name("policy")


def _project(tmp_path: Path, command: str | None, agent: str = "claude-code") -> Path:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    if command is not None:
        install(project, agent, command)
    return project


@pytest.mark.parametrize("agent", list(TARGETS))
def test_a_hook_by_absolute_path_passes(agent: str, tmp_path: Path) -> None:
    assert POLICY.is_file()
    project = _project(tmp_path, shlex.join([str(POLICY), "hook", agent]), agent)
    (finding,) = hook_findings(project, agent)
    assert finding.status == "ok", finding


def test_a_bare_policy_off_path_fails_with_the_reason(tmp_path: Path) -> None:
    project = _project(tmp_path, "policy-not-installed-here hook claude-code")
    (finding,) = hook_findings(project, "claude-code")
    assert finding.status == "failed"
    assert "exit 127 (read as not blocked)" in finding.detail
    assert "policy hook install claude-code --write" in (finding.fix or "")


@pytest.mark.parametrize(("command", "said"), [
    ("true hook claude-code", "no decision on stdout"),
    ("cat >/dev/null; echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"allow\"}}'"
     " # hook claude-code", "rm -rf /: allow, wanted block"),
])
def test_hooks_that_do_not_block_fail(command: str, said: str, tmp_path: Path) -> None:
    (finding,) = hook_findings(_project(tmp_path, command), "claude-code")
    assert finding.status == "failed"
    assert said in finding.detail


def test_no_hook_is_information_with_the_command_to_install(tmp_path: Path) -> None:
    (finding,) = hook_findings(_project(tmp_path, None), "gemini")
    assert (finding.status, finding.fix) == ("info", "policy hook install gemini --write")


def test_unreadable_settings_fail(tmp_path: Path) -> None:
    project = _project(tmp_path, None)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("[1, 2]")
    (finding,) = hook_findings(project, "claude-code")
    assert finding.status == "failed"
    assert "not a JSON object" in finding.detail


def test_a_broken_project_policy_fails(tmp_path: Path) -> None:
    project = _project(tmp_path, None)
    (project / ".clawgate.yaml").write_text("version: 1\nautonomy: yolo\n")
    finding = policy_finding(project)
    assert finding.status == "failed"
    assert ".clawgate.yaml" in finding.detail


class _Health(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/healthz" else 404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def health_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_server_that_answers_passes(health_server: str) -> None:
    assert server_finding(health_server).status == "ok"


def test_a_server_that_is_not_there_fails(health_server: str) -> None:
    finding = server_finding(health_server + "/nothing/")
    assert finding.status == "failed"
    assert "HTTP 404" in finding.detail or "404" in finding.detail


@pytest.mark.bwrap
def test_the_whole_run_and_its_exit_code(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path, shlex.join([str(POLICY), "hook", "claude-code"]))
    assert main(["doctor", "--project", str(project), "--json"]) == ExitCode.OK
    found = {f["check"]: f["status"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert found == {"policy": "ok", "claude-code hook": "ok", "gemini hook": "info",
                     "sandbox": "ok", "decider": "info"}
    install(project, "gemini", "true hook gemini")
    assert main(["doctor", "--project", str(project)]) == ExitCode.DENY
    assert "gemini hook: failed" in capsys.readouterr().out
    assert [f.check for f in examine(project)] == [
        "policy", "claude-code hook", "gemini hook", "sandbox", "decider"]
