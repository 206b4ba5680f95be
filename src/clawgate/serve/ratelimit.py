"""Per-agent rate limits counted in the database, so that replicas share one budget.

A fixed one-second window per agent: the first request of a window inserts its row, the rest
increment it. Over ``per_second`` the request is refused with 429 and a Retry-After. Counting
one agent's flood touches only that agent's row, so other agents are not slowed by it.
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from clawgate.serve.db import rates


class AgentLimiter:
    def __init__(self, engine: Engine, per_second: int) -> None:
        self.engine = engine
        self.per_second = per_second
        self._swept = 0

    def admit(self, agent: str) -> bool:
        """Count one request of ``agent``; False when its window is full."""
        window = int(time.time())
        with self.engine.begin() as conn:
            done = conn.execute(rates.update().where(
                (rates.c.agent == agent) & (rates.c.window == window)
                & (rates.c.count < self.per_second)).values(count=rates.c.count + 1))
            if done.rowcount:
                return True
            exists = conn.execute(sa.select(rates.c.count).where(
                (rates.c.agent == agent) & (rates.c.window == window))).first()
            if exists is not None:
                return False
        try:
            with self.engine.begin() as conn:
                conn.execute(rates.insert().values(agent=agent, window=window, count=1))
        except IntegrityError:  # another replica opened the window first
            return self.admit(agent)
        self._sweep(window)
        return True

    def _sweep(self, window: int) -> None:
        if window - self._swept < 60:
            return
        self._swept = window
        with self.engine.begin() as conn:
            conn.execute(rates.delete().where(rates.c.window < window - 60))
