"""Waiting for the audit intake to be linked: a reader of the chain (``policy audit verify``,
the audit views) sees every record handed in before it asked."""

from __future__ import annotations

import time

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from clawgate.serve.db import audit_intake

WITHIN_S = 30.0


class ChainBehind(SQLAlchemyError):
    """Records handed in stayed unlinked: no replica leads the chain (answered as a database
    that does not answer: 503)."""


def caught_up(engine: Engine, within_s: float = WITHIN_S) -> None:
    """Returns once no record that was in the intake at the call is still there."""
    with engine.connect() as conn:
        last = conn.execute(sa.select(sa.func.max(audit_intake.c.id))).scalar()
    if last is None:
        return
    waiting = sa.select(sa.exists().where(audit_intake.c.id <= last))
    deadline = time.monotonic() + within_s
    pause = 0.002
    while True:
        with engine.connect() as conn:
            if not conn.execute(waiting).scalar():
                return
        if time.monotonic() > deadline:
            raise ChainBehind(f"audit records handed in stayed unlinked for {within_s:.0f} s: "
                              "no replica leads the audit chain")
        time.sleep(pause)
        pause = min(pause * 2, 0.1)
