"""``policy serve``: one decision service and approval console for a fleet of agents.

``build_app(settings)`` makes the ASGI application (FastAPI): the ``/v1`` API, the console at
``/``, ``/healthz`` and ``/metrics``, over a database (SQLite by default, PostgreSQL for
replicas). It needs the ``serve`` extra.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from clawgate.serve import api, console, heap
from clawgate.serve.auth import Authority
from clawgate.serve.bodylimit import BodyLimit
from clawgate.serve.chain import Chain
from clawgate.serve.db import connect, migrate
from clawgate.serve.deciders import LIMIT_S, Deciders
from clawgate.serve.fast import FastCheck
from clawgate.serve.queue import MAX_PER_AGENT, Queue
from clawgate.serve.ratelimit import AgentLimiter
from clawgate.serve.service import Service


def default_database() -> str:
    from clawgate.statedir import state_root

    root = state_root()
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    return f"sqlite:///{root / 'serve.db'}"


@dataclass(frozen=True)
class ServeSettings:
    policies: tuple[str, ...] = ()
    database: str = field(default_factory=default_database)
    approval_ttl_s: float = 600.0
    agent_rate_per_s: int = 200
    tls: bool = False
    workspace: str | None = None
    key_file: Path | None = None
    decision_timeout_s: float = LIMIT_S
    max_pending_per_agent: int = MAX_PER_AGENT


def _key(settings: ServeSettings) -> bytes:
    from clawgate.statedir import state_key

    if settings.key_file is not None:
        data = settings.key_file.read_bytes()
        if len(data) < 32:
            raise ValueError(f"{settings.key_file}: a key needs at least 32 bytes")
        return bytes(data)
    return state_key("serve")


def build_app(settings: ServeSettings) -> FastAPI:
    """The application; migrations are applied before it answers anything."""
    from clawgate.policy.loader import load_policy
    from clawgate.statedir import check_state_home

    policy = load_policy(*settings.policies)
    # refused at start (before any key or database is made there), not on every call
    check_state_home(settings.workspace or policy.engine_settings().workspace or os.getcwd())
    engine = connect(settings.database)
    migrate(engine)
    key = _key(settings)
    service = Service(policy, Chain(engine, key),
                      Queue(engine, key, settings.approval_ttl_s,
                            max_per_agent=settings.max_pending_per_agent),
                      workspace=settings.workspace,
                      deciders=Deciders(limit_s=settings.decision_timeout_s))
    limiter = AgentLimiter(engine, settings.agent_rate_per_s)
    authority = Authority(engine, key)
    state = api.App(service, authority, limiter)
    state.tls = settings.tls
    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        heap.settle(service.warm)  # no full collection walks the start-up heap again
        yield
        limiter.close()
        authority.close()
        service.close()
        heap.release()

    app = FastAPI(title="clawgate", version=_version(), lifespan=lifespan,
                  description="One policy, one approval queue and one audit trail for every "
                              "agent a team runs.")
    api.install(app, state)
    app.include_router(console.router(state))

    app.add_middleware(FastCheck, state=state)  # inside the security headers
    app.add_middleware(BodyLimit)  # before anything reads a body
    app.add_middleware(SecurityHeaders)
    app.state.service = service
    app.state.limiter = limiter
    return app


HEADERS = [(b"content-security-policy", console.CSP.encode()),
           (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
           (b"x-frame-options", b"DENY")]


class SecurityHeaders:
    """A strict CSP and friends on every response (a plain ASGI middleware: no task group per
    request, unlike Starlette's ``BaseHTTPMiddleware``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


SETTINGS_ENV = "CLAWGATE_SERVE_SETTINGS"


def settings_env(settings: ServeSettings) -> dict[str, str]:
    """The environment that hands ``settings`` to uvicorn's worker processes."""
    return {SETTINGS_ENV: json.dumps({
        "policies": list(settings.policies), "database": settings.database,
        "approval_ttl_s": settings.approval_ttl_s, "agent_rate_per_s": settings.agent_rate_per_s,
        "tls": settings.tls, "workspace": settings.workspace,
        "decision_timeout_s": settings.decision_timeout_s,
        "max_pending_per_agent": settings.max_pending_per_agent})}


def from_environment() -> FastAPI:
    """The application in one of ``policy serve --workers N``'s processes (uvicorn's factory),
    from the settings the command put in the environment."""
    raw = json.loads(os.environ[SETTINGS_ENV])
    return build_app(ServeSettings(
        policies=tuple(raw["policies"]), database=raw["database"],
        approval_ttl_s=float(raw["approval_ttl_s"]), agent_rate_per_s=int(raw["agent_rate_per_s"]),
        tls=bool(raw["tls"]), workspace=raw["workspace"],
        decision_timeout_s=float(raw["decision_timeout_s"]),
        max_pending_per_agent=int(raw["max_pending_per_agent"])))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("clawgate")
    except PackageNotFoundError:
        return "0"


__all__ = ["ServeSettings", "build_app", "default_database", "from_environment",
           "settings_env"]
