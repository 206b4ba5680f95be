"""Per-agent rate limits, counted in the database so that replicas share one budget.

A fixed one-second window per agent. Admission never waits on the database: each replica counts
what it admitted in memory and, every ``FLUSH_S``, adds its counts to the agent's row of the
window in the database and reads back the total of every replica. A request is admitted while
the last total read plus what this replica admitted since stays under ``per_second``; over it,
429 with a Retry-After. Replicas may together overshoot a window by what they admit between two
flushes (a bounded, documented slack). One agent's flood touches only that agent's counters, so
other agents are not slowed by it.

On PostgreSQL a flush is one round trip on a connection of its own (``PgCounts``): the counts
added by one upsert, old windows swept, the totals read back, pipelined. Through SQLAlchemy it
cost about eight round trips (the pool's pings, the transaction, an update or an insert per
agent, the read) and 1.5 ms of the replica's CPU, twenty times a second whatever the load: with
two replicas each paid it for half the decisions.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from clawgate.serve.db import rates, writing
from clawgate.serve.pgchain import Link

FLUSH_S = 0.05
# Counts, not records: the commit does not wait for the disk (a crash of the database may
# forget the last counts of a window, which only lets a few more in).
ADD = ("INSERT INTO rates (agent, \"window\", count) "
       "SELECT * FROM unnest(%s::text[], %s::bigint[], %s::int[]) "
       "ON CONFLICT (agent, \"window\") DO UPDATE SET count = rates.count + excluded.count")
SWEEP = "DELETE FROM rates WHERE \"window\" < %s"
TOTALS = "SELECT agent, \"window\", count FROM rates WHERE \"window\" >= %s"


class PgCounts:
    """A flush on PostgreSQL in one round trip: add, sweep (when asked), read the totals."""

    def __init__(self, engine: Engine) -> None:
        self._link = Link(engine)

    def flush(self, pending: dict[tuple[str, int], int], window: int,
              sweep: bool) -> dict[tuple[str, int], int]:
        def work(conn: Any) -> list[Any]:
            with conn.pipeline():
                conn.execute(b"SET synchronous_commit TO off")
                if pending:
                    keys = list(pending)
                    conn.execute(ADD, [[a for a, _ in keys], [w for _, w in keys],
                                       [pending[k] for k in keys]])
                if sweep:
                    conn.execute(SWEEP, [window - 60])
                found = conn.execute(TOTALS, [window - 1])
            return list(found.fetchall())

        rows = self._link.run(work, "flush the rate counts")
        return {(str(agent), int(second)): int(count) for agent, second, count in rows}

    def close(self) -> None:
        self._link.close()


class AgentLimiter:
    def __init__(self, engine: Engine, per_second: int) -> None:
        self.engine = engine
        self.per_second = per_second
        self._lock = threading.Lock()
        self._pending: defaultdict[tuple[str, int], int] = defaultdict(int)
        self._shared: dict[tuple[str, int], int] = {}
        self._swept = -1  # the window whose flush last swept old rows
        self._pg = PgCounts(engine) if engine.dialect.name == "postgresql" else None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="clawgate-rates", daemon=True)
        self._thread.start()

    def admit(self, agent: str) -> bool:
        """Count one request of ``agent``; False when its window is full."""
        key = (agent, int(time.time()))
        with self._lock:
            if self._shared.get(key, 0) + self._pending[key] >= self.per_second:
                return False
            self._pending[key] += 1
            return True

    def _run(self) -> None:
        while not self._stop.wait(FLUSH_S):
            try:
                self.flush()
            except Exception:  # the database is away: counts wait in memory for the next flush
                continue

    def flush(self) -> None:
        with self._lock:
            pending, self._pending = dict(self._pending), defaultdict(int)
        window = int(time.time())
        try:
            if self._pg is not None:
                totals = self._pg.flush(pending, window, window != self._swept)
                self._swept = window
            else:
                self._add(pending, window)
                totals = self._read(window)
        except Exception:
            with self._lock:  # nothing was counted: keep it for the next flush
                for key, count in pending.items():
                    self._pending[key] += count
            raise
        with self._lock:
            self._shared = {k: v for k, v in {**self._shared, **totals}.items()
                            if k[1] >= window - 1}

    def _add(self, pending: dict[tuple[str, int], int], window: int) -> None:
        """This replica's counts into the shared rows, in one short write transaction (the
        audit writer queues behind it on SQLite): nothing when nothing was admitted, and the
        rows of old windows swept once a second, not at every flush. On PostgreSQL its commit
        does not wait for the disk (twenty flushes a second beside the audit's): a crash of the
        database may forget the last counts of a window, which only lets a few more in."""
        sweep = window != self._swept
        if not pending and not sweep:
            return
        with writing(self.engine) as conn:
            if conn.dialect.name == "postgresql":  # counts, not records: no wait for the disk
                conn.execute(sa.text("SET LOCAL synchronous_commit TO off"))
            for (agent, second), count in pending.items():
                where = (rates.c.agent == agent) & (rates.c.window == second)
                done = conn.execute(rates.update().where(where)
                                    .values(count=rates.c.count + count))
                if not done.rowcount:
                    conn.execute(rates.insert().values(agent=agent, window=second, count=count))
            if sweep:
                conn.execute(rates.delete().where(rates.c.window < window - 60))
        self._swept = window

    def _read(self, window: int) -> dict[tuple[str, int], int]:
        """Every replica's totals of the current and the last window (a read: no write lock)."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(rates).where(rates.c.window >= window - 1)).all()
        return {(r.agent, int(r.window)): int(r._mapping["count"]) for r in rows}

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        if self._pg is not None:
            self._pg.close()


class Concurrent:
    """How many of something (long polls) each caller holds open in this process, capped."""

    def __init__(self, per_caller: int) -> None:
        self.per_caller = per_caller
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()

    def enter(self, caller: str) -> bool:
        with self._lock:
            held = self._open.get(caller, 0)
            if held >= self.per_caller:
                return False
            self._open[caller] = held + 1
            return True

    def leave(self, caller: str) -> None:
        with self._lock:
            held = self._open.get(caller, 1) - 1
            if held > 0:
                self._open[caller] = held
            else:
                self._open.pop(caller, None)
