"""The audit writer of a service process: one thread that commits audit records in batches,
durably, and on PostgreSQL a second that looks up a batch in doubt.

Each request waits until its record is committed and durable (the database's error if it is
not, and the request fails closed). Whatever arrived while the last batch was written goes in
one transaction, and the requests of a batch are woken with one call into their event loop. On
PostgreSQL the commit that releases the chain's lock does not wait for the disk, and the
batch's settle, in the same round trip, does (``clawgate.serve.pgchain``): the writer wakes the
batch's requests as soon as its write returns. A service on PostgreSQL hands its batches in
to the chain's intake instead (``clawgate.serve.intake``: one statement, durable when it
returns), and the replica that leads the chain links them: a request's record is then answered
with 0, its place in the chain not yet known.

A batch with a value the database refuses (too long, a NUL) is written again one record at a
time, so that one request's bad record fails that request only; a lost connection is never
retried. A batch whose commit or settle is in doubt (the connection failed after the commit was
sent: the database restarting) is looked up once the database answers again, within
``recover_s``: answered if its records are in the chain and durable, failed closed if they are
not, so that the chain holds exactly the decisions answered. Past ``recover_s`` its requests
fail closed, and the records may still be there (audited, never answered: as a request whose
client went away).
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from typing import TypeVar

from sqlalchemy import exc as sa_exc

from clawgate.serve.chain import Chain, Entry, Head, Unsure
from clawgate.serve.intake import Intake

Waiter = tuple[Entry, asyncio.AbstractEventLoop, "asyncio.Future[int]"]
Outcome = list[int] | BaseException
Written = tuple[list[Waiter], Outcome, Head | None]  # the head: for a look-up if in doubt
T = TypeVar("T")
RECOVER_S = 60.0  # a database restarting under load took 12 s to shut down


class AuditWriter:
    """One writer thread that commits whatever audit entries arrived, in one transaction, and
    then wakes every request of the batch with one call into its event loop (not one per
    request: a wake-up is a system call and a turn of the loop)."""

    def __init__(self, chain: Chain, batch: int = 500, recover_s: float = RECOVER_S,
                 intake: Intake | None = None) -> None:
        self.chain = chain
        self.intake = intake  # records handed in there, for the chain's leader to link
        self.batch = batch
        self.recover_s = recover_s
        self._inbox: queue.SimpleQueue[Waiter | None] = queue.SimpleQueue()
        self._written: queue.SimpleQueue[Written | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="clawgate-audit", daemon=True)
        self._thread.start()
        self._settler: threading.Thread | None = None
        if chain.settles:
            self._settler = threading.Thread(target=self._settling, name="clawgate-audit-settle",
                                             daemon=True)
            self._settler.start()

    async def write(self, entry: Entry) -> int:
        """The record's sequence number once it is committed and durable (0 once it is in the
        intake); the database's error if not."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        self._inbox.put((entry, loop, future))
        return await future

    def _run(self) -> None:
        while True:
            items = _take(self._inbox, self.batch)
            if items is None:
                return
            self._commit(items)

    def _commit(self, items: list[Waiter]) -> None:
        outcome: Outcome
        head: Head | None = None
        try:
            if self.intake is not None:
                head = (0, self.intake.write([entry for entry, _, _ in items]))
                outcome = [0] * len(items)
            else:
                head = self.chain.write([entry for entry, _, _ in items])
                outcome = _seqs(head, len(items))
        except Unsure as exc:  # settled and looked up by the settler
            head, outcome = exc.head, exc
        except Exception as exc:  # the database is down: every waiting request fails closed
            if len(items) > 1 and _about_a_record(exc):
                for item in items:  # one record it cannot keep fails its own request only
                    self._commit([item])
                return
            outcome = exc
        if self._settler is None or not isinstance(outcome, Unsure):
            self._wake(items, outcome)  # a write that returned is durable
        else:
            self._written.put((items, outcome, head))

    def _settling(self) -> None:
        """Batches in doubt: settled and looked up, then their requests woken."""
        while True:
            batches = _take(self._written, None)
            if batches is None:
                return
            for items, outcome in self._settled(batches):
                self._wake(items, outcome)

    def _settled(self, batches: list[Written]) -> list[tuple[list[Waiter], Outcome]]:
        """Each batch in doubt (its commit or its settle failed) with its outcome once the
        chain is settled: answered only if the chain holds it."""
        doubt: BaseException | None = None
        deadline = time.monotonic() + self.recover_s
        pause = 0.05
        while True:
            try:
                self.chain.settle()
                kept = self._kept([h for _, _, h in batches if h is not None])
                return [(items, self._seqs(head, len(items)) if head in kept
                         else (outcome.cause if isinstance(outcome, Unsure) else doubt or outcome))
                        for items, outcome, head in batches]
            except Exception as exc:  # the database is away: look again until recover_s
                doubt = exc
                if time.monotonic() + pause > deadline:
                    return [(items, exc) for items, _, _ in batches]
                time.sleep(pause)
                pause = min(pause * 2, 1.0)

    def _kept(self, heads: list[Head]) -> set[Head]:
        """Which of the batches in doubt were kept (an intake's batch: ``(0, its name)``)."""
        if self.intake is None:
            return self.chain.kept(heads)
        names = self.intake.kept([name for _, name in heads])
        return {head for head in heads if head[1] in names}

    def _seqs(self, head: Head, count: int) -> list[int]:
        return [0] * count if self.intake is not None else _seqs(head, count)

    @staticmethod
    def _wake(items: list[Waiter], outcome: Outcome) -> None:
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
        if self._settler is not None:
            self._written.put(None)
            self._settler.join(10)
        if self.intake is not None:
            self.intake.close()
        self.chain.close()


def _take(inbox: queue.SimpleQueue[T | None], most: int | None) -> list[T] | None:
    """What is waiting (the first waited for; at most ``most``); None once closed."""
    first = inbox.get()
    if first is None:
        return None
    items = [first]
    while most is None or len(items) < most:
        try:
            more = inbox.get_nowait()
        except queue.Empty:
            break
        if more is None:
            inbox.put(None)
            break
        items.append(more)
    return items


def _seqs(head: Head, count: int) -> list[int]:
    return [head[0] - count + 1 + offset for offset in range(count)]


def _about_a_record(exc: Exception) -> bool:
    """The database refused a value (too long, a NUL), not the connection: the rest of the
    batch can still be written (a connection's failure is never retried: a commit whose answer
    was lost may have been made)."""
    return isinstance(exc, sa_exc.DataError) or type(exc) is sa_exc.StatementError


def _settle(waiting: list[tuple[asyncio.Future[int], int]], outcome: Outcome) -> None:
    for future, seq in waiting:
        if future.done():  # the request was cancelled (its client went away)
            continue
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(seq)
