"""The filter's compiled loader against the real compiler, ``bwrap`` and system calls: it is
compiled once into the guard's state and used where a compiler exists, the Python loader is
used (and says so) where none does, and either way a refused call fails inside the sandbox
and leaves its anomaly in the audit."""

from __future__ import annotations

import json
import logging
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from clawgate.approval import ApprovalStore, CallbackApprover
from clawgate.approval.model import ApprovalAnswer
from clawgate.executors import BwrapExecutor, ExecRequest, SpawnLimiter, seccomp_cloader
from clawgate.executors import bwrap as bwrap_module
from clawgate.executors.filterloader import INSIDE_LOADER
from clawgate.executors.seccomp_notify import SyscallWatch
from clawgate.guard import Guard

pytestmark = pytest.mark.bwrap

NO_COMPILER = ("clawgate-test-no-such-cc",)


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state root and toolchain cache of the test's own (the compiled loader goes in the
    state), and a machine probed afresh for each test."""
    root = tmp_path / "state"
    monkeypatch.setenv("CLAWGATE_STATE_HOME", str(root))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(bwrap_module, "_WORKS", set())
    return root


@pytest.fixture
def no_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without a C compiler."""
    monkeypatch.setattr(seccomp_cloader, "COMPILERS", NO_COMPILER)


def needs_compiler() -> None:
    if not any(shutil.which(name) for name in seccomp_cloader.COMPILERS):
        pytest.skip("no C compiler on this machine")


def sandbox(workspace: Path) -> BwrapExecutor:
    return BwrapExecutor(workspace=workspace, limiter=SpawnLimiter(5))


def test_a_machine_with_a_compiler_gets_the_compiled_loader_in_the_guards_state(
        workspace: Path, state: Path) -> None:
    needs_compiler()
    box = sandbox(workspace)
    (built,) = (state / "loader").iterdir()
    info = os.lstat(built)
    assert (stat.S_IMODE(info.st_mode), stat.S_IMODE(os.stat(built.parent).st_mode)) == \
        (0o700, 0o700)
    shown = box.run(ExecRequest(f"test -x {INSIDE_LOADER} && echo shown; "
                                f"(: > {INSIDE_LOADER}) 2>/dev/null || echo read-only"))
    assert (shown.exit_code, shown.stdout) == (0, "shown\nread-only\n"), shown
    assert list(workspace.iterdir()) == []  # never compiled into the workspace


def test_the_compiled_loader_is_compiled_once_and_reused(workspace: Path,
                                                        state: Path) -> None:
    needs_compiler()
    first = seccomp_cloader.compiled_loader()
    assert first is not None
    made = os.stat(first).st_mtime_ns
    assert (seccomp_cloader.compiled_loader(), os.stat(first).st_mtime_ns) == (first, made)
    assert sorted(p.name for p in first.parent.iterdir()) == [first.name]  # no leftovers


def test_a_loader_others_may_write_to_is_compiled_again(state: Path) -> None:
    needs_compiler()
    first = seccomp_cloader.compiled_loader()
    assert first is not None
    first.write_bytes(b"#!/bin/sh\necho tampered\n")
    first.chmod(0o777)
    again = seccomp_cloader.compiled_loader()
    assert again == first
    assert stat.S_IMODE(os.stat(first).st_mode) == 0o700
    assert b"tampered" not in first.read_bytes()


