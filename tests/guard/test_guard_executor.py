"""The Guard runs commands with the policy's executor settings, reports the timeout that applied,
and, on Docker, judges ``/workspace`` as the workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawgate.approval import ApprovalStore
from clawgate.errors import SandboxUnavailable, ToolError, ToolErrorKind
from clawgate.executors import DockerExecutor, DockerSettings, HostExecutor, SpawnLimiter
from clawgate.guard import Guard
from clawgate.guard_setup import ContainerEngine
from clawgate.policy.loader import load_policy

IMAGE = "clawgate-sandbox:busybox"


def guard_for(tmp_path: Path, text: str, **kwargs: object) -> Guard:
    path = tmp_path / "guard-policy.yaml"
    path.write_text("version: 1\n" + text)
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    kwargs.setdefault("approval_store", ApprovalStore(workspace, state_dir=tmp_path / "state"))
    return Guard.from_files(path, workspace=workspace, **kwargs)


def timeout_message(guard: Guard, args: dict[str, object]) -> str:
    with pytest.raises(ToolError) as caught:
        guard.call("exec_shell", args)
    assert caught.value.kind is ToolErrorKind.TIMEOUT
    return caught.value.message


def test_the_policy_timeout_is_the_default_for_a_call(tmp_path: Path) -> None:
    guard = guard_for(tmp_path, "executor: {kind: host, timeout_s: 0.3}\n")
    assert isinstance(guard.executor, HostExecutor)
    assert timeout_message(guard, {"command": "sleep 30"}) == \
        "the command timed out after 0.3 s"


def test_the_maximum_clamps_a_call_and_the_message_says_so(tmp_path: Path) -> None:
    guard = guard_for(tmp_path, "executor: {timeout_s: 0.2, max_timeout_s: 0.4}\n")
    assert timeout_message(guard, {"command": "sleep 30", "timeout": 30}) == \
        "the command timed out after 0.4 s"


def test_a_custom_tool_without_its_own_timeout_takes_the_policy_one(tmp_path: Path) -> None:
    guard = guard_for(tmp_path, "executor: {timeout_s: 0.3}\n"
                      "tools: {custom: {nap: {command: 'sleep 30'}}}\n")
    with pytest.raises(ToolError) as caught:
        guard.call("nap", {})
    assert caught.value.message == "the command timed out after 0.3 s"


@pytest.mark.bwrap
def test_the_policy_kind_picks_the_executor(tmp_path: Path) -> None:
    guard = guard_for(tmp_path, "executor: {kind: bwrap}\n")
    assert type(guard.executor).__name__ == "BwrapExecutor"
    result = guard.call("exec_shell", {"command": "test -w /usr && echo host || echo sandboxed"})
    assert result["stdout"] == "sandboxed\n"


def test_container_engine_reads_host_paths_as_the_container_sees_them(tmp_path: Path) -> None:
    root = str(tmp_path / "ws")
    engine = ContainerEngine(load_policy().engine_settings(), root, "/workspace")
    assert engine.inside(None) == "/workspace"
    assert engine.inside(root) == "/workspace"
    assert engine.inside(os.path.join(root, "src")) == "/workspace/src"
    assert engine.inside("/elsewhere") == "/elsewhere"
    assert engine.check("touch /workspace/x", cwd=root).outcome.label == "allow"
    assert engine.check("touch /etc/x", cwd=root).outcome.label != "allow"


@pytest.fixture
def docker_guard(tmp_path: Path) -> Guard:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    try:
        executor = DockerExecutor(DockerSettings(image=IMAGE), workspace=workspace,
                                  limiter=SpawnLimiter(5))
    except SandboxUnavailable as exc:
        if os.environ.get("CLAWGATE_REQUIRE_DOCKER") == "1":
            pytest.fail(f"CLAWGATE_REQUIRE_DOCKER=1 but docker is unavailable: {exc}")
        pytest.skip(f"docker unavailable: {exc}")
    return Guard.from_files(workspace=workspace, executor=executor,
                            approval_store=ApprovalStore(workspace, state_dir=tmp_path / "st"))


def test_docker_guard_takes_slash_workspace_as_the_workspace(
        docker_guard: Guard, tmp_path: Path) -> None:
    try:
        decision = docker_guard.check("exec_shell", {"command": "echo hi > /workspace/x"})
        assert decision.outcome.label == "allow", decision.reasons
        result = docker_guard.call("exec_shell", {"command": "echo hi > /workspace/x; cat x"})
        assert result["stdout"] == "hi\n"
        assert (tmp_path / "ws" / "x").read_text() == "hi\n"
    finally:
        docker_guard.executor.close()
