"""Token buckets with a hand-driven clock."""

from __future__ import annotations

import threading

import pytest

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.ratelimit import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_burst_then_refill_at_the_rate() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=60, burst=3, clock=clock)
    for _ in range(3):
        limiter.acquire("s1")
    with pytest.raises(ToolError, match=r"retry in 1 s") as err:
        limiter.acquire("s1")
    assert err.value.kind is ToolErrorKind.PERMISSION_DENIED
    clock.now += 0.5
    assert limiter.try_acquire("s1") == pytest.approx(0.5)
    clock.now += 0.5
    limiter.acquire("s1")
    clock.now += 100
    for _ in range(3):  # refill stops at the burst
        limiter.acquire("s1")
    assert limiter.try_acquire("s1") == pytest.approx(1.0)


def test_retry_time_is_reported_in_seconds() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=6, burst=1, clock=clock)
    limiter.acquire("s")
    assert limiter.retry_after("s") == pytest.approx(10.0)
    with pytest.raises(ToolError, match=r"6 calls a minute, burst 1\); retry in 10 s"):
        limiter.acquire("s")
    clock.now += 9.2
    with pytest.raises(ToolError, match=r"retry in 1 s"):
        limiter.acquire("s")
    assert limiter.retry_after("unknown") == 0.0


def test_sessions_are_independent() -> None:
    limiter = RateLimiter(per_minute=1, burst=1, clock=Clock())
    limiter.acquire("a")
    limiter.acquire("b")
    with pytest.raises(ToolError):
        limiter.acquire("a")


def test_eviction_prefers_full_buckets() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=60, burst=2, clock=clock, max_keys=2)
    limiter.acquire("busy")
    limiter.acquire("busy")
    limiter.acquire("idle")
    clock.now += 1  # idle is full again; busy has one token
    limiter.acquire("new")
    assert limiter.try_acquire("busy") == 0.0
    assert limiter.try_acquire("busy") > 0  # busy kept its state: it was not reset


def test_threads_never_exceed_the_burst() -> None:
    limiter = RateLimiter(per_minute=1, burst=50, clock=Clock())
    granted: list[float] = []

    def work() -> None:
        granted.extend(limiter.try_acquire("s") for _ in range(20))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert granted.count(0.0) == 50


@pytest.mark.parametrize(("per_minute", "burst"), [(0, 1), (-1, 1), (10, 0)])
def test_bad_settings(per_minute: float, burst: int) -> None:
    with pytest.raises(ValueError, match="per_minute"):
        RateLimiter(per_minute, burst)
