"""The audit chain's writes on PostgreSQL: one round trip a batch (two at most), and the
chain's lock never held through a flush of the disk.

Written through SQLAlchemy, a batch cost nine round trips (the pool's ping, ``BEGIN``, the
lock, the head, the insert, the commit, ...), and its commit waited for PostgreSQL to flush its
WAL to disk while it still held the chain's advisory lock: every other writer of the chain, on
this replica or another, waited through that flush as well, so one replica answered about 900
decisions a second at 20 clients whatever the CPU could do.

Here a batch is one round trip: a pipeline of ``BEGIN``, ``synchronous_commit`` off for the
transaction with the lock, the insert (one statement: the batch as arrays) after the head this
process wrote last, made only if that is still the head once the lock is held (it answers the
head it found), ``COMMIT``, and then the batch's settle. If another replica wrote meanwhile,
the same again after the head it saw; after ``TRIES`` such misses (or with no head known) the
lock and the head are read first and the insert follows: two round trips. The insert's commit
does not wait for the disk, so the lock passes on at once.

Two replicas under load write in turn, and then nearly every such insert missed: its rows (an
HMAC and the arrays each) were built for nothing, and the batch cost two or three round trips
all the same. So after a miss the next batch reads the head first (two round trips, its rows
built once), and goes back to the one-trip way once the head it finds is the one it wrote.

The settle makes every commit made before it durable: a transaction that writes a WAL record (a
transactional logical-decoding message, which nothing reads unless a decoder is set up) and
commits at the server's ``synchronous_commit`` flushes the WAL up to its own commit record,
past every commit before it; settles of several writers at once share one flush (PostgreSQL's
group commit). In a batch's pipeline it follows the insert's ``COMMIT`` (the lock is no longer
held) and writes its record only if the batch's last record is in the chain, so a miss costs no
flush. ``write`` returns once its batch is durable, and a request is answered only after that
(``AuditWriter``): every answered decision is on disk. A batch used to be settled on a
connection of its own by a second thread: two round trips a batch, and two threads' turns at
the GIL behind the event loop's; in one pipeline the batch costs the database and the replica
less (measured: docs/benchmarks.md), and the writer's wait for the flush (on the socket, the
GIL given up) lets the next batch gather. The WAL is written and replayed in order: a crash
between a commit and its settle loses the end of the chain (records nobody was answered for,
and any written on top of them), never a record in the middle.

A batch whose connection fails after its ``COMMIT`` was sent may or may not be committed: that
is ``Unsure``, with the head the batch would have made, for the caller to look up once the
database answers again (``Chain.kept``).

Each ``Link`` holds one connection of its own (autocommit: the transactions are spelled out),
made again after it fails; errors are raised as SQLAlchemy's, as everywhere else.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import psycopg
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Engine

from clawgate.serve.db import CHAIN_LOCK

T = TypeVar("T")

LAZY = b"SET LOCAL synchronous_commit TO off"
LOCK = f"SELECT pg_advisory_xact_lock({CHAIN_LOCK})".encode()
LAZY_LOCK = ("SELECT set_config('synchronous_commit', 'off', true), "
             f"pg_advisory_xact_lock({CHAIN_LOCK})").encode()
HEAD = b"SELECT seq, mac FROM audit ORDER BY seq DESC LIMIT 1"
LOCK_AND_HEAD = b"BEGIN; " + LAZY + b"; " + LOCK + b"; " + HEAD
TRIES = 2  # inserts after a head known, before the head is read under the lock
COLUMNS = ("seq", "time", "agent", "session", "tool", "outcome", "rule", "body", "prev", "mac")
# The arrays go in binary (%b): in text, each string of each array is escaped by a regular
# expression in Python, which cost more than the rest of the batch's work.
INSERT = ("INSERT INTO audit (seq, time, agent, session, tool, outcome, rule, body, prev, mac) "
          "SELECT * FROM unnest(%b::bigint[], %b::float8[], %b::text[], %b::text[], %b::text[], "
          "%b::text[], %b::text[], %b::text[], %b::text[], %b::text[])")
# The same, only if (seq, mac) is still the head: the lock is taken by the statement before,
# so this statement's snapshot sees every commit made before the lock was had. It answers how
# many rows it inserted and the head before them (one snapshot: the insert is not seen).
INSERT_AFTER = ("WITH added AS (" + INSERT
                + " WHERE EXISTS (SELECT 1 FROM audit WHERE seq = %s AND mac = %s) "
                "AND NOT EXISTS (SELECT 1 FROM audit WHERE seq > %s) RETURNING 1) "
                "SELECT (SELECT count(*) FROM added), head.seq, head.mac FROM (SELECT 1) one "
                "LEFT JOIN (SELECT seq, mac FROM audit ORDER BY seq DESC LIMIT 1) head ON true")
SETTLE = b"BEGIN; SELECT pg_logical_emit_message(true, 'clawgate', 'audit'); COMMIT"
# A batch's settle, in the batch's own pipeline after its COMMIT (the lock no longer held): a
# WAL record, and a flush of the WAL at its commit, only if the batch's last record is in the
# chain; after a miss nothing is written, and a commit that wrote nothing waits for no disk.
SETTLE_AFTER = ("SELECT pg_logical_emit_message(true, 'clawgate', 'audit')::text "
                "FROM audit WHERE seq = %s AND mac = %s")


class Unsure(Exception):
    """A batch's connection failed after its commit was sent: it may have been committed."""

    def __init__(self, cause: Exception, head: tuple[int, str]) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.head = head