def test_another_source_gets_another_file(tmp_path: Path, state: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    needs_compiler()
    first = seccomp_cloader.compiled_loader()
    changed = tmp_path / "seccomp_loader.c"
    changed.write_bytes(seccomp_cloader.SOURCE.read_bytes() + b"\n/* changed */\n")
    monkeypatch.setattr(seccomp_cloader, "SOURCE", changed)
    second = seccomp_cloader.compiled_loader()
    assert None not in (first, second) and first != second


def test_a_source_that_does_not_compile_leaves_the_python_loader(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    needs_compiler()
    broken = tmp_path / "seccomp_loader.c"
    broken.write_text("int main(void) { return missing; }\n")
    monkeypatch.setattr(seccomp_cloader, "SOURCE", broken)
    with caplog.at_level(logging.WARNING, logger="clawgate.executors"):
        assert seccomp_cloader.compiled_loader() is None
    assert "could not compile seccomp_loader.c" in caplog.text


@pytest.mark.usefixtures("no_compiler")
def test_without_a_compiler_the_python_loader_runs_and_says_why(
        workspace: Path, state: Path, caplog: pytest.LogCaptureFixture) -> None:
    seccomp_cloader.warn_python_loader.cache_clear()
    with caplog.at_level(logging.WARNING, logger="clawgate.executors"):
        box = sandbox(workspace)
    assert "Python loader" in caplog.text and "no C compiler" in caplog.text
    assert not (state / "loader").exists() or not any((state / "loader").iterdir())
    done = box.run(ExecRequest(f"test -e {INSIDE_LOADER} || echo absent; unshare -r true"))
    assert (done.exit_code, done.stdout) == (1, "absent\n"), done
    assert done.refusal_counts == (("unshare", "denied", 1),)


@pytest.mark.parametrize("compiler", ["compiled", "python"])
def test_a_refused_call_fails_inside_and_leaves_its_anomaly(
        tmp_path: Path, compiler: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if compiler == "compiled":
        needs_compiler()
    else:
        monkeypatch.setattr(seccomp_cloader, "COMPILERS", NO_COMPILER)
    with guard(tmp_path) as g:
        assert g.executor._loader.compiled is (compiler == "compiled")  # type: ignore[attr-defined]
        done = g.call("exec_shell", {"command": "unshare -r true"})
    assert done["exit_code"] == 1
    assert done["refused_syscalls"]["counts"] == [
        {"syscall": "unshare", "kind": "denied", "count": 1}]
    anomalies = [(e["result"]["kind"], e["result"]["syscall"]) for e in audit(tmp_path)
                 if e["decision"]["outcome"] == "anomaly"]
    assert anomalies == [("denied_syscall", "unshare")]


@pytest.mark.parametrize(("command", "code", "said"), [
    (["clawgate-test-no-such-program"], 127, "clawgate-test-no-such-program: No such file"),
    (["{dir}/plain.txt"], 126, "{dir}/plain.txt: Permission denied"),  # not executable
])
def test_the_compiled_loader_says_what_a_shell_would_of_a_command_it_cannot_run(
        tmp_path: Path, command: list[str], code: int, said: str) -> None:
    needs_compiler()
    loader = seccomp_cloader.compiled_loader()
    assert loader is not None
    (tmp_path / "plain.txt").write_text("echo ran\n")
    command = [word.format(dir=tmp_path) for word in command]
    said = said.format(dir=tmp_path)
    with SyscallWatch() as watch:
        done = subprocess.run([os.fspath(loader), str(watch.child_fd), *command],
                              pass_fds=(watch.child_fd,), capture_output=True, text=True,
                              check=False, timeout=60)
    assert (done.returncode, done.stderr.startswith(said)) == (code, True), done.stderr
    assert watch.report.installed


def test_the_compiled_loader_reports_its_failure_and_does_not_exec(tmp_path: Path) -> None:
    needs_compiler()
    loader = seccomp_cloader.compiled_loader()
    assert loader is not None
    marker = tmp_path / "ran"
    with SyscallWatch(program=b"\x06\x00") as watch:
        done = subprocess.run([os.fspath(loader), str(watch.child_fd), "touch", str(marker)],
                              pass_fds=(watch.child_fd,), capture_output=True, text=True,
                              check=False, timeout=60)
    assert done.returncode == 125
    assert "the command was not run" in done.stderr
    assert watch.report.failure == "the filter program is not whole BPF instructions"
    assert (watch.report.installed, marker.exists()) == (False, False)


def guard(tmp_path: Path) -> Guard:
    """A Guard on bubblewrap whose approver says yes: the sandbox is what holds here."""
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nexecutor: {kind: bwrap}\n")
    workspace = tmp_path / "gws"
    workspace.mkdir(exist_ok=True)
    return Guard.from_files(policy, workspace=workspace,
                            approver=CallbackApprover(lambda _req: ApprovalAnswer.ALLOW_ONCE),
                            approval_store=ApprovalStore(workspace, state_dir=tmp_path / "st"),
                            audit_log=tmp_path / "audit.jsonl")


def audit(tmp_path: Path) -> list[dict[str, Any]]:
    text = (tmp_path / "audit.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_a_state_root_inside_the_workspace_gets_no_compiled_loader(
        workspace: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("CLAWGATE_STATE_HOME", str(workspace / ".state"))
    seccomp_cloader.warn_python_loader.cache_clear()
    with caplog.at_level(logging.WARNING, logger="clawgate.executors"):
        box = sandbox(workspace)
    assert box._loader is not None and not box._loader.compiled
    assert "lies in the workspace" in caplog.text
    assert not (workspace / ".state" / "loader").exists()
