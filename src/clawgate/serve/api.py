"""The HTTP API of ``policy serve``, ``/v1/...``, with an OpenAPI document at ``/openapi.json``.

Agent tokens check commands and calls, as the agent the token names, and wait on their own
requests; viewers read the queue and the audit; approvers answer; admins list and revoke grants.
Only an agent token submits, and only as its own agent. A database that does not answer is
a 503 (clients fail closed on it), never an answer made up without the audit.
"""


import asyncio
import json
import time
import uuid
from typing import Annotated, Any, Literal

import sqlalchemy as sa
from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import SQLAlchemyError

from clawgate.serve.auth import Authority, need
from clawgate.serve.db import Alarm, alive, audit, grants, writing
from clawgate.serve.metrics import Metrics
from clawgate.serve.queue import Answered
from clawgate.serve.ratelimit import AgentLimiter, Concurrent
from clawgate.serve.service import Service, Verdict
from clawgate.serve.tokens import Principal

MAX_WAIT_S = 60.0
WAITS_PER_CALLER = 8  # long polls one token may hold open at once

# Names and paths are stored and shown: bounded to what the database keeps, without control
# characters (a NUL is refused by PostgreSQL, and would fail a whole batch of audit records).
_PRINTABLE = r"^[^\x00-\x1f\x7f]*$"
Name = Annotated[str, Field(max_length=200, pattern=_PRINTABLE)]
PathText = Annotated[str, Field(max_length=4096, pattern=_PRINTABLE)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CheckIn(_Strict):
    command: str = Field(max_length=1 << 20)
    cwd: PathText | None = None
    agent: Name | None = None
    session: Name | None = None


class CallContextIn(_Strict):
    agent: Name | None = None
    session: Name | None = None
    workspace: PathText | None = None
    cwd: PathText | None = None
    # The client's own name for this call: sent again (to another replica, after a torn
    # exchange), it gets the same approval request, not a second one.
    request_key: str | None = Field(default=None, min_length=8, max_length=200,
                                    pattern=_PRINTABLE)


class CallIn(_Strict):
    tool: str = Field(min_length=1, max_length=200, pattern=_PRINTABLE)
    args: dict[str, Any] = Field(default_factory=dict)
    context: CallContextIn = Field(default_factory=CallContextIn)


class AnswerIn(_Strict):
    answer: Literal["allow", "deny"]
    scope: Literal["once", "always"] = "once"
    note: str | None = Field(default=None, max_length=2000, pattern=r"^[^\x00]*$")


class App:
    """The pieces every route needs."""

    def __init__(self, service: Service, authority: Authority, limiter: AgentLimiter) -> None:
        self.service = service
        self.authority = authority
        self.limiter = limiter
        self.tls = False
        self.metrics = Metrics(service.approvals.total, service.leading)
        self.alarm = Alarm()
        self.waits = Concurrent(WAITS_PER_CALLER)

    def who(self, request: Request) -> Principal:
        return self.authority.principal(request)

    def acting_agent(self, principal: Principal, claimed: str | None) -> str:
        """The agent a submission acts for: the one its agent token names, never another.
        Other tokens (viewers, approvers, admins) do not act for agents."""
        if principal.role != "agent":
            raise HTTPException(403, f"only an agent token submits checks and calls; the token "
                                     f"is {principal.role}")
        if claimed not in (None, principal.agent):
            raise HTTPException(403, "an agent token acts only as its own agent")
        if not self.limiter.admit(principal.agent):
            raise HTTPException(429, "rate limit reached for this agent",
                                headers={"Retry-After": "1"})
        return principal.agent

    async def wait(self, principal: Principal, request_id: str,
                   seconds: float) -> dict[str, Any] | None:
        """The long poll of ``principal``: within its rate (an agent's is its agent's) and
        ``WAITS_PER_CALLER`` polls open at once, else 429."""
        caller = principal.agent if principal.role == "agent" else f"token:{principal.token_id}"
        if not self.limiter.admit(caller):
            raise HTTPException(429, "rate limit reached for this caller",
                                headers={"Retry-After": "1"})
        if not self.waits.enter(caller):
            raise HTTPException(429, f"{WAITS_PER_CALLER} waits of this caller are already "
                                     "open", headers={"Retry-After": "1"})
        try:
            return await self.service.approvals.wait(request_id, seconds)
        finally:
            self.waits.leave(caller)

    def answered(self, verdict: Verdict, started: float, extra: dict[str, Any]) -> dict[str, Any]:
        decision = verdict.decision
        rule = decision.reasons[0].rule_id if decision.reasons else ""
        self.metrics.decisions.labels(verdict.outcome, rule).inc()
        self.metrics.latency.observe(time.perf_counter() - started)
        return {**decision.as_dict(), "outcome": verdict.outcome,
                "approval_id": verdict.approval_id, **extra}


def router(app: App) -> APIRouter:
    api = APIRouter(prefix="/v1")
    Who = Annotated[Principal, Depends(app.who)]

    @api.post("/check", response_model=None)
    async def check(body: CheckIn, principal: Who) -> JSONResponse:
        """Decide a shell command: the ``policy check --json`` object, plus ``approval_id``
        when it asks (wait on it with ``GET /v1/approvals/{id}?wait=S``)."""
        started = time.perf_counter()
        agent = app.acting_agent(principal, body.agent)
        verdict = await app.service.check(body.command, body.cwd, agent, body.session or "",
                                          principal.workspace)
        return JSONResponse(app.answered(verdict, started, {}))

    @api.post("/calls", response_model=None)
    async def calls(body: CallIn, principal: Who) -> JSONResponse:
        """Decide a tool call as the adapters do (tool policy, engine, paths, URLs)."""
        started = time.perf_counter()
        ctx = body.context
        agent = app.acting_agent(principal, ctx.agent)
        verdict = await app.service.call(body.tool, body.args, agent, ctx.session or "",
                                         ctx.workspace, ctx.cwd, request_key=ctx.request_key,
                                         home=principal.workspace)
        return JSONResponse(app.answered(verdict, started, {"call_id": uuid.uuid4().hex}))

    @api.get("/approvals")
    async def pending(principal: Who, agent: Name | None = None,
                      limit: Annotated[int, Query(ge=1, le=500)] = 100,
                      offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0) -> dict[str, Any]:
        """Requests waiting for a person, oldest first, a page at a time, with how many wait
        in all (viewers and up)."""
        need(principal, "viewer")
        queue = app.service.approvals
        page = await asyncio.to_thread(queue.pending, limit, offset, agent)
        return {"pending": page, "total": await asyncio.to_thread(queue.total, agent),
                "offset": offset, "limit": limit}

    @api.get("/approvals/{request_id}")
    async def approval(request_id: Annotated[str, PathParam(max_length=64)], principal: Who,
                       wait: Annotated[float, Query(ge=0.0, le=MAX_WAIT_S)] = 0.0,
                       ) -> dict[str, Any]:
        """A request; with ``wait``, long-polls until it is answered or expires (each caller
        within its rate and a few polls at once)."""
        shown = await app.wait(principal, request_id, wait)
        if shown is None or (principal.role == "agent" and shown["agent"] != principal.agent):
            raise HTTPException(404, "no such request")
        return shown

    @api.post("/approvals/{request_id}")
    async def answer(request_id: str, body: AnswerIn,
                     principal: Who) -> dict[str, Any]:
        """Answer a request (approvers and admins): allow or deny, once or always. The first
        answer counts; a request answered already (or expired) is a 409."""
        need(principal, "approver")
        answered = await app.service.answer(request_id, body.answer == "allow",
                                            body.scope == "always",
                                            principal.agent or principal.token_id, body.note)
        return settled(answered)

    @api.get("/grants")
    async def grant_list(principal: Who) -> dict[str, Any]:
        need(principal, "admin")
        with app.service.chain.engine.connect() as conn:
            rows = conn.execute(sa.select(grants).order_by(grants.c.created)).all()
        return {"grants": [{"digest": r.digest, "workspace": r.workspace, "summary": r.summary,
                            "created": r.created, "created_by": r.created_by} for r in rows]}

    @api.delete("/grants/{digest}")
    async def grant_revoke(digest: str, principal: Who) -> dict[str, Any]:
        need(principal, "admin")
        with writing(app.service.chain.engine) as conn:
            done = conn.execute(grants.delete().where(grants.c.digest == digest))
        if not done.rowcount:
            raise HTTPException(404, "no such grant")
        return {"revoked": digest}

    @api.get("/audit")
    async def audit_list(principal: Who, agent: str | None = None,
                         session: str | None = None, outcome: str | None = None,
                         since: float | None = None, until: float | None = None,
                         limit: Annotated[int, Query(ge=1, le=1000)] = 100,
                         ) -> dict[str, Any]:
        """Audit records, newest first, filtered (viewers and up)."""
        need(principal, "viewer")
        return {"records": await asyncio.to_thread(audit_rows, app, agent, session, outcome,
                                                   since, until, limit)}

    @api.get("/audit/verify")
    async def audit_verify(principal: Who) -> dict[str, Any]:
        need(principal, "viewer")
        return await asyncio.to_thread(app.service.chain.verify)

    return api


def settled(answered: Answered | None) -> dict[str, Any]:
    """The request an answer was given to: 404 if there is none, 409 if it was answered
    before (its first answer stands)."""
    if answered is None:
        raise HTTPException(404, "no such request")
    shown = answered.request
    if not answered.first:
        by = f" by {shown['answered_by']}" if shown["answered_by"] else ""
        raise HTTPException(409, f"the request is {shown['status']}{by} already; the first "
                                 "answer stands")
    return shown


def audit_rows(app: App, agent: str | None, session: str | None, outcome: str | None,
               since: float | None, until: float | None, limit: int,
               offset: int = 0) -> list[dict[str, Any]]:
    """Audit records, newest first, filtered; ``limit`` of them after the first ``offset``
    (once every record handed in before is in the chain)."""
    app.service.chain.caught_up()
    query = sa.select(audit).order_by(audit.c.seq.desc()).offset(offset).limit(limit)
    for column, value in ((audit.c.agent, agent), (audit.c.session, session),
                          (audit.c.outcome, outcome)):
        if value:
            query = query.where(column == value)
    if since is not None:
        query = query.where(audit.c.time >= since)
    if until is not None:
        query = query.where(audit.c.time <= until)
    with app.service.chain.engine.connect() as conn:
        rows = conn.execute(query).all()
    return [{"seq": r.seq, "time": r.time, "agent": r.agent, "session": r.session,
             "tool": r.tool, "outcome": r.outcome, "rule": r.rule, "body": json.loads(r.body)}
            for r in rows]


def install(fastapi: FastAPI, app: App) -> None:
    fastapi.include_router(router(app))

    @fastapi.get("/healthz")
    async def healthz() -> Response:
        try:
            await asyncio.to_thread(alive, app.service.chain.engine)
        except SQLAlchemyError as exc:
            app.alarm.say(exc)
            return JSONResponse({"ok": False, "database": "unreachable"}, status_code=503)
        return JSONResponse({"ok": True, "database": "ok"})

    @fastapi.get("/metrics")
    async def metrics(principal: Annotated[Principal, Depends(app.who)]) -> Response:
        need(principal, "viewer")
        return PlainTextResponse(app.metrics.text(),
                                 media_type="text/plain; version=0.0.4; charset=utf-8")

    @fastapi.exception_handler(SQLAlchemyError)
    async def database_down(_request: Request, exc: SQLAlchemyError) -> Response:
        app.alarm.say(exc)
        return JSONResponse({"detail": f"the database did not answer ({type(exc).__name__}); "
                             "nothing was decided"}, status_code=503)
