"""Bearer tokens: a role and an agent name each, stored as their sha256 only.

Roles: ``agent`` (check, call, and wait on its own requests), ``viewer`` (read the queue and the
audit), ``approver`` (a viewer who answers requests), ``admin`` (an approver who manages grants
and tokens). An agent token may name its agent's workspace (else the service's is the agent's):
what a request says about its workspace never changes it. A token is shown once, when it is
made: ``cg_<id>_<secret>``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from clawgate.serve.db import tokens

ROLES = ("agent", "viewer", "approver", "admin")
RANK = {role: rank for rank, role in enumerate(ROLES)}


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request comes from."""

    token_id: str
    role: str
    agent: str
    workspace: str | None = None  # an agent token's own workspace (None: the service's)

    def at_least(self, role: str) -> bool:
        """``agent`` ranks lowest; each role can do what the ones before it can, except that
        only an agent token acts for an agent."""
        return RANK[self.role] >= RANK[role]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def create(engine: Engine, role: str, agent: str, workspace: str | None = None) -> str:
    """Make a token; the only time its text is known. ``workspace`` (an agent token's only)
    is kept as its real path."""
    if role not in RANK:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    if workspace is not None and role != "agent":
        raise ValueError("only an agent token has a workspace")
    home = None if workspace is None else os.path.realpath(workspace)
    token_id = secrets.token_hex(4)
    token = f"cg_{token_id}_{secrets.token_urlsafe(24)}"
    with engine.begin() as conn:
        conn.execute(tokens.insert().values(id=token_id, digest=_digest(token), role=role,
                                            agent=agent, created=time.time(), revoked=False,
                                            workspace=home))
    return token


def resolve(engine: Engine, token: str) -> Principal | None:
    """The principal of a live token, or None."""
    digest = _digest(token)
    with engine.connect() as conn:
        row = conn.execute(sa.select(tokens).where(tokens.c.digest == digest)).first()
    if row is None or row.revoked or not hmac.compare_digest(row.digest, digest):
        return None
    return Principal(row.id, row.role, row.agent, row.workspace)


def listing(engine: Engine) -> list[dict[str, object]]:
    with engine.connect() as conn:
        rows = conn.execute(sa.select(tokens).order_by(tokens.c.created)).all()
    return [{"id": r.id, "role": r.role, "agent": r.agent, "created": r.created,
             "revoked": bool(r.revoked), "workspace": r.workspace} for r in rows]


def revoke(engine: Engine, token_id: str) -> bool:
    with engine.begin() as conn:
        done = conn.execute(tokens.update().where(tokens.c.id == token_id)
                            .values(revoked=True))
    return bool(done.rowcount)

