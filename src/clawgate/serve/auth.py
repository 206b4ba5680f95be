"""Who is asking: a bearer token, or the console's session cookie; and the console's CSRF token.

A console session lives in the database, so that it holds on every replica and signing out
ends it everywhere: the cookie is a random session id and an HMAC of it under the service key
(``HttpOnly``, ``SameSite=Strict``, ``Secure`` under TLS); the table keeps the id's SHA-256, the
token it was opened with and its expiry. The CSRF token of a form is an HMAC of the session
cookie, and a form post another site makes a browser send is refused (``same_origin``).

A looked-up bearer token is remembered for ``CACHE_S`` (one second) from the moment its look-up
began, so a revoked token stops working within a second on every replica. An agent sends many
requests a second: a token past half its time is looked up again on a thread of the
authority's own while the remembered answer still serves, so that its requests never wait for
the database (nor, on the hot path of ``POST /v1/check``, fall back to the full route) as long
as the database answers.
"""

from __future__ import annotations

import hashlib
import hmac
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import sqlalchemy as sa
from fastapi import HTTPException, Request
from sqlalchemy.engine import Engine

from clawgate.serve import tokens
from clawgate.serve.db import sessions, writing
from clawgate.serve.db import tokens as token_rows
from clawgate.serve.tokens import Principal

COOKIE = "clawgate_session"
SESSION_S = 8 * 3600
CACHE_S = 1.0
MAX_CACHED = 10_000


@dataclass
class Authority:
    engine: Engine
    key: bytes
    cache_s: float = CACHE_S
    clock: Callable[[], float] = time.monotonic
    _cache: dict[str, tuple[float, Principal | None]] = field(default_factory=dict)
    _due: set[str] = field(default_factory=set)  # tokens waiting to be looked up again
    _refresh: queue.SimpleQueue[str | None] = field(default_factory=queue.SimpleQueue)
    _refresher: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def bearer(self, token: str) -> Principal | None:
        """The principal of a live token (remembered for ``cache_s``), or None."""
        known, found = self.cached(token)
        return found if known else self._look_up(token)

    def cached(self, token: str) -> tuple[bool, Principal | None]:
        """Whether ``token`` was looked up less than ``cache_s`` ago, and what it was; never
        touches the database (the hot path's question). Past half its time, the token is
        looked up again in the background."""
        hit = self._cache.get(token)
        if hit is None:
            return False, None
        age = self.clock() - hit[0]
        if age >= self.cache_s:
            return False, None
        if age >= self.cache_s / 2:
            self._refresh_soon(token)
        return True, hit[1]

    def _look_up(self, token: str) -> Principal | None:
        began = self.clock()  # what the database says now holds from here on, not from the end
        found = tokens.resolve(self.engine, token)
        if len(self._cache) > MAX_CACHED:
            self._cache.clear()
        self._cache[token] = (began, found)
        return found

    def _refresh_soon(self, token: str) -> None:
        with self._lock:
            if token in self._due:
                return
            self._due.add(token)
            if self._refresher is None:
                self._refresher = threading.Thread(target=self._refreshing, daemon=True,
                                                   name="clawgate-tokens")
                self._refresher.start()
        self._refresh.put(token)

    def _refreshing(self) -> None:
        while True:
            token = self._refresh.get()
            if token is None:
                return
            try:
                self._look_up(token)
            except Exception:  # the database is away: the entry ages out, the route answers
                pass
            finally:
                with self._lock:
                    self._due.discard(token)

    def close(self) -> None:
        with self._lock:
            refresher, self._refresher = self._refresher, None
        if refresher is not None:
            self._refresh.put(None)
            refresher.join(10)

    def _sign(self, text: str) -> str:
        return hmac.new(self.key, text.encode(), hashlib.sha256).hexdigest()

    def session_cookie(self, principal: Principal) -> str:
        """Open a console session for ``principal``; its cookie."""
        session_id = secrets.token_urlsafe(24)
        now = time.time()
        with writing(self.engine) as conn:
            conn.execute(sessions.delete().where(sessions.c.expires < now))
            conn.execute(sessions.insert().values(id=_digest(session_id),
                                                  token_id=principal.token_id, created=now,
                                                  expires=now + SESSION_S))
        return f"{session_id}.{self._sign(session_id)}"

    def from_cookie(self, cookie: str) -> Principal | None:
        """The principal of a live session: signed, opened, not signed out, not expired, and
        its token not revoked."""
        session_id, _, mac = cookie.rpartition(".")
        if not session_id or not hmac.compare_digest(self._sign(session_id), mac):
            return None
        query = (sa.select(token_rows).join(sessions, sessions.c.token_id == token_rows.c.id)
                 .where((sessions.c.id == _digest(session_id))
                        & (sessions.c.expires > time.time())))
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None or row.revoked:
            return None
        return Principal(row.id, row.role, row.agent)

    def end_session(self, cookie: str) -> None:
        """Sign out: the session is gone from the database, on every replica at once."""
        session_id, _, mac = cookie.rpartition(".")
        if session_id and hmac.compare_digest(self._sign(session_id), mac):
            with writing(self.engine) as conn:
                conn.execute(sessions.delete().where(sessions.c.id == _digest(session_id)))

    def signed_in(self) -> list[dict[str, object]]:
        """Who has a console session open now (not signed out, not expired, token not
        revoked): name, role, when the earliest of their open sessions began, and how many
        they have open. A browser closed without signing out keeps its session until it
        expires (``SESSION_S``)."""
        query = (sa.select(token_rows.c.agent, token_rows.c.role,
                           sa.func.min(sessions.c.created).label("since"),
                           sa.func.count().label("open"))
                 .join(sessions, sessions.c.token_id == token_rows.c.id)
                 .where((sessions.c.expires > time.time())
                        & (token_rows.c.revoked == sa.false()))
                 .group_by(token_rows.c.agent, token_rows.c.role)
                 .order_by(token_rows.c.agent, token_rows.c.role))
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [{"name": r.agent, "role": r.role, "since": float(r.since), "open": int(r.open)}
                for r in rows]

    def csrf(self, cookie: str) -> str:
        return self._sign(f"csrf:{cookie}")

    def principal(self, request: Request) -> Principal:
        """The caller, or 401."""
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            found = self.bearer(header[7:].strip())
        else:
            cookie = request.cookies.get(COOKIE)
            found = self.from_cookie(cookie) if cookie else None
        if found is None:
            raise HTTPException(401, "a valid bearer token is required",
                                headers={"WWW-Authenticate": "Bearer"})
        return found


def same_origin(request: Request) -> None:
    """403 unless a form post comes from the console's own pages. A browser says where a
    request comes from (``Sec-Fetch-Site``, ``Origin``, ``Referer``; the console's referrer
    policy is ``same-origin``, so its own posts carry their origin); a post another site makes
    a person's browser send is refused. A client that is no browser sends none of them and
    cannot be made to post by another site."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        if site not in ("same-origin", "none"):
            raise HTTPException(403, "a form of another site cannot post to the console")
        return
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    origin = request.headers.get("origin")
    referer = request.headers.get("referer")
    if origin is not None:
        came_from = origin
    elif referer is not None:
        parts = urlsplit(referer)
        came_from = f"{parts.scheme}://{parts.netloc}"
    else:
        return
    if came_from != own:
        raise HTTPException(403, "a form of another site cannot post to the console")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def need(principal: Principal, role: str) -> None:
    """403 unless ``principal`` has at least ``role``."""
    if not principal.at_least(role):
        raise HTTPException(403, f"this needs the {role} role; the token is {principal.role}")
