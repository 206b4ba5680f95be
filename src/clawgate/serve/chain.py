"""The service's audit trail: one hash chain in the database, keyed, with no gaps.

Each record has a sequence number, the chain value of the record before (``prev``) and its own
``mac``: HMAC-SHA256, under the audit key, of the record's canonical JSON with ``seq`` and
``prev`` in it. Writers take the chain's write lock (an advisory lock on PostgreSQL, a process
lock on SQLite), read the head, and insert ``seq + 1`` in the same transaction, so concurrent
writers on several replicas make one chain: a unique ``seq`` and a ``prev`` that matches.
``write`` returns once the records are durable (on PostgreSQL the commit that releases the
chain's lock does not wait for the disk, and a settle in the same round trip then does, so
that the lock is not held through a flush: ``clawgate.serve.pgchain``; on SQLite a commit is
both); ``settle`` makes durable whatever a write in doubt may have committed. ``verify``
walks the chain in order and reports the first gap, break or forged record. The service on
PostgreSQL does not write here itself: its replicas hand their records in and the one leading
the chain links them (``clawgate.serve.intake``); ``verify`` and the audit views first wait
for what was handed in before them (``caught_up``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from clawgate.serve.db import audit, write_lock, writing
from clawgate.serve.intakewait import caught_up
from clawgate.serve.pgchain import PgChainLog, Unsure

GENESIS = "0" * 64
Head = tuple[int, str]  # a record's seq and mac


@dataclass(frozen=True, slots=True)
class Entry:
    agent: str
    session: str
    tool: str
    outcome: str
    rule: str
    body: Mapping[str, Any]


def _canonical(seq: int, when: float, entry: Entry, prev: str) -> bytes:
    return json.dumps({"seq": seq, "time": round(when, 6), "agent": entry.agent,
                       "session": entry.session, "tool": entry.tool, "outcome": entry.outcome,
                       "rule": entry.rule, "body": entry.body, "prev": prev},
                      sort_keys=True, separators=(",", ":"), default=str).encode()


def mac_of(key: bytes, seq: int, when: float, entry: Entry, prev: str) -> str:
    """A record's chain value: HMAC-SHA256 of its canonical JSON under the audit key."""
    return hmac.new(key, _canonical(seq, when, entry, prev), hashlib.sha256).hexdigest()


# One encoder, made once (a constant): json.dumps with options builds a new one at each call,
# which cost more than encoding a record's small pieces.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str)


def _dump(value: object) -> str:
    return _CANONICAL.encode(value)


def canonical_parts(when: float, entry: Entry) -> tuple[str, str, str]:
    """A record's canonical JSON without its ``seq`` and ``prev``, in the three pieces they
    go between (its keys sorted: agent, body, outcome, prev, rule, seq, session, time, tool),
    for ``spliced``: made where the record is handed in, so that the writer that links it
    into the chain does not read the record back or encode it again."""
    first = _dump({"agent": entry.agent, "body": entry.body, "outcome": entry.outcome})
    middle = _dump({"rule": entry.rule})
    last = _dump({"session": entry.session, "time": round(when, 6), "tool": entry.tool})
    return first[:-1] + ",", middle[1:-1] + ",", last[1:]


def spliced(key: bytes, parts: tuple[str, str, str], seq: int, prev: str) -> str:
    """The chain value of the record whose ``canonical_parts`` are ``parts`` at ``seq``
    after ``prev``: the same as ``mac_of``."""
    text = f'{parts[0]}"prev":{json.dumps(prev)},{parts[1]}"seq":{seq:d},{parts[2]}'
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


__all__ = ["GENESIS", "Chain", "Entry", "Head", "Unsure", "canonical_parts", "mac_of",
           "spliced"]


