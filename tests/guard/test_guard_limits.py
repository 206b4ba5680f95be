"""The Guard's limits hold under pressure: the turn budget under many threads of one session,
``rate_limit.exec_per_minute`` over a burst of command calls."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from clawgate.approval import ApprovalStore
from clawgate.errors import ToolError
from clawgate.executors import FakeExecutor
from clawgate.guard import CallContext, Guard

THREADS = 48
BUDGET = 5


class Preempted(str):
    """A session name whose hashing lets other threads run, as a preemption at that point
    would: a count read and written without a lock is then read twice before it is written."""

    __slots__ = ()

    def __hash__(self) -> int:
        time.sleep(0.0005)  # releases the GIL; nothing is timed
        return str.__hash__(self)


def guard_for(tmp_path: Path, text: str, executor: FakeExecutor | None = None) -> Guard:
    path = tmp_path / "limits.yaml"
    path.write_text("version: 1\n" + text)
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return Guard.from_files(path, workspace=workspace, executor=executor or FakeExecutor(),
                            approval_store=ApprovalStore(workspace, state_dir=tmp_path / "st"))


@pytest.fixture
def switch_often() -> Iterator[None]:
    """Threads switch as often as the interpreter allows: a race shows up if there is one."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


@pytest.mark.usefixtures("switch_often")
def test_many_threads_of_one_session_never_spend_more_than_the_budget(tmp_path: Path) -> None:
    guard = guard_for(tmp_path, f"hooks: {{budgets: {{max_tool_iterations: {BUDGET}}}}}\n"
                      "rate_limit: {calls_per_minute: 100000, burst: 10000}\n")
    calls = 0
    lock = threading.Lock()

    @guard.tool
    def tick() -> str:
        nonlocal calls
        with lock:
            calls += 1
        return "ok"

    ctx = CallContext(session=Preempted("one-session"))
    for turn in range(1, 9):
        refused = one_turn(guard, ctx)
        assert calls == BUDGET * turn, f"turn {turn}: {calls - BUDGET * (turn - 1)} calls ran"
        assert len(refused) == THREADS - BUDGET
        assert all("budget of 5 tool calls" in m for m in refused)
        guard.new_turn(ctx.session)


def one_turn(guard: Guard, ctx: CallContext) -> list[str]:
    """THREADS calls of ``tick`` at once; the messages of those refused."""
    start = threading.Barrier(THREADS)
    refused: list[str] = []

    def one() -> None:
        start.wait()
        try:
            guard.call("tick", {}, ctx)
        except ToolError as exc:
            refused.append(exc.message)

    threads = [threading.Thread(target=one) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return refused


def test_exec_per_minute_two_lets_two_of_thirty_commands_run(tmp_path: Path) -> None:
    executor = FakeExecutor()
    guard = guard_for(tmp_path, "rate_limit: {exec_per_minute: 2, calls_per_minute: 1000, "
                      "burst: 100}\n"
                      "hooks: {budgets: {max_tool_iterations: 100}}\n", executor)
    refused = []
    for _ in range(30):
        try:
            guard.call("exec_shell", {"command": "true"})
        except ToolError as exc:
            refused.append(exc.message)
    assert len(executor.requests) == 2
    assert len(refused) == 28
    assert all("rate limit" in m and "2 calls a minute" in m for m in refused)
    guard.call("list_directory", {"path": "."})  # calls that run nothing are not counted
