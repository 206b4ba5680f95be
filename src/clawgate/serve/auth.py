"""Who is asking: a bearer token, or the console's session cookie; and the console's CSRF token.

A console session is stateless, so that it holds on every replica: the cookie is the token's id,
an expiry and an HMAC of both under the service key (``HttpOnly``, ``SameSite=Strict``, ``Secure``
under TLS). The CSRF token of a form is an HMAC of the session cookie. Looked-up tokens are
cached for a few seconds (a revoked token stops working within ``CACHE_S``).
"""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass, field

from fastapi import HTTPException, Request
from sqlalchemy.engine import Engine

from clawgate.serve import tokens
from clawgate.serve.tokens import Principal

COOKIE = "clawgate_session"
SESSION_S = 8 * 3600
CACHE_S = 5.0


@dataclass
class Authority:
    engine: Engine
    key: bytes
    _cache: dict[str, tuple[float, Principal | None]] = field(default_factory=dict)

    def bearer(self, token: str) -> Principal | None:
        now = time.monotonic()
        hit = self._cache.get(token)
        if hit is not None and now - hit[0] < CACHE_S:
            return hit[1]
        found = tokens.resolve(self.engine, token)
        if len(self._cache) > 10_000:
            self._cache.clear()
        self._cache[token] = (now, found)
        return found

    def cached(self, token: str) -> tuple[bool, Principal | None]:
        """Whether ``token`` was looked up less than ``CACHE_S`` ago, and what it was; never
        touches the database (the hot path's question)."""
        hit = self._cache.get(token)
        if hit is not None and time.monotonic() - hit[0] < CACHE_S:
            return True, hit[1]
        return False, None

    def _sign(self, text: str) -> str:
        return hmac.new(self.key, text.encode(), hashlib.sha256).hexdigest()

    def session_cookie(self, principal: Principal) -> str:
        text = f"{principal.token_id}.{int(time.time()) + SESSION_S}"
        return f"{text}.{self._sign(text)}"

    def from_cookie(self, cookie: str) -> Principal | None:
        text, _, mac = cookie.rpartition(".")
        token_id, _, expiry = text.partition(".")
        if not hmac.compare_digest(self._sign(text), mac) or not expiry.isdigit() \
                or int(expiry) < time.time():
            return None
        for row in tokens.listing(self.engine):
            if row["id"] == token_id and not row["revoked"]:
                return Principal(token_id, str(row["role"]), str(row["agent"]))
        return None

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


def need(principal: Principal, role: str) -> None:
    """403 unless ``principal`` has at least ``role``."""
    if not principal.at_least(role):
        raise HTTPException(403, f"this needs the {role} role; the token is {principal.role}")
