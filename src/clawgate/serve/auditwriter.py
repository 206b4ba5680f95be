"""The audit writer of a service process: one thread that commits audit records in batches.

Each request waits until its record is committed (the database's error if it is not, and the
request fails closed). Whatever arrived while the last batch was written goes in one
transaction, and the requests of a batch are woken with one call into their event loop. A batch
with a value the database refuses (too long, a NUL) is written again one record at a time, so
that one request's bad record fails that request only; a lost connection is never retried (a
commit whose answer was lost may have been made).
"""

from __future__ import annotations

import asyncio
import queue
import threading

from sqlalchemy import exc as sa_exc

from clawgate.serve.chain import Chain, Entry

Waiter = tuple[Entry, asyncio.AbstractEventLoop, "asyncio.Future[int]"]


class AuditWriter:
    """One writer thread that commits whatever audit entries arrived, in one transaction, and
    then wakes every request of the batch with one call into its event loop (not one per
    request: a wake-up is a system call and a turn of the loop)."""

    def __init__(self, chain: Chain, batch: int = 500) -> None:
        self.chain = chain
        self.batch = batch
        self._inbox: queue.SimpleQueue[Waiter | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="clawgate-audit", daemon=True)
        self._thread.start()

    async def write(self, entry: Entry) -> int:
        """The record's sequence number once it is committed (the database's error if not)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        self._inbox.put((entry, loop, future))
        return await future

    def _run(self) -> None:
        while True:
            first = self._inbox.get()
            if first is None:
                return
            items = [first]
            while len(items) < self.batch:
                try:
                    more = self._inbox.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._inbox.put(None)
                    break
                items.append(more)
            self._commit(items)

    def _commit(self, items: list[Waiter]) -> None:
        outcome: list[int] | BaseException
        try:
            last = self.chain.append([entry for entry, _, _ in items])
            outcome = [last - len(items) + 1 + offset for offset in range(len(items))]
        except Exception as exc:  # the database is down: every waiting request fails closed
            if len(items) > 1 and _about_a_record(exc):
                for item in items:  # one record it cannot keep fails its own request only
                    self._commit([item])
                return
            outcome = exc
        self._wake(items, outcome)

    @staticmethod
    def _wake(items: list[Waiter], outcome: list[int] | BaseException) -> None:
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[int], int]]] = {}
        for offset, (_, loop, future) in enumerate(items):
            seq = -1 if isinstance(outcome, BaseException) else outcome[offset]
            by_loop.setdefault(loop, []).append((future, seq))
        for loop, waiting in by_loop.items():
            try:
                loop.call_soon_threadsafe(_settle, waiting, outcome)
            except RuntimeError:  # that loop is closed: nobody waits any more
                continue

    def close(self) -> None:
        self._inbox.put(None)
        self._thread.join(10)


def _about_a_record(exc: Exception) -> bool:
    """The database refused a value (too long, a NUL), not the connection: the rest of the
    batch can still be written (a connection's failure is never retried: a commit whose answer
    was lost may have been made)."""
    return isinstance(exc, sa_exc.DataError) or type(exc) is sa_exc.StatementError


def _settle(waiting: list[tuple[asyncio.Future[int], int]],
            outcome: list[int] | BaseException) -> None:
    for future, seq in waiting:
        if future.done():  # the request was cancelled (its client went away)
            continue
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(seq)
