"""The Guard's limits hold under pressure: the turn budget under many threads of one session,
``rate_limit.exec_per_minute`` over a burst of command calls."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from clawgate.approval import ApprovalStore
from clawgate.errors import ToolError
from clawgate.executors import FakeExecutor
from clawgate.guard import Guard

THREADS = 48
BUDGET = 5


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

    for turn in range(1, 9):
        refused = one_turn(guard)
        assert calls == BUDGET * turn, f"turn {turn}: {calls - BUDGET * (turn - 1)} calls ran"
        assert len(refused) == THREADS - BUDGET
        assert all("budget of 5 tool calls" in m for m in refused)
        guard.new_turn()


def one_turn(guard: Guard) -> list[str]:
    """THREADS calls of ``tick`` at once; the messages of those refused."""
    start = threading.Barrier(THREADS)
    refused: list[str] = []

    def one() -> None:
        start.wait()
        try:
            guard.call("tick", {})
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
