"""The audit chain with one writer: every replica hands its records in, one links them.

Two replicas writing the chain each wrote half-size batches and took turns at its head: each
batch paid for the chain's lock, a check of the head, two transactions and a flush of the WAL,
and an insert after a head the other replica had just moved missed. Two replicas cost nearly
twice the CPU a decision of one, and answered fewer decisions together than one alone.

Here a replica's audit writer hands a batch in with one statement (``Intake.write``: a
multi-row insert into ``audit_intake``, committed at the server's ``synchronous_commit``, so
the records are on disk when it returns, and the requests are answered then). The replica that
holds the chain's lead (a session advisory lock, ``LEAD_LOCK``) links the intake into the chain
in large batches (``Linker``): under the chain's lock it reads the head and the oldest
records' canonical JSON (made when they were handed in, without seq and prev:
``chain.canonical_parts``), chains them (seq, prev, HMAC), and moves them from the intake into
the chain in one statement, in one transaction.
Taking a record out and chaining it commit together: a record is chained once or stays in the
intake. That commit does not wait for the disk: the records it moves are on disk already, and
a crash that loses it loses its delete as well (the WAL is replayed in order), so they are
linked again. Every replica runs a linker; the others try the lock every ``wait_s``, so when
the leader dies (its connection closes and PostgreSQL releases the lock) another takes over.

A hand-in whose connection fails after the statement was sent may have been committed: that is
``Unsure`` with the batch's name, looked up (``Intake.kept``) in the intake and, once linked,
in ``audit_linked``, which keeps the names of linked batches for ``KEEP_S``.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Sequence
from typing import Any

import psycopg
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Engine

from clawgate.serve.chain import GENESIS, Entry, canonical_parts, spliced
from clawgate.serve.db import LEAD_LOCK
from clawgate.serve.pgchain import HEAD, LAZY_LOCK, Link, Unsure, detached

LOG = logging.getLogger("clawgate.serve")

# The batch as one JSON text (an array of each record's strings), not as eleven arrays: the
# driver encodes each array parameter in Python, element by element, which cost a replica more
# than the rest of the hand-in.
HAND_IN = ("INSERT INTO audit_intake (batch, time, agent, session, tool, outcome, rule, body, "
           "part_a, part_r, part_s) SELECT %s, %s, r->>0, r->>1, r->>2, r->>3, r->>4, r->>5, "
           "r->>6, r->>7, r->>8 FROM json_array_elements(%s::json) AS r")
KEPT = ("SELECT batch FROM audit_intake WHERE batch = ANY(%s) "
        "UNION SELECT batch FROM audit_linked WHERE batch = ANY(%s)")
TRY_LEAD = f"SELECT pg_try_advisory_lock({LEAD_LOCK})".encode()
TAKE = "SELECT id, batch, part_a, part_r, part_s FROM audit_intake ORDER BY id LIMIT %s"
# The records taken out of the intake and into the chain in one statement, their seq, prev
# and mac given: the record itself never travels to the linker and back.
MOVE = ("WITH taken AS (DELETE FROM audit_intake i USING unnest(%b::bigint[], %b::bigint[], "
        "%b::text[], %b::text[]) AS l(id, seq, prev, mac) WHERE i.id = l.id RETURNING l.seq, "
        "i.time, i.agent, i.session, i.tool, i.outcome, i.rule, i.body, l.prev, l.mac) "
        "INSERT INTO audit (seq, time, agent, session, tool, outcome, rule, body, prev, mac) "
        "SELECT * FROM taken")
LINKED = ("INSERT INTO audit_linked (batch, time) SELECT DISTINCT unnest(%b::text[]), %s "
          "ON CONFLICT DO NOTHING")
FORGET = "DELETE FROM audit_linked WHERE time < %s"
KEEP_S = 3600.0  # a batch in doubt is looked up within the audit writer's recover_s (60 s)


class Intake:
    """Hands audit records in, durably, for the chain's leader to link."""

    def __init__(self, engine: Engine) -> None:
        self._writes = Link(engine)
        self._lookups = Link(engine)

    def write(self, entries: Sequence[Entry]) -> str:
        """``entries`` in the intake, on disk; the batch's name."""
        batch = secrets.token_hex(16)
        now = time.time()
        records = json.dumps([[e.agent, e.session, e.tool, e.outcome, e.rule,
                               json.dumps(e.body, default=str), *canonical_parts(now, e)]
                              for e in entries])
        sent = False

        def work(conn: psycopg.Connection[Any]) -> None:
            nonlocal sent
            sent = True
            conn.execute(HAND_IN, [batch, now, records])

        try:
            self._writes.run(work, "INSERT INTO audit_intake")
        except sa_exc.DBAPIError as exc:
            if sent and not isinstance(exc, sa_exc.DataError | sa_exc.IntegrityError):
                raise Unsure(exc, (0, batch)) from exc
            raise
        return batch

    def kept(self, batches: list[str]) -> set[str]:
        """Which of ``batches`` were committed (in the intake, or linked already)."""
        if not batches:
            return set()
        found = self._lookups.run(lambda conn: conn.execute(KEPT, [batches, batches]).fetchall(),
                                  "look up audit batches")
        return {str(row[0]) for row in found}

    def close(self) -> None:
        self._writes.close()
        self._lookups.close()


