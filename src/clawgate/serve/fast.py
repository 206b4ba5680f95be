"""``POST /v1/check`` without FastAPI's routing: the hot path of the service.

An agent checks a command many times a second; FastAPI's routing, dependency injection (a sync
dependency runs in the thread pool) and response machinery cost more than the decision itself.
``FastCheck`` answers the ordinary request directly — a bearer token already in the authority's
cache, a JSON body ``CheckIn`` accepts, admitted by the rate limiter — with the very same code the
route runs (``App.acting_agent``, ``Service.check``, ``App.answered``). Anything else (no token,
a token not yet looked up, a bad body or another content type, 403, 429, a body over
``MAX_BODY``) goes to the full application with the body replayed, so that every other answer is
the route's own; the OpenAPI document still describes the route. A database that does not answer
is the same 503 the route's exception handler gives.
"""

from __future__ import annotations

import json
import time
from typing import Any

from fastapi import HTTPException
from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from clawgate.serve.api import App, CheckIn

PATH = "/v1/check"
MAX_BODY = 1 << 16  # larger bodies (a command may be up to 1 MiB) take the ordinary route


class FastCheck:
    def __init__(self, app: ASGIApp, state: App) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != PATH or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        messages, body, complete = await _read(receive)
        answer = self._answer(scope, body) if complete else None
        if answer is None:
            await self.app(scope, _replay(messages, receive), send)
            return
        status, payload = await answer
        await _send_json(send, status, payload)

    def _answer(self, scope: Scope, body: bytes) -> Any:
        """A coroutine giving (status, payload), or None: the full application answers."""
        token, json_body = _headers(scope)
        if token is None or not json_body:
            return None
        known, principal = self.state.authority.cached(token)
        if not known or principal is None:
            return None
        try:
            checked = CheckIn.model_validate_json(body)
            agent = self.state.acting_agent(principal, checked.agent)
        except (ValidationError, HTTPException):
            return None
        return self._decide(checked, agent, principal.workspace)

    async def _decide(self, checked: CheckIn, agent: str,
                      home: str | None) -> tuple[int, dict[str, Any]]:
        started = time.perf_counter()
        try:
            verdict = await self.state.service.check(checked.command, checked.cwd, agent,
                                                     checked.session or "", home)
        except SQLAlchemyError as exc:
            self.state.alarm.say(exc)
            return 503, {"detail": f"the database did not answer ({type(exc).__name__}); "
                                   "nothing was decided"}
        return 200, self.state.answered(verdict, started, {})


def _headers(scope: Scope) -> tuple[str | None, bool]:
    """The bearer token, if any, and whether the body says it is JSON."""
    token = None
    json_body = False
    for name, value in scope["headers"]:
        if name == b"authorization":
            text = value.decode("latin-1")
            if text[:7].lower() == "bearer ":
                token = str(text[7:].strip())
        elif name == b"content-type":
            json_body = value.split(b";", 1)[0].strip().lower() == b"application/json"
    return token, json_body


async def _read(receive: Receive) -> tuple[list[Message], bytes, bool]:
    """The messages read, the body, and whether it is all there (and small enough)."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, b"", False  # a disconnect: the full application deals with it
        size += len(message.get("body", b""))
        if size > MAX_BODY:
            return messages, b"", False
        if not message.get("more_body", False):
            return messages, b"".join(m.get("body", b"") for m in messages), True


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def again() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return again


async def _send_json(send: Send, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-length", str(len(data)).encode()),
                            (b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": data})
