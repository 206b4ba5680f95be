"""The spawn cap under threads and asyncio: refused at once, or queued; always released."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from clawgate.errors import CapacityExceeded, ExecutorError, ToolError, ToolErrorKind
from clawgate.executors import (
    ExecRequest,
    ExecResult,
    FakeExecutor,
    HostExecutor,
    Limits,
    SpawnLimiter,
    shared_limiter,
)


def sleeper(counter: Any, seconds: float) -> Any:
    def handler(request: ExecRequest) -> ExecResult:
        counter.enter()
        try:
            time.sleep(seconds)
        finally:
            counter.leave()
        return ExecResult(0)
    return handler


def _until(condition: Any, polls: int = 6000) -> None:
    """Wait until ``condition()`` holds, polling a bounded number of times (a hang detector:
    how soon it holds is not asserted)."""
    for _ in range(polls):
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError("the condition never came true")


def test_shared_limiter_is_one_per_cap() -> None:
    assert shared_limiter(5) is shared_limiter(5)
    assert shared_limiter(5) is not shared_limiter(6)
    assert HostExecutor().limiter is FakeExecutor().limiter is shared_limiter(5)


def test_over_the_cap_fails_at_once_naming_it(workspace: Path, limiter: SpawnLimiter,
                                              counter: Any) -> None:
    release = threading.Event()

    def held(request: ExecRequest) -> ExecResult:
        counter.enter()
        try:
            release.wait(120)  # the five running hold their slots until every refusal is in
        finally:
            counter.leave()
        return ExecResult(0)

    fake = FakeExecutor(held, workspace=workspace, limiter=limiter)
    with ThreadPoolExecutor(50) as pool:
        futures = [pool.submit(fake.run, ExecRequest("x")) for _ in range(50)]
        _until(lambda: sum(f.done() for f in futures) == 45)
        release.set()
        errors = [f.exception() for f in futures]
    refused = [e for e in errors if e is not None]
    assert counter.peak == 5
    assert len(refused) == 45
    for error in refused:
        assert isinstance(error, ToolError)
        assert isinstance(error, ExecutorError)
        assert error.kind is ToolErrorKind.EXECUTION_FAILED
        assert "spawn cap" in error.message
        assert "max_concurrent=5" in error.message
    assert limiter.running == 0


def test_fifty_threads_queue_and_never_exceed_five(workspace: Path, limiter: SpawnLimiter,
                                                   counter: Any) -> None:
    fake = FakeExecutor(sleeper(counter, 0.05), workspace=workspace, limiter=limiter,
                        limits=Limits(queue_timeout_s=300))
    with ThreadPoolExecutor(50) as pool:
        results = list(pool.map(fake.run, [ExecRequest("x")] * 50))
    assert len(results) == 50
    assert all(r.exit_code == 0 for r in results)
    assert counter.peak == 5  # counted by the handlers themselves
    assert limiter.peak == 5
    assert limiter.running == 0


def test_asyncio_queue_never_exceeds_five(workspace: Path, limiter: SpawnLimiter,
                                          counter: Any) -> None:
    fake = FakeExecutor(sleeper(counter, 0.05), workspace=workspace, limiter=limiter,
                        limits=Limits(queue_timeout_s=30))

    async def main() -> list[ExecResult]:
        return await asyncio.gather(*(fake.arun(ExecRequest("x")) for _ in range(50)))

    results = asyncio.run(main())
    assert len(results) == 50
    assert counter.peak == 5
    assert limiter.running == 0


def test_asyncio_over_the_cap_fails_at_once(workspace: Path, limiter: SpawnLimiter,
                                            counter: Any) -> None:
    fake = FakeExecutor(sleeper(counter, 0.2), workspace=workspace, limiter=limiter)

    async def main() -> list[Any]:
        return await asyncio.gather(*(fake.arun(ExecRequest("x")) for _ in range(20)),
                                    return_exceptions=True)

    outcomes = asyncio.run(main())
    assert sum(isinstance(o, ExecResult) for o in outcomes) == 5
    assert sum(isinstance(o, CapacityExceeded) for o in outcomes) == 15
    assert limiter.running == 0


def test_queue_timeout_expires_with_the_cap_named(limiter: SpawnLimiter) -> None:
    for _ in range(5):
        limiter.acquire()
    with pytest.raises(CapacityExceeded, match=r"after waiting 0.2 s \(max_concurrent=5\)"):
        limiter.acquire(0.2)
    assert limiter.running == 5  # the refused waiter took nothing and left no place queued
    assert not limiter._waiters
    for _ in range(5):
        limiter.release()
    assert limiter.running == 0


def test_async_queue_timeout_expires(limiter: SpawnLimiter) -> None:
    for _ in range(5):
        limiter.acquire()

    async def main() -> None:
        await limiter.aacquire(0.1)

    with pytest.raises(CapacityExceeded, match="after waiting"):
        asyncio.run(main())
    for _ in range(5):
        limiter.release()
    assert limiter.running == 0


def test_waiters_are_served_first_come_first_served(limiter: SpawnLimiter) -> None:
    small = SpawnLimiter(1)
    small.acquire()
    order: list[int] = []

    def wait(n: int) -> None:
        small.acquire(5)
        order.append(n)
        small.release()

    threads = []
    for n in range(4):
        thread = threading.Thread(target=wait, args=(n,))
        thread.start()
        threads.append(thread)
        _until(lambda n=n: len(small._waiters) == n + 1)  # queued in this order
    small.release()
    for thread in threads:
        thread.join()
    assert order == [0, 1, 2, 3]
    assert small.running == 0


def test_cancelled_async_waiter_gives_its_place_up(limiter: SpawnLimiter) -> None:
    for _ in range(5):
        limiter.acquire()

    async def main() -> None:
        task = asyncio.ensure_future(limiter.aacquire(10))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    for _ in range(5):
        limiter.release()
    assert limiter.running == 0
    limiter.acquire()  # nobody is queued any more: a slot is free at once
    limiter.release()


def test_a_crashed_run_releases_its_slot(workspace: Path, limiter: SpawnLimiter) -> None:
    def crash(request: ExecRequest) -> ExecResult:
        raise RuntimeError("backend blew up")

    fake = FakeExecutor(crash, workspace=workspace, limiter=limiter)
    for _ in range(20):
        with pytest.raises(RuntimeError):
            fake.run(ExecRequest("x"))

    async def main() -> None:
        with pytest.raises(RuntimeError):
            await fake.arun(ExecRequest("x"))

    asyncio.run(main())
    assert limiter.running == 0


def test_a_timed_out_run_releases_its_slot(workspace: Path, limiter: SpawnLimiter) -> None:
    host = HostExecutor(workspace=workspace, limiter=limiter,
                        limits=Limits(kill_grace_s=0.1))
    for _ in range(6):
        assert host.run(ExecRequest("sleep 5", timeout_s=0.05)).timed_out
    assert limiter.running == 0


def test_the_cap_is_configurable(workspace: Path, counter: Any) -> None:
    limits = Limits(max_concurrent=2, queue_timeout_s=10)
    fake = FakeExecutor(sleeper(counter, 0.02), workspace=workspace, limits=limits)
    assert fake.limiter is shared_limiter(2)
    with ThreadPoolExecutor(10) as pool:
        list(pool.map(fake.run, [ExecRequest("x")] * 10))
    assert counter.peak == 2


def test_release_without_acquire_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="without a matching"):
        SpawnLimiter(1).release()


def test_a_cancelled_arun_keeps_its_slot_until_the_command_ends(
        workspace: Path, limiter: SpawnLimiter) -> None:
    host = HostExecutor(workspace=workspace, limiter=limiter)

    async def main() -> int:
        task = asyncio.ensure_future(host.arun(ExecRequest("sleep 0.3")))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return limiter.running

    assert asyncio.run(main()) == 1  # the command still runs: its slot is still taken
    _until(lambda: limiter.running == 0)  # and gives it back when the command ends
