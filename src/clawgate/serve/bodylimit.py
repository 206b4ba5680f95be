"""A bound on the size of every request body, before anything reads it.

A body is refused with 413 when its ``Content-Length`` says it is over ``MAX_BODY``, or, sent
in chunks, as soon as what arrived passes it: the application then sees the client gone and
its own answer is dropped. Nothing is decided on a body that was cut.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY = 2 << 20  # a command may be 1 MiB; JSON's escapes need room beside it


class BodyLimit:
    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and (declared < 0 or declared > self.limit):
            await self._refuse(send)
            return
        seen = 0
        refused = started = False

        async def counted() -> Message:
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request" and not refused:
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    refused = True
                    if not started:
                        await self._refuse(send)
            return {"type": "http.disconnect"} if refused else message

        async def unless_refused(message: Message) -> None:
            nonlocal started
            if not refused:
                started = True
                await send(message)

        await self.app(scope, counted, unless_refused)

    async def _refuse(self, send: Send) -> None:
        data = json.dumps({"detail": f"the request body is over {self.limit} bytes; "
                                     "nothing was decided"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-length", str(len(data)).encode()),
                                (b"content-type", b"application/json"),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": data})


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return -1
    return None
