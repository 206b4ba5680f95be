"""Approval requests and allow-always grants, in the database so that every replica sees them.

An ASK becomes a pending request with an expiry (10 minutes by default); a person answers it
allow or deny, once or always; a request nobody answered by its expiry is ``expired``, which
counts as a deny. Only the first answer counts: a later one changes nothing (``Answered.first``
says which it was). Waiting is a poll of the row (every 100 ms), so an answer given on one
replica releases an agent waiting on another.

A request is bound to exactly the call it shows: a client's request key names the same request
again only for the same agent, session, tool, arguments and ``cwd``. A grant (an allow-always
answer) is bound to the agent it was given for, the tool, the normalised arguments, the ``cwd``
and the workspace (any session of that agent), and carries an HMAC under the service's key: a
row written into the table by anyone without the key is ignored.

One agent cannot bury the others' requests: a request identical to one of the same agent still
pending (same session, workspace and call) is that request, not a second one; an agent has at
most ``max_per_agent`` pending requests (``QueueFull`` past it, which the service answers as a
deny); and the queue is read in pages with its total.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from clawgate.approval.model import ApprovalRequest
from clawgate.decision import Decision
from clawgate.serve.db import approvals, grants, writing

PENDING, ALLOWED, DENIED, EXPIRED = "pending", "allowed", "denied", "expired"
POLL_S = 0.1
MAX_PER_AGENT = 20


class QueueFull(Exception):
    """The agent already has as many pending requests as it may."""


@dataclass(frozen=True, slots=True)
class Asked:
    """What a request is about: who asks, where, and the decision that asked."""

    agent: str
    session: str
    workspace: str
    tool: str
    args: dict[str, Any]
    decision: Decision
    key: str | None = None  # the client's request key (with the same call: the same request)
    cwd: str = ""  # where the call runs (absolute)


@dataclass(frozen=True, slots=True)
class Answered:
    """A request after an answer, and whether that answer was the first (the one that counts)."""

    request: dict[str, Any]
    first: bool


class Queue:
    """The approval queue and the grants of one database."""

    def __init__(self, engine: Engine, key: bytes, ttl_s: float = 600.0,
                 max_per_agent: int = MAX_PER_AGENT) -> None:
        self.engine = engine
        self.key = key
        self.ttl_s = ttl_s
        self.max_per_agent = max_per_agent

    def digest(self, asked: Asked) -> str:
        """What an allow-always grant covers: this agent's call (tool, normalised arguments,
        ``cwd``), in any of its sessions."""
        call = ApprovalRequest(tool=asked.tool, args=asked.args).key
        bound = json.dumps({"agent": asked.agent, "call": call, "cwd": asked.cwd},
                           sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(bound.encode("utf-8", "surrogatepass")).hexdigest()

    def request_id(self, asked: Asked) -> str:
        """A new request's id. With a request key, an HMAC of the key and of exactly the call
        (agent, session, tool, arguments as sent, ``cwd``): the same call sent again with its
        key (a retry on another replica) finds the request already queued; another call under
        the same key is another request."""
        if asked.key is None:
            return secrets.token_hex(8)
        call = json.dumps({"agent": asked.agent, "session": asked.session, "tool": asked.tool,
                           "args": asked.args, "cwd": asked.cwd, "key": asked.key},
                          sort_keys=True, ensure_ascii=False, default=repr)
        return hmac.new(self.key, f"request\0{call}".encode("utf-8", "surrogatepass"),
                        hashlib.sha256).hexdigest()[:32]

    def granted(self, asked: Asked) -> bool:
        """True when an allow-always grant with a valid mac covers ``asked``."""
        digest = self.digest(asked)
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(grants).where(grants.c.digest == digest)).first()
        return row is not None and row.workspace == asked.workspace and \
            hmac.compare_digest(row.mac, self._mac(digest, asked.workspace, row.summary))

    def open(self, asked: Asked) -> str:
        """A pending request for ``asked``; its id: the one already pending for the same
        call of the same agent and session, or a new one (``request_id``; ``QueueFull`` when
        the agent has its maximum)."""
        self.expire()
        now = time.time()
        request_id = self.request_id(asked)
        try:
            return self._insert(asked, request_id, now)
        except sa.exc.IntegrityError:
            if asked.key is None or self.get(request_id) is None:
                raise
        return request_id

    def _insert(self, asked: Asked, request_id: str, now: float) -> str:
        decision = asked.decision
        digest = self.digest(asked)
        mine = (approvals.c.status == PENDING) & (approvals.c.agent == asked.agent)
        with writing(self.engine) as conn:
            same = conn.execute(sa.select(approvals.c.id).where(
                mine & (approvals.c.session == asked.session)
                & (approvals.c.workspace == asked.workspace) & (approvals.c.digest == digest)
                & (approvals.c.expires > now)).order_by(approvals.c.created).limit(1)).first()
            if same is not None:
                return str(same.id)
            waiting = conn.execute(sa.select(sa.func.count()).select_from(approvals)
                                   .where(mine)).scalar_one()
            if waiting >= self.max_per_agent:
                raise QueueFull(f"{waiting} requests of this agent already wait for a person")
            conn.execute(approvals.insert().values(
                id=request_id, created=now, expires=now + self.ttl_s, status=PENDING,
                agent=asked.agent, session=asked.session, workspace=asked.workspace,
                tool=asked.tool, summary=decision.command, risk=decision.risk.label,
                reasons=json.dumps([r.as_dict() for r in decision.reasons]),
                digest=digest, cwd=asked.cwd or asked.workspace))
        return request_id

    def get(self, request_id: str) -> dict[str, Any] | None:
        """The request as the API shows it (expired when its time is up)."""
        self.expire()
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(approvals).where(approvals.c.id == request_id)).first()
        return None if row is None else _shown(row)

    def pending(self, limit: int = 200, offset: int = 0,
                agent: str | None = None) -> list[dict[str, Any]]:
        """A page of the pending requests, oldest first (of one agent, if given)."""
        self.expire()
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(approvals).where(_waiting(agent))
                                .order_by(approvals.c.created, approvals.c.id)
                                .offset(offset).limit(limit)).all()
        return [_shown(r) for r in rows]

    def total(self, agent: str | None = None) -> int:
        """How many requests are pending (of one agent, if given)."""
        with self.engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(approvals)
                                    .where(_waiting(agent))).scalar_one())

    def recent(self, limit: int = 50) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(approvals).order_by(approvals.c.created.desc())
                                .limit(limit)).all()
        return [_shown(r) for r in rows]

    def answer(self, request_id: str, allow: bool, always: bool, by: str,
               note: str | None) -> Answered | None:
        """Answer a pending request; None if there is none. An answer to a request that is
        no longer pending changes nothing (the first answer stands: ``first`` is False)."""
        self.expire()
        status = ALLOWED if allow else DENIED
        with writing(self.engine) as conn:
            done = conn.execute(approvals.update().where(
                (approvals.c.id == request_id) & (approvals.c.status == PENDING)).values(
                status=status, scope="always" if always and allow else "once",
                answered_by=by, note=note, answered=time.time()))
            row = conn.execute(sa.select(approvals).where(approvals.c.id == request_id)).first()
            if row is not None and done.rowcount and allow and always:
                self._grant(conn, row.digest, row.workspace, row.summary, by)
        return None if row is None else Answered(_shown(row), bool(done.rowcount))

    def _grant(self, conn: sa.Connection, digest: str, workspace: str, summary: str,
               by: str) -> None:
        conn.execute(grants.delete().where(grants.c.digest == digest))
        conn.execute(grants.insert().values(digest=digest, workspace=workspace,
                                            summary=summary, created=time.time(),
                                            created_by=by,
                                            mac=self._mac(digest, workspace, summary)))

    def _mac(self, digest: str, workspace: str, summary: str) -> str:
        message = "\0".join((digest, workspace, summary)).encode("utf-8", "surrogatepass")
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()

    def expire(self) -> None:
        with writing(self.engine) as conn:
            conn.execute(approvals.update().where(
                (approvals.c.status == PENDING) & (approvals.c.expires <= time.time()))
                .values(status=EXPIRED))

    async def wait(self, request_id: str, seconds: float) -> dict[str, Any] | None:
        """The request once it is no longer pending, or as it is after ``seconds``."""
        deadline = time.monotonic() + max(seconds, 0.0)
        while True:
            shown = await asyncio.to_thread(self.get, request_id)
            if shown is None or shown["status"] != PENDING or time.monotonic() >= deadline:
                return shown
            await asyncio.sleep(min(POLL_S, max(deadline - time.monotonic(), 0.0)))


def _waiting(agent: str | None) -> Any:
    pending = (approvals.c.status == PENDING) & (approvals.c.expires > time.time())
    return pending if agent is None else pending & (approvals.c.agent == agent)


def _shown(row: Any) -> dict[str, Any]:
    return {"id": row.id, "status": row.status, "scope": row.scope, "agent": row.agent,
            "session": row.session, "workspace": row.workspace, "tool": row.tool,
            "summary": row.summary, "risk": row.risk, "reasons": json.loads(row.reasons),
            "created": row.created, "expires": row.expires, "answered_by": row.answered_by,
            "note": row.note, "answered": row.answered, "cwd": row.cwd or row.workspace,
            "outcome": _outcome(row.status)}


def _outcome(status: str) -> str:
    return {PENDING: "ask", ALLOWED: "allow"}.get(status, "deny")