def link(conn: psycopg.Connection[Any], key: bytes, most: int) -> int:
    """One transaction: the oldest ``most`` records of the intake chained after the head; how
    many (the caller holds the lead; the chain's lock is taken here as every writer takes it,
    so no other writer moves the head or takes these records meanwhile)."""
    with conn.pipeline():
        conn.execute(b"BEGIN")
        conn.execute(LAZY_LOCK)
        head = conn.execute(HEAD)
        taken = conn.execute(TAKE, [most])
    records = taken.fetchall()
    if not records:
        conn.execute(b"COMMIT")
        return 0
    found = head.fetchone()
    seq, prev = (0, GENESIS) if found is None else (int(found[0]), str(found[1]))
    ids, seqs, prevs, macs = [], [], [], []
    for id_, _, part_a, part_r, part_s in records:
        seq += 1
        mac = spliced(key, (part_a, part_r, part_s), seq, prev)
        ids.append(int(id_))
        seqs.append(seq)
        prevs.append(prev)
        macs.append(mac)
        prev = mac
    now = time.time()
    with conn.pipeline():
        moved = conn.execute(MOVE, [ids, seqs, prevs, macs])
        conn.execute(LINKED, [sorted({str(r[1]) for r in records}), now])
        conn.execute(FORGET, [now - KEEP_S])
    if moved.rowcount != len(records):  # never: the lock keeps every other linker out
        conn.execute(b"ROLLBACK")
        raise psycopg.DataError(f"{len(records)} intake records taken, {moved.rowcount} moved")
    conn.execute(b"COMMIT")
    return len(records)


class Linker:
    """A thread that leads the chain when it can (``LEAD_LOCK``) and then links the intake:
    at once while records come, less often while none do."""

    def __init__(self, engine: Engine, key: bytes, most: int = 5000, gather_s: float = 0.005,
                 idle_s: float = 0.1, wait_s: float = 0.2) -> None:
        self.engine = engine
        self.key = key
        self.most = most
        self.gather_s = gather_s  # after a link: records gather for the next
        self.idle_s = idle_s  # the longest pause between looks at an empty intake
        self.wait_s = wait_s  # between tries of the lead held by another replica
        self._conn: psycopg.Connection[Any] | None = None
        self.leading = False
        self._stop = threading.Event()
        self._failed = False
        self._thread = threading.Thread(target=self._run, name="clawgate-audit-link",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        pause = 0.0
        while not self._stop.wait(pause):
            pause = self._turn(pause)
        self._turn(0.0, draining=True)
        self._drop()

    def _turn(self, pause: float, draining: bool = False) -> float:
        """One look (linking while it links ``most`` at a time when ``draining``); the pause
        before the next."""
        try:
            conn = self._connection()
            if not self.leading:
                self.leading = bool(conn.execute(TRY_LEAD).fetchone() == (True,))
                if not self.leading:
                    return self.wait_s
            linked = link(conn, self.key, self.most)
            while draining and linked == self.most:
                linked = link(conn, self.key, self.most)
            self._failed = False
        except (psycopg.Error, sa_exc.SQLAlchemyError) as exc:
            if not self._failed:
                LOG.error("policy serve: linking the audit intake failed (%s: %s); trying "
                          "again", type(exc).__name__, str(exc).splitlines()[0][:300])
            self._failed = True
            self._drop()
            return max(self.wait_s, 0.5)
        if linked:
            return self.gather_s
        return min(max(pause * 2, self.gather_s), self.idle_s)

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            self._conn = detached(self.engine)  # never handed back: it holds the lead
            self.leading = False
        return self._conn

    def _drop(self) -> None:
        """The connection closed: the lead, if held, passes to another replica."""
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        self.leading = False

    def close(self) -> None:
        """Stops; the leader links what is left first (a replica stopped last leaves no
        record unlinked)."""
        self._stop.set()
        self._thread.join(30)
