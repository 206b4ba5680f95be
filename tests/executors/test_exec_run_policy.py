"""``policy run`` takes its executor and timeouts from the layered policy; flags stay within it;
usage errors exit 2 with one line; in Docker, ``/workspace`` is the workspace for the checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawgate.cli import main
from clawgate.cli.run import executor_plan


def manifest(tmp_path: Path, text: str) -> str:
    path = tmp_path / "run-policy.yaml"
    path.write_text("version: 1\n" + text)
    return str(path)


def run(workspace: Path, *args: str) -> int:
    return main(["run", "--workspace", str(workspace), *args])


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


# the host as root may write /usr; bubblewrap mounts it read-only
WHERE = "test -w /usr && echo host || echo sandboxed"


@pytest.mark.bwrap
def test_without_a_policy_kind_it_runs_in_bubblewrap_where_that_works(
        workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(workspace, "--", WHERE) == 0
    assert capsys.readouterr().out == "sandboxed\n"


def test_kind_host_written_out_runs_on_the_host_without_a_word(
        tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = manifest(tmp_path, "executor: {kind: host}\n")
    assert run(workspace, "--policy", policy, "--", WHERE) == 0
    out, err = capsys.readouterr()
    assert (out, err) == ("host\n", "")


@pytest.mark.bwrap
def test_the_policy_kind_bwrap_is_applied(
        tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = manifest(tmp_path, "executor: {kind: bwrap}\n")
    assert run(workspace, "--policy", policy, "--", WHERE) == 0
    assert capsys.readouterr().out == "sandboxed\n"


@pytest.mark.docker
def test_the_policy_kind_docker_is_applied(
        tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = manifest(tmp_path, "executor: {kind: docker}\n")
    assert run(workspace, "--policy", policy, "--", "pwd") == 0
    assert capsys.readouterr().out == "/workspace\n"


@pytest.mark.parametrize("kind", ["bwrap", "docker", "auto"])
def test_a_flag_cannot_pick_less_isolation_than_the_policy(
        tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    policy = manifest(tmp_path, f"executor: {{kind: {kind}}}\n")
    code = run(workspace, "--policy", policy, "--executor", "host", "--", "touch ran.txt")
    assert code == 2
    assert f"the policy runs commands in {kind}" in one_line(capsys.readouterr().err)
    assert not (workspace / "ran.txt").exists()


def test_the_policy_timeout_applies_and_is_the_one_reported(
        tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = manifest(tmp_path, "executor: {timeout_s: 0.3}\n")
    assert run(workspace, "--policy", policy, "--", "sleep 30") == 124
    assert "timed out after 0.3 s" in capsys.readouterr().err


def test_the_timeout_flag_overrides_within_the_maximum(
        tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = manifest(tmp_path, "executor: {timeout_s: 20, max_timeout_s: 25}\n")
    assert run(workspace, "--policy", policy, "--timeout", "0.2", "--", "sleep 30") == 124
    assert "timed out after 0.2 s" in capsys.readouterr().err


def test_a_timeout_flag_above_the_policy_maximum_is_refused(
        tmp_path: Path, workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = manifest(tmp_path, "executor: {timeout_s: 1, max_timeout_s: 2}\n")
    assert run(workspace, "--policy", policy, "--timeout", "5", "--", "touch ran.txt") == 2
    assert "executor.max_timeout_s (2 s)" in one_line(capsys.readouterr().err)
    assert not (workspace / "ran.txt").exists()


@pytest.mark.parametrize("value", ["0", "-1", "nan"])
def test_a_timeout_that_is_not_positive_is_a_usage_error(
        workspace: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    assert run(workspace, "--timeout", value, "--", "touch ran.txt") == 2
    assert "--timeout" in one_line(capsys.readouterr().err)
    assert not (workspace / "ran.txt").exists()


@pytest.mark.parametrize(("cwd", "problem"), [("missing", "not a directory"),
                                              ("..", "outside the workspace")])
def test_a_bad_cwd_is_a_usage_error(workspace: Path, capsys: pytest.CaptureFixture[str],
                                    cwd: str, problem: str) -> None:
    assert run(workspace, "--cwd", cwd, "--", "touch ran.txt") == 2
    assert problem in one_line(capsys.readouterr().err)


def test_the_policy_workspace_is_the_default_workspace(
        tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    policy = manifest(tmp_path, f"workspace: {workspace}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--policy", policy, "--", "pwd"]) == 0
    assert capsys.readouterr().out == f"{workspace}\n"


def test_on_the_host_a_write_to_slash_workspace_is_outside(
        workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(workspace, "--json", "--", "touch /workspace/made.txt") == 3
    decision = json.loads(capsys.readouterr().out)["decision"]
    assert "CG-FS-001" in {r["rule_id"] for r in decision["reasons"]}


@pytest.mark.docker
def test_in_docker_slash_workspace_is_the_workspace(
        workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "sub").mkdir()
    code = run(workspace, "--json", "--executor", "docker", "--cwd", "sub", "--",
               "touch /workspace/made.txt && touch here.txt && pwd")
    value = json.loads(capsys.readouterr().out)
    assert value["decision"]["outcome"] == "allow"
    assert code == 0
    assert value["result"]["stdout"] == "/workspace/sub\n"
    assert (workspace / "made.txt").exists()
    assert (workspace / "sub" / "here.txt").exists()


def test_network_flag_is_said_out_loud(capsys: pytest.CaptureFixture[str]) -> None:
    section = {"kind": "bwrap", "timeout_s": 30, "max_timeout_s": 300,
               "docker": {"network": "none"}}
    settings, _ = executor_plan(section, None, None, True, None)
    assert settings["share_network"] is True
    assert "may reach the network" in capsys.readouterr().err