class Link:
    """One connection of its own to the database, for one kind of work at a time."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()

    def run(self, work: Callable[[psycopg.Connection[Any]], T], what: str) -> T:
        with self._lock:
            try:
                conn = self._connection()
            except psycopg.Error as exc:  # the pool's connect raises the driver's own errors
                raise sa_exc.DBAPIError.instance(what, None, exc, psycopg.Error) from exc
            try:
                return work(conn)
            except psycopg.Error as exc:
                self._recover(conn)
                raise sa_exc.DBAPIError.instance(what, None, exc, psycopg.Error) from exc

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            self._conn = detached(self.engine)
        return self._conn

    def _recover(self, conn: psycopg.Connection[Any]) -> None:
        """After a failure: end the transaction, or drop the connection if it is broken."""
        try:
            if not conn.closed and not conn.broken:
                conn.execute(b"ROLLBACK")
                return
        except psycopg.Error:
            pass
        conn.close()
        self._conn = None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class PgChainLog:
    """The chain's writes on PostgreSQL, on a link of their own (``write`` from one thread at
    a time: the audit writer's), and the settles after a write in doubt on another."""

    def __init__(self, engine: Engine) -> None:
        self._writes = Link(engine)
        self._settles = Link(engine)
        self._last: tuple[int, str] | None = None  # the head this process wrote last
        # Another writer wrote between this one's last two batches: the next reads the head
        # first, and builds its rows once (an insert after a head gone stale builds them twice).
        self._shared = False
        self.flushed: str | None = None  # the WAL position the last batch's settle flushed to

    def write(self, build: Callable[[tuple[int, str] | None], list[dict[str, Any]]],
              ) -> tuple[int, str] | None:
        """Under the chain's lock, the rows ``build(head)`` makes after the head (its ``seq``
        and ``mac``; None for an empty chain), committed and durable; the new head."""
        sent: list[tuple[int, str]] = []

        def work(conn: psycopg.Connection[Any]) -> tuple[int, str] | None:
            last, self._last = self._last, None  # known again only once this commits
            wrote = last
            for attempt in range(0 if self._shared else TRIES):
                if last is None:
                    break
                done, last = self._after(conn, last, build, sent)
                if done is not None:
                    self._last, self._shared = done, attempt > 0
                    return done
            self._last, found = self._after_head(conn, build, sent)
            self._shared = found != wrote
            return self._last

        try:
            return self._writes.run(work, "INSERT INTO audit")
        except sa_exc.DBAPIError as exc:
            if sent and not isinstance(exc, sa_exc.DataError | sa_exc.IntegrityError):
                raise Unsure(exc, sent[-1]) from exc
            raise

    def _after(self, conn: psycopg.Connection[Any], last: tuple[int, str],
               build: Callable[[tuple[int, str] | None], list[dict[str, Any]]],
               sent: list[tuple[int, str]],
               ) -> tuple[tuple[int, str] | None, tuple[int, str] | None]:
        """One round trip: the rows after ``last`` (the head this process wrote or saw last),
        inserted only if that is still the head once the lock is held (another replica may
        have written since). The new head, or None and the head there was instead."""
        rows = build(last)
        if not rows:
            return last, last
        sent.append((int(rows[-1]["seq"]), str(rows[-1]["mac"])))
        # The extended protocol takes one statement a message, and each costs the writer a
        # wait on the socket (the GIL given up and taken again): four statements.
        with conn.pipeline():
            conn.execute(b"BEGIN")
            conn.execute(LAZY_LOCK)
            found = conn.execute(INSERT_AFTER, [*_arrays(rows), last[0], last[1], last[0]])
            conn.execute(b"COMMIT")
            settled = _settle_after(conn, sent[-1])
        row = found.fetchone()
        assert row is not None  # one row, always
        if int(row[0]) == len(rows):
            self.flushed = _position(settled)
            return sent[-1], None
        return None, None if row[1] is None else (int(row[1]), str(row[2]))

    def _after_head(self, conn: psycopg.Connection[Any],
                    build: Callable[[tuple[int, str] | None], list[dict[str, Any]]],
                    sent: list[tuple[int, str]],
                    ) -> tuple[tuple[int, str] | None, tuple[int, str] | None]:
        """Two round trips: the lock and the head, then the rows after it. The new head, and
        the head found."""
        cur = conn.execute(LOCK_AND_HEAD)
        while cur.nextset():
            pass
        row = cur.fetchone()
        head = None if row is None else (int(row[0]), str(row[1]))
        rows = build(head)
        if not rows:
            conn.execute(b"COMMIT")
            return head, head
        sent.append((int(rows[-1]["seq"]), str(rows[-1]["mac"])))
        with conn.pipeline():
            conn.execute(INSERT, _arrays(rows))
            conn.execute(b"COMMIT")
            settled = _settle_after(conn, sent[-1])
        self.flushed = _position(settled)
        return sent[-1], head

    def settle(self) -> None:
        """Every commit made before this call is on disk (a write returned durable; this is
        for the look-up after a write in doubt)."""
        self._settles.run(lambda conn: conn.execute(SETTLE), "settle the audit chain")

    def close(self) -> None:
        self._writes.close()
        self._settles.close()


def _settle_after(conn: psycopg.Connection[Any],
                  head: tuple[int, str]) -> psycopg.Cursor[Any]:
    """The batch's settle, queued in its pipeline after its ``COMMIT`` (its cursor: the
    position of the WAL record it wrote, if it wrote one)."""
    conn.execute(b"BEGIN")
    settled = conn.execute(SETTLE_AFTER, head)
    conn.execute(b"COMMIT")
    return settled


def _position(settled: psycopg.Cursor[Any]) -> str:
    row = settled.fetchone()
    assert row is not None  # the batch's last record is in the chain: its settle wrote
    return str(row[0])


def _arrays(rows: Sequence[dict[str, Any]]) -> list[list[Any]]:
    return [[row[column] for row in rows] for column in COLUMNS]


def detached(engine: Engine) -> psycopg.Connection[Any]:
    """A psycopg connection of ``engine``'s, in autocommit, never handed back to the pool (it
    stays in autocommit, or holds a session lock)."""
    raw = engine.raw_connection()
    conn = raw.driver_connection
    raw.detach()
    assert isinstance(conn, psycopg.Connection)
    conn.autocommit = True
    return conn
