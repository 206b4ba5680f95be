"""The executor contract: requests, limits, the environment allow-list, the workspace, fakes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawgate import executors
from clawgate.errors import SandboxUnavailable, ToolError, ToolErrorKind
from clawgate.executors import (
    DockerSettings,
    ExecRequest,
    ExecResult,
    FakeExecutor,
    HostExecutor,
    Limits,
    executor_from_settings,
    limits_from_settings,
)
from clawgate.executors.settings import parse_memory


def test_public_names() -> None:
    for name in ("Executor", "HostExecutor", "BwrapExecutor", "DockerExecutor", "FakeExecutor",
                 "ExecRequest", "ExecResult", "Limits"):
        assert name in executors.__all__
    assert executors.__all__ == sorted(executors.__all__, key=lambda n: (not n.isupper(), n))


def test_limits_defaults_and_clamp() -> None:
    limits = Limits()
    assert (limits.timeout_s, limits.max_timeout_s, limits.max_concurrent) == (30, 300, 5)
    assert limits.queue_timeout_s is None
    assert limits.output_cap == 1024 * 1024
    assert limits.clamp(None) == 30
    assert limits.clamp(5) == 5
    assert limits.clamp(10_000) == 300
    with pytest.raises(ToolError) as info:
        limits.clamp(0)
    assert info.value.kind is ToolErrorKind.INVALID_ARGS


@pytest.mark.parametrize("bad", [{"max_concurrent": 0}, {"timeout_s": -1}, {"output_cap": 0},
                                 {"queue_timeout_s": -1.0}])
def test_limits_reject_nonsense(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="Limits"):
        Limits(**bad)  # type: ignore[arg-type]


def test_limits_from_mapping_rejects_unknown_keys() -> None:
    assert Limits.from_mapping({"timeout_s": 5}).timeout_s == 5
    with pytest.raises(ValueError, match="unknown executor limits: timout"):
        Limits.from_mapping({"timout": 5})


def test_limits_from_a_policy_section() -> None:
    section = {"kind": "docker", "timeout_s": 120, "max_timeout_s": 600, "max_concurrent": 2,
               "queue_timeout_s": 10, "docker": {"image": "python:3.11-slim", "memory": "1g",
                                                 "pids": 64, "cpus": 2, "network": "none"}}
    limits = limits_from_settings(section)
    assert limits == Limits(timeout_s=120, max_timeout_s=600, max_concurrent=2,
                            queue_timeout_s=10, memory=1024**3, pids=64, cpus=2)
    assert limits_from_settings({"queue_timeout_s": 0}).queue_timeout_s is None


@pytest.mark.parametrize(("text", "size"), [("512m", 512 * 1024**2), ("1g", 1024**3),
                                            ("64k", 65536), ("100", 100), (7, 7)])
def test_parse_memory(text: str | int, size: int) -> None:
    assert parse_memory(text) == size


def test_parse_memory_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="memory"):
        parse_memory("lots")


def test_request_argv() -> None:
    assert ExecRequest("echo hi").argv() == ["sh", "-c", "echo hi"]
    assert ExecRequest(["ls", "-l"]).argv() == ["ls", "-l"]
    assert ExecRequest("x").timeout_s == 30.0
    with pytest.raises(ToolError):
        ExecRequest([]).argv()
    with pytest.raises(ToolError, match="NUL"):
        ExecRequest("echo a\0b").argv()


def test_result_as_dict_has_the_stable_keys() -> None:
    keys = set(ExecResult(0).as_dict())
    assert keys == {"exit_code", "stdout", "stderr", "duration_ms", "timed_out", "truncated"}


def test_only_safe_names_pass_from_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                   workspace: Path) -> None:
    monkeypatch.setenv("CLAWGATE_SECRET", "hunter2")
    monkeypatch.setenv("LANG", "C.UTF-8")
    executor = FakeExecutor(workspace=workspace)
    env = executor.prepare(ExecRequest("env", env={"MINE": "1"})).env
    assert "CLAWGATE_SECRET" not in env
    assert env["LANG"] == "C.UTF-8"
    assert env["MINE"] == "1"
    narrow = FakeExecutor(workspace=workspace, safe_env_names=())
    assert {k for k in narrow.prepare(ExecRequest("env")).env
            if not k.startswith("GIT_CONFIG_")} == set()


@pytest.mark.parametrize("cwd", ["..", "/", "../..", "sub/../../x"])
def test_cwd_outside_the_workspace_is_refused(workspace: Path, cwd: str) -> None:
    with pytest.raises(ToolError) as info:
        FakeExecutor(workspace=workspace).run(ExecRequest("true", cwd=cwd))
    assert info.value.kind is ToolErrorKind.INVALID_PATH


def test_cwd_through_a_symlink_out_is_refused(workspace: Path, tmp_path: Path) -> None:
    (workspace / "out").symlink_to(tmp_path)
    with pytest.raises(ToolError):
        FakeExecutor(workspace=workspace).run(ExecRequest("true", cwd="out"))


def test_cwd_inside_the_workspace(workspace: Path) -> None:
    (workspace / "sub").mkdir()
    job = FakeExecutor(workspace=workspace).prepare(ExecRequest("true", cwd="sub"))
    assert job.cwd == workspace / "sub"
    assert job.relative_cwd == Path("sub")
    absolute = FakeExecutor(workspace=workspace).prepare(
        ExecRequest("true", cwd=os.fspath(workspace / "sub")))
    assert absolute.cwd == workspace / "sub"


def test_fake_executor_records_and_answers(workspace: Path) -> None:
    fake = FakeExecutor(lambda req: ExecResult(3, stdout=f"ran {req.command}"),
                        workspace=workspace)
    with fake:
        result = fake.run(ExecRequest("make test", timeout_s=1000))
    assert result == ExecResult(3, stdout="ran make test")
    assert [r.command for r in fake.requests] == ["make test"]
    assert fake.jobs[0].timeout_s == 300  # clamped


def test_fake_executor_default_succeeds(workspace: Path) -> None:
    assert FakeExecutor(workspace=workspace).run(ExecRequest("anything")).exit_code == 0


def test_executor_from_settings_builds_each_kind(workspace: Path) -> None:
    host = executor_from_settings({"kind": "host", "timeout_s": 7}, workspace=workspace)
    assert isinstance(host, HostExecutor)
    assert host.limits.timeout_s == 7
    with pytest.raises(ValueError, match="unknown executor"):
        executor_from_settings({"kind": "vm"}, workspace=workspace)


def test_docker_settings_from_mapping() -> None:
    assert DockerSettings.from_mapping({"image": "x:1"}).image == "x:1"
    with pytest.raises(ValueError, match="imag"):
        DockerSettings.from_mapping({"imag": "x"})


def test_missing_engine_is_sandbox_unavailable(monkeypatch: pytest.MonkeyPatch,
                                               workspace: Path) -> None:
    """No engine answers: an error naming it, never a quiet host run."""
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:9")
    with pytest.raises(SandboxUnavailable, match=r"127\.0\.0\.1:9"):
        executor_from_settings({"kind": "docker"}, workspace=workspace)
    with pytest.raises(SandboxUnavailable, match="no Docker engine"):
        executor_from_settings({"kind": "docker", "docker": {
            "base_url": "unix:///nonexistent/docker.sock"}}, workspace=workspace)


def test_missing_bwrap_is_sandbox_unavailable(workspace: Path) -> None:
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        executors.BwrapExecutor(bwrap="no-such-bwrap-program", workspace=workspace)
