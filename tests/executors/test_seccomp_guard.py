"""Syscall anomalies through the Guard, on the real bubblewrap sandbox: refused calls become
audit lines (``policy audit tail`` shows them), ordinary work leaves none, a loop does not
flood the audit, and ``on_anomaly: end-session`` ends the session."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from clawgate.approval import ApprovalStore, CallbackApprover
from clawgate.approval.model import ApprovalAnswer
from clawgate.errors import ToolError, ToolErrorKind
from clawgate.guard import CallContext, Guard
from ptykit import read_all

pytestmark = pytest.mark.bwrap


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox's toolchain cache in the test's directory, not the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def guard(tmp_path: Path, seccomp: str = "{}") -> Guard:
    """A Guard on bubblewrap whose approver says yes: the sandbox is what holds here."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"version: 1\nexecutor: {{kind: bwrap, seccomp: {seccomp}}}\n")
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return Guard.from_files(policy, workspace=workspace,
                            approver=CallbackApprover(lambda _req: ApprovalAnswer.ALLOW_ONCE),
                            approval_store=ApprovalStore(workspace, state_dir=tmp_path / "st"),
                            audit_log=tmp_path / "audit.jsonl")


def lines(tmp_path: Path) -> list[dict[str, Any]]:
    text = (tmp_path / "audit.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def anomalies(tmp_path: Path) -> list[tuple[str, str | None, str]]:
    return [(e["result"]["kind"], e["result"]["syscall"], e["args"]["command"])
            for e in lines(tmp_path) if e["decision"]["outcome"] == "anomaly"]


def test_unshare_leaves_a_denied_syscall_line_naming_it(tmp_path: Path) -> None:
    with guard(tmp_path) as g:
        done = g.call("exec_shell", {"command": "unshare -r true"})
    assert done["exit_code"] == 1
    assert done["refused_syscalls"]["counts"] == [
        {"syscall": "unshare", "kind": "denied", "count": 1}]
    first, call = lines(tmp_path)
    assert (first["decision"]["outcome"], first["decision"]["reasons"][0]["rule_id"],
            first["decision"]["reasons"][0]["message"]) == \
        ("anomaly", "CG-SYS-002", "sandbox denied syscall: unshare")
    assert (first["result"]["kind"], first["result"]["syscall"]) == ("denied_syscall", "unshare")
    assert call["tool"] == "exec_shell" and call["decision"]["outcome"] == "ask"


def test_ordinary_work_leaves_no_anomaly(tmp_path: Path) -> None:
    with guard(tmp_path) as g:
        for command in ("echo ok", "python3 -c 'print(1)'", "for i in 1 2; do true; done"):
            assert g.call("exec_shell", {"command": command})["exit_code"] == 0
    assert anomalies(tmp_path) == []


def test_a_loop_across_calls_is_held_back_by_the_cooldown(tmp_path: Path) -> None:
    loop = "for i in 1 2 3 4 5 6 7; do unshare -r true 2>/dev/null; done"
    with guard(tmp_path) as g:
        for _ in range(3):
            g.call("exec_shell", {"command": loop})
    # 21 denials in three calls; the second and third calls' anomalies are the first's again
    assert anomalies(tmp_path) == [("denied_syscall", "unshare", loop),
                                   ("denied_rate_exceeded", None, loop)]


def test_each_kind_reaches_the_audit(tmp_path: Path) -> None:
    unknown = "python3 -c 'import ctypes; ctypes.CDLL(None).syscall(500)'"
    with guard(tmp_path, "{max_denied_per_minute: 1, max_events_per_minute: 2}") as g:
        g.call("exec_shell", {"command": unknown})
        g.call("exec_shell", {"command": "unshare -r true; unshare -r true"})
    assert anomalies(tmp_path) == [
        ("unknown_syscall", "syscall#500", unknown),
        ("denied_syscall", "unshare", "unshare -r true; unshare -r true"),
        ("denied_rate_exceeded", None, "unshare -r true; unshare -r true"),
        ("event_rate_exceeded", None, "unshare -r true; unshare -r true")]


def test_end_session_refuses_the_call_and_every_later_one(tmp_path: Path) -> None:
    with guard(tmp_path, "{on_anomaly: end-session}") as g:
        with pytest.raises(ToolError) as caught:
            g.call("exec_shell", {"command": "unshare -r true"})
        assert caught.value.kind is ToolErrorKind.PERMISSION_DENIED
        assert "ended by a syscall anomaly (sandbox denied syscall: unshare)" in \
            caught.value.message
        with pytest.raises(ToolError, match="ended by a syscall anomaly"):
            g.call("exec_shell", {"command": "echo later"})
        other = g.call("exec_shell", {"command": "echo other"}, CallContext(session="other"))
    assert other["stdout"] == "other\n"
    outcomes = [(e["session"], e["decision"]["outcome"]) for e in lines(tmp_path)]
    assert outcomes == [("default", "anomaly"), ("default", "deny"), ("default", "deny"),
                        ("other", "allow")]


def test_policy_audit_tail_shows_the_anomaly(tmp_path: Path) -> None:
    with guard(tmp_path) as g:
        g.call("exec_shell", {"command": "unshare -r true"})
    log = str(tmp_path / "audit.jsonl")
    piped = subprocess.run([sys.executable, "-m", "clawgate", "audit", "tail", "-n", "2", log],
                           capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(piped.stdout.splitlines()[0])["result"]["kind"] == "denied_syscall"
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    with subprocess.Popen([sys.executable, "-m", "clawgate", "audit", "tail", log],
                          stdout=follower, stderr=subprocess.DEVNULL, env=env) as child:
        os.close(follower)
        shown = read_all(leader)
        os.close(leader)
        assert child.wait(timeout=120) == 0
    (row,) = [line for line in shown.splitlines() if "anomaly" in line]
    assert "denied_syscall unshare: unshare -r true" in row and "CG-SYS-002" in row

