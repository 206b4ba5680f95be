"""Decisions off the event loop, each under a time limit, no agent holding more than its share.

The engine and the gate are synchronous code that may run long on a hostile line; run on the
event loop, one agent's slow line held every other agent's request for as long as it took. Here
each decision runs on one of a fixed set of daemon worker threads, and its request waits for it
at most ``limit_s``: past it, ``TooSlow``, which the service answers as a DENY and audits, while
the thread finishes in the background (Python cannot stop a thread). A decision counts against
its agent until its thread is done, timed out or not: one agent has at most ``per_agent``
decisions running, and its further requests wait (within the same limit) for one of its own to
finish. One agent's slow lines hold at most that many threads; the other agents' requests run
on the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")
WORKERS = 16
PER_AGENT = 4
LIMIT_S = 10.0

_Job = tuple[Callable[[], Any], "Future[Any]"]


class TooSlow(Exception):
    """A decision did not finish (or could not start) within the limit."""


class Deciders:
    """The worker threads of one service process and the per-agent accounting of its loop."""

    def __init__(self, workers: int = WORKERS, per_agent: int = PER_AGENT,
                 limit_s: float = LIMIT_S) -> None:
        self.per_agent = per_agent
        self.limit_s = limit_s
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._busy: dict[str, int] = {}
        self._waiting: dict[str, list[asyncio.Future[None]]] = {}
        self._threads = [threading.Thread(target=self._work, name=f"clawgate-decide-{n}",
                                          daemon=True) for n in range(workers)]
        for thread in self._threads:
            thread.start()

    async def run(self, agent: str, work: Callable[[], T]) -> T:
        """``work()``'s result, computed on a worker thread; ``TooSlow`` past the limit."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limit_s
        await self._slot(agent, deadline)
        done: Future[T] = Future()
        done.add_done_callback(lambda _: _call_in(loop, self._release, agent))
        self._jobs.put((work, done))
        try:
            return await asyncio.wait_for(asyncio.wrap_future(done),
                                          max(deadline - loop.time(), 0.0))
        except TimeoutError:
            raise TooSlow(f"the decision took longer than {self.limit_s:g} s") from None

    async def _slot(self, agent: str, deadline: float) -> None:
        loop = asyncio.get_running_loop()
        while self._busy.get(agent, 0) >= self.per_agent:
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiting.setdefault(agent, []).append(waiter)
            woken = False
            try:
                await asyncio.wait_for(waiter, max(deadline - loop.time(), 0.0))
                woken = True
            except TimeoutError:
                raise TooSlow(f"{self.per_agent} decisions of this agent were still running "
                              f"after {self.limit_s:g} s") from None
            finally:
                if not woken:
                    self._forget(agent, waiter)
        self._busy[agent] = self._busy.get(agent, 0) + 1

    def _forget(self, agent: str, waiter: asyncio.Future[None]) -> None:
        """A request that stopped waiting (time limit, client gone): out of the line, and if
        it had just been woken, the turn passes to the next."""
        waiters = self._waiting.get(agent, [])
        if waiter in waiters:
            waiters.remove(waiter)
        if not waiters:
            self._waiting.pop(agent, None)
        if self._busy.get(agent, 0) < self.per_agent:
            self._wake(agent)

    def _release(self, agent: str) -> None:
        left = self._busy.get(agent, 1) - 1
        if left > 0:
            self._busy[agent] = left
        else:
            self._busy.pop(agent, None)
        self._wake(agent)

    def _wake(self, agent: str) -> None:
        waiters = self._waiting.get(agent, [])
        while waiters:
            waiter = waiters.pop(0)
            if not waiter.done():
                waiter.set_result(None)
                break
        if not waiters:
            self._waiting.pop(agent, None)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            work, done = job
            if not done.set_running_or_notify_cancel():
                continue  # its request gave up before it started
            try:
                done.set_result(work())
            except BaseException as exc:  # handed to the request, which fails closed
                done.set_exception(exc)

    def close(self) -> None:
        for _ in self._threads:
            self._jobs.put(None)


def _call_in(loop: asyncio.AbstractEventLoop, function: Callable[[str], None], agent: str) -> None:
    with contextlib.suppress(RuntimeError):  # that loop is closed: nobody counts any more
        loop.call_soon_threadsafe(function, agent)
