"""The spawn cap: at most N commands run at once in a process, whichever executor runs them.

Over the cap a call fails at once with ``CapacityExceeded`` (a ``ToolError`` of kind
ExecutionFailed naming the cap), or, when the policy sets a queue timeout, waits that long in a
first-come first-served queue. A slot is handed from a finishing run straight to the oldest
waiter under one lock, so reserving and releasing are atomic and a late arrival never jumps the
queue. Threads and asyncio tasks wait in the same queue.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

from clawgate.errors import CapacityExceeded


class _Waiter:
    """A thread waiting for a slot."""

    def __init__(self) -> None:
        self.granted = False
        self._event = threading.Event()

    def grant(self) -> None:
        """Called under the limiter's lock: the slot is this waiter's from now on."""
        self.granted = True
        self._event.set()

    def wait(self, timeout_s: float) -> bool:
        return self._event.wait(timeout_s)


class _AsyncWaiter(_Waiter):
    """An asyncio task waiting for a slot; woken through its loop from any thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self.loop = loop
        self.future: asyncio.Future[None] = loop.create_future()

    def grant(self) -> None:
        self.granted = True
        try:
            self.loop.call_soon_threadsafe(_wake, self.future)
        except RuntimeError:  # the loop is closed: nobody will use the slot, give it back
            self.granted = False


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class SpawnLimiter:
    """Caps concurrent executions at ``capacity``; ``peak`` is the most ever running at once."""

    def __init__(self, capacity: int = 5) -> None:
        if capacity < 1:
            raise ValueError(f"the spawn cap must be at least 1, got {capacity}")
        self.capacity = capacity
        self.peak = 0
        self._running = 0
        self._waiters: deque[_Waiter] = deque()
        self._lock = threading.Lock()

    @property
    def running(self) -> int:
        return self._running

    @contextmanager
    def slot(self, wait_s: float | None = None) -> Iterator[None]:
        """Hold one slot for the body; released however the body ends."""
        self.acquire(wait_s)
        try:
            yield
        finally:
            self.release()

    def acquire(self, wait_s: float | None = None) -> None:
        """Take a slot, waiting up to ``wait_s`` (None or 0: not at all). Raises
        CapacityExceeded."""
        with self._lock:
            if self._take():
                return
            if not wait_s:
                raise self._refusal(None)
            waiter = _Waiter()
            self._waiters.append(waiter)
        if waiter.wait(wait_s):
            return
        with self._lock:
            if waiter.granted:  # granted between the timeout and the lock
                return
            self._waiters.remove(waiter)
        raise self._refusal(wait_s)

    async def aacquire(self, wait_s: float | None = None) -> None:
        """``acquire`` for asyncio: waits without blocking the event loop."""
        with self._lock:
            if self._take():
                return
            if not wait_s:
                raise self._refusal(None)
            waiter = _AsyncWaiter(asyncio.get_running_loop())
            self._waiters.append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter.future), wait_s)
        except (TimeoutError, asyncio.CancelledError) as exc:
            with self._lock:
                granted = waiter.granted
                if not granted and waiter in self._waiters:
                    self._waiters.remove(waiter)
            if granted and isinstance(exc, TimeoutError):
                return
            if granted:  # cancelled after the slot was handed over: hand it on
                self.release()
                raise
            if isinstance(exc, TimeoutError):
                raise self._refusal(wait_s) from None
            raise

    def release(self) -> None:
        """Give a slot back: to the oldest waiter if there is one, else to the pool."""
        with self._lock:
            while self._waiters:
                waiter = self._waiters.popleft()
                waiter.grant()
                if waiter.granted:
                    return
            if self._running <= 0:
                raise RuntimeError("SpawnLimiter.release() without a matching acquire()")
            self._running -= 1

    def _take(self) -> bool:
        if self._running >= self.capacity or self._waiters:
            return False
        self._running += 1
        self.peak = max(self.peak, self._running)
        return True

    def _refusal(self, wait_s: float | None) -> CapacityExceeded:
        waited = f" after waiting {wait_s:g} s" if wait_s else ""
        return CapacityExceeded(
            f"spawn cap reached: {self.capacity} commands already running{waited} "
            f"(max_concurrent={self.capacity}); try again when one finishes")


_SHARED: dict[int, SpawnLimiter] = {}
_SHARED_LOCK = threading.Lock()


def shared_limiter(capacity: int = 5) -> SpawnLimiter:
    """The process-wide limiter for a cap: every executor built with the same ``max_concurrent``
    (and no limiter of its own) counts against the same slots."""
    with _SHARED_LOCK:
        limiter = _SHARED.get(capacity)
        if limiter is None:
            limiter = _SHARED[capacity] = SpawnLimiter(capacity)
        return limiter
