"""A sandbox by default where the machine has one: ``kind: auto`` (the embedded default) is
bubblewrap when ``bwrap`` works, else the host with one warning line; ``kind: host`` written
out stays on the host without a word. Closing the Guard closes its executor: the warm Docker
container goes."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clawgate.approval import ApprovalStore
from clawgate.errors import SandboxUnavailable
from clawgate.executors import BwrapExecutor, HostExecutor
from clawgate.guard import Guard

WHERE = "test -w /usr && echo host || echo sandboxed"  # root on the host may write /usr
LOGGER = "clawgate.executors"


def guard_for(tmp_path: Path, text: str = "") -> Guard:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    manifests = []
    if text:
        manifests.append(tmp_path / "policy.yaml")
        manifests[0].write_text("version: 1\n" + text)
    return Guard.from_files(*manifests, workspace=workspace,
                            approval_store=ApprovalStore(workspace, state_dir=tmp_path / "st"))


@pytest.fixture
def broken_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``bwrap`` first on PATH that cannot make its sandbox (user namespaces disabled)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return folder


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == LOGGER]


@pytest.mark.bwrap
def test_the_default_runs_commands_in_bubblewrap_without_a_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER), guard_for(tmp_path) as guard:
        assert isinstance(guard.executor, BwrapExecutor)
        assert guard.call("exec_shell", {"command": WHERE})["stdout"] == "sandboxed\n"
    assert warnings_of(caplog) == []


def test_kind_host_written_out_stays_on_the_host_without_a_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER), \
            guard_for(tmp_path, "executor: {kind: host}\n") as guard:
        assert isinstance(guard.executor, HostExecutor)
        assert guard.call("exec_shell", {"command": WHERE})["stdout"] == "host\n"
    assert warnings_of(caplog) == []


@pytest.mark.usefixtures("broken_bwrap")
def test_without_a_working_bwrap_the_default_warns_once_and_runs_on_the_host(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER), guard_for(tmp_path) as guard:
        assert isinstance(guard.executor, HostExecutor)
        assert guard.call("exec_shell", {"command": "echo hi"})["stdout"] == "hi\n"
    [record] = warnings_of(caplog)
    assert record.levelno == logging.WARNING
    message = record.getMessage()
    assert "\n" not in message
    assert "No permissions to creating new namespace" in message
    assert "commands run on the host" in message


@pytest.mark.usefixtures("broken_bwrap")
def test_without_a_working_bwrap_kind_bwrap_is_still_an_error(tmp_path: Path) -> None:
    with pytest.raises(SandboxUnavailable, match="cannot create its sandbox"):
        guard_for(tmp_path, "executor: {kind: bwrap}\n")


def test_policy_run_prints_the_warning_as_one_line_on_stderr(
        tmp_path: Path, broken_bwrap: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {**os.environ, "CLAWGATE_STATE_HOME": str(tmp_path / "state"),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from clawgate.cli import main; sys.exit(main())",
         "run", "--workspace", str(workspace), "--", "echo hi"],
        capture_output=True, text=True, env=env, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (0, "hi\n"), done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("clawgate: no working bubblewrap here")


@pytest.mark.docker
def test_closing_the_guard_removes_its_warm_container(tmp_path: Path) -> None:
    import docker

    client = docker.from_env()
    guard = guard_for(tmp_path, "executor: {kind: docker}\n")
    with guard:
        assert guard.call("exec_shell", {"command": "echo hi"})["stdout"] == "hi\n"
        ids = [c.id for c in client.containers.list(filters={
            "label": "org.clawgate.sandbox=docker"}) if any(
            m.get("Source") == str((tmp_path / "ws").resolve()) for m in c.attrs["Mounts"])]
        assert len(ids) == 1
    with pytest.raises(docker.errors.NotFound):
        client.containers.get(ids[0])
    guard.close()  # again: nothing left to close
    client.close()