class Chain:
    """Appends to and verifies the audit chain of one database under one key."""

    def __init__(self, engine: Engine, key: bytes) -> None:
        self.engine = engine
        self.key = key
        self._pg = PgChainLog(engine) if engine.dialect.name == "postgresql" else None

    @property
    def settles(self) -> bool:
        """Whether a ``write`` can end in doubt, ``Unsure``, which a ``settle`` and ``kept``
        resolve once the database answers again (PostgreSQL)."""
        return self._pg is not None

    def append(self, entries: list[Entry]) -> int:
        """Write ``entries`` in order, in one transaction, durably; the last sequence number."""
        last, _ = self.write(entries)
        return last

    def write(self, entries: list[Entry]) -> Head:
        """Commit ``entries`` in order, in one transaction, durably; the last record's ``seq``
        and ``mac``. On PostgreSQL, a failure after the commit was sent is ``Unsure``
        (``settle``, then ``kept`` tells, once the database answers again)."""
        if self._pg is not None:
            return self._pg.write(lambda head: self._rows(head, entries)) or (0, GENESIS)
        with writing(self.engine) as conn:
            write_lock(conn)
            rows = self._rows(self._head(conn), entries)
            if rows:
                conn.execute(audit.insert(), rows)
            return (int(rows[-1]["seq"]), str(rows[-1]["mac"])) if rows else self._head(conn)

    def settle(self) -> None:
        """Every record written before this call is durable."""
        if self._pg is not None:
            self._pg.settle()

    def kept(self, records: list[Head]) -> set[Head]:
        """Which of ``records`` (``seq``, ``mac``) the chain holds: after a ``settle`` that
        returned, those are durable, and the others are lost for good (never committed, or
        lost with a crash of the database)."""
        if not records:
            return set()
        query = sa.select(audit.c.seq, audit.c.mac).where(
            audit.c.seq.in_([seq for seq, _ in records]))
        with self.engine.connect() as conn:
            found = {(int(row.seq), str(row.mac)) for row in conn.execute(query)}
        return found & set(records)

    def caught_up(self) -> None:
        """Returns once every record in the intake when called is in the chain (PostgreSQL:
        records handed in by the replicas wait there for the chain's leader to link them)."""
        if self._pg is not None:
            caught_up(self.engine)

    def close(self) -> None:
        if self._pg is not None:
            self._pg.close()

    def _rows(self, head: Head | None, entries: list[Entry]) -> list[dict[str, Any]]:
        """The records of ``entries`` after ``head`` (seq and mac; None: the chain is empty)."""
        seq, prev = head or (0, GENESIS)
        rows = []
        for entry in entries:
            seq += 1
            when = time.time()
            mac = mac_of(self.key, seq, when, entry, prev)
            rows.append({"seq": seq, "time": when, "agent": entry.agent,
                         "session": entry.session, "tool": entry.tool,
                         "outcome": entry.outcome, "rule": entry.rule,
                         "body": json.dumps(entry.body, default=str), "prev": prev,
                         "mac": mac})
            prev = mac
        return rows

    @staticmethod
    def _head(conn: Connection) -> tuple[int, str]:
        row = conn.execute(sa.select(audit.c.seq, audit.c.mac)
                           .order_by(audit.c.seq.desc()).limit(1)).first()
        return (0, GENESIS) if row is None else (int(row.seq), str(row.mac))

    def count(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(audit)).scalar_one())

    def rows(self, batch: int = 5000) -> Iterator[Any]:
        last = 0
        while True:
            with self.engine.connect() as conn:
                page = conn.execute(sa.select(audit).where(audit.c.seq > last)
                                    .order_by(audit.c.seq).limit(batch)).all()
            if not page:
                return
            yield from page
            last = int(page[-1].seq)

    def verify(self) -> dict[str, object]:
        """``{"ok", "records", "first_bad", "why"}`` over the whole chain (on PostgreSQL,
        once every record handed in before the call is linked into it)."""
        self.caught_up()
        expected_seq, prev, count = 1, GENESIS, 0
        for row in self.rows():
            problem = self._problem(row, expected_seq, prev)
            if problem:
                return {"ok": False, "records": count, "first_bad": row.seq, "why": problem}
            expected_seq, prev, count = row.seq + 1, row.mac, count + 1
        return {"ok": True, "records": count, "first_bad": None,
                "why": f"{count} records, chain intact"}

    def _problem(self, row: Any, expected_seq: int, prev: str) -> str | None:
        if row.seq != expected_seq:
            return f"record {expected_seq} is missing (the next is {row.seq})"
        if row.prev != prev:
            return f"does not chain to record {row.seq - 1}"
        entry = Entry(row.agent, row.session, row.tool, row.outcome, row.rule,
                      json.loads(row.body))
        mac = mac_of(self.key, row.seq, row.time, entry, row.prev)
        if not hmac.compare_digest(mac, row.mac):
            return "its mac does not match: altered, or written without the key"
        return None
