"""The service's memory of bearer tokens: a revoked token stops working within ``CACHE_S`` (one
second) of the revocation, and a token in use is looked up again before its time runs out, so
that its requests do not wait for the database. The clock is the test's own: nothing here
depends on how fast the machine is."""

from __future__ import annotations

import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from servekit import Server, in_process_token, until
from sqlalchemy.engine import Engine

from clawgate.serve import tokens
from clawgate.serve.auth import CACHE_S, Authority
from clawgate.serve.db import connect, migrate


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    made = connect(f"sqlite:///{tmp_path / 'serve.db'}")
    migrate(made)
    try:
        yield made
    finally:
        made.dispose()


def test_the_cache_lasts_one_second() -> None:
    assert CACHE_S == 1.0


@pytest.mark.parametrize(("later", "remembered"), [
    (0.0, True), (0.49, True), (1.0, False), (5.0, False),
])
def test_a_revoked_token_is_refused_once_its_second_is_over(
        engine: Engine, later: float, remembered: bool) -> None:
    clock = Clock()
    authority = Authority(engine, secrets.token_bytes(32), clock=clock)
    token = tokens.create(engine, "agent", "a1")
    principal = authority.bearer(token)
    assert principal is not None and principal.agent == "a1"
    tokens.revoke(engine, principal.token_id)
    clock.now += later
    assert authority.bearer(token) == (principal if remembered else None)
    assert authority.cached(token) == ((True, principal) if remembered else (True, None))
    authority.close()


def test_a_token_in_use_is_looked_up_again_before_its_time_runs_out(engine: Engine) -> None:
    clock = Clock()
    authority = Authority(engine, secrets.token_bytes(32), clock=clock)
    token = tokens.create(engine, "agent", "a2")
    principal = authority.bearer(token)
    assert principal is not None
    tokens.revoke(engine, principal.token_id)
    clock.now += 0.4  # less than half the time: no second look-up
    assert authority.cached(token) == (True, principal)
    clock.now += 0.2  # past half: answered from memory, and looked up again meanwhile
    assert authority.cached(token) == (True, principal)
    # the look-up done in the background sees the revocation (a hang guard, not a timing)
    assert until(lambda: authority.cached(token) == (True, None))
    clock.now += 0.9  # the revoked answer is itself remembered from the look-up's start
    assert authority.cached(token) == (True, None)
    authority.close()


def test_an_unknown_token_is_not_remembered_as_known(engine: Engine) -> None:
    authority = Authority(engine, secrets.token_bytes(32), clock=Clock())
    assert authority.cached("cg_0000_nope") == (False, None)
    assert authority.bearer("cg_0000_nope") is None
    assert authority.cached("cg_0000_nope") == (True, None)
    authority.close()


def test_a_revoked_agent_token_gets_401_on_the_hot_path(server: Server) -> None:
    token = in_process_token(server, "agent", "soon-revoked")
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=30) as client:
        for _ in range(3):  # the first is looked up by the route, the rest take the hot path
            assert client.post("/v1/check", json={"command": "ls"}).status_code == 200
        listed = subprocess.run([sys.executable, "-m", "clawgate", "serve", "token", "list",
                                 "--json", "--database", server.database], env=server.env,
                                capture_output=True, text=True, check=True)
        token_id = token.split("_")[1]
        assert token_id in listed.stdout
        subprocess.run([sys.executable, "-m", "clawgate", "serve", "token", "revoke", token_id,
                        "--database", server.database], env=server.env, check=True,
                       capture_output=True)
        # within CACHE_S of the revocation; the bound here is a hang guard only
        assert until(lambda: client.post("/v1/check", json={"command": "ls"}).status_code
                     == 401, every=0.05)
        refused = client.post("/v1/check", json={"command": "ls"})
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
