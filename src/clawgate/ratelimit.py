"""Rate limiting per session: a token bucket for each key (rate per minute plus a burst).

A bucket holds up to ``burst`` tokens and refills at ``per_minute / 60`` tokens a second; each
call takes one. Over the limit, ``acquire`` raises ``ToolError(PermissionDenied)`` saying in how
many seconds to retry. The clock is injectable so tests need not sleep.

Buckets are kept for at most ``max_keys`` sessions. When that is exceeded, full buckets are
dropped first (a full bucket is the same as a new one); only if none is full does the least
recently used go, which would let that one session start afresh.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from clawgate.errors import ToolError, ToolErrorKind


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """Token buckets keyed by session; thread-safe."""

    def __init__(
        self,
        per_minute: float,
        burst: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 10_000,
    ) -> None:
        if per_minute <= 0 or burst < 1:
            raise ValueError("per_minute must be positive and burst at least 1")
        self.per_minute = per_minute
        self.burst = burst
        self._rate = per_minute / 60.0
        self._clock = clock
        self._max_keys = max_keys
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self._lock = threading.Lock()

    def try_acquire(self, key: str, cost: float = 1.0) -> float:
        """Take ``cost`` tokens if there are enough: return 0.0, else the seconds to wait."""
        with self._lock:
            now = self._clock()
            bucket = self._bucket(key, now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self._rate)
            bucket.stamp = now
            if bucket.tokens >= cost:
                bucket.tokens -= cost
                return 0.0
            return (cost - bucket.tokens) / self._rate

    def acquire(self, key: str, cost: float = 1.0) -> None:
        """Take a token or raise ``ToolError(PermissionDenied)`` naming when to retry."""
        wait = self.try_acquire(key, cost)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise ToolError(
                ToolErrorKind.PERMISSION_DENIED,
                f"rate limit for session {key!r} reached ({self.per_minute:g} calls a minute, "
                f"burst {self.burst}); retry in {seconds} s",
            )

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` may make one call (0.0 if it may now); takes nothing."""
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                return 0.0
            tokens = min(self.burst, bucket.tokens + (self._clock() - bucket.stamp) * self._rate)
            return 0.0 if tokens >= 1 else (1 - tokens) / self._rate

    def _bucket(self, key: str, now: float) -> _Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            self._evict(now, room=self._max_keys - 1)
            bucket = self._buckets[key] = _Bucket(float(self.burst), now)
        self._buckets.move_to_end(key)
        return bucket

    def _evict(self, now: float, room: int) -> None:
        if len(self._buckets) <= room:
            return
        for key, bucket in list(self._buckets.items()):
            if bucket.tokens + (now - bucket.stamp) * self._rate >= self.burst:
                del self._buckets[key]
        while len(self._buckets) > room:
            self._buckets.popitem(last=False)
