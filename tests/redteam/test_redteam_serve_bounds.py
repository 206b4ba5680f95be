"""Attacks on ``policy serve``'s bounds, its database and its console sessions, against the real
service under uvicorn on 127.0.0.1 (real SQLite, tokens in the real database, the real
``ServerApprover`` client).

One agent must not starve the others (a slow line, a huge body, a flood of ASKs, a name the
database cannot keep); a database deleted under the service fails closed and says so; signing
out ends a console session on the server; the console's forms refuse other sites' posts; the
long poll is rate limited like every other route.
"""

from __future__ import annotations

import json
import secrets
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from clawgate.approval import ApprovalAnswer, ApprovalRequest, ServerApprover
from clawgate.serve import tokens
from clawgate.serve.db import connect
from serve.pgkit import fresh_database
from serve.servekit import POLICY, free_port, server_env

HANG_S = 120.0  # a hang guard only: nothing here is timed
# Hundreds of milliseconds of the checker's time (it runs to the engine's step bound: DENY).
SLOW_LINE = "x=" + "a" * 60000 + "; echo " + " ".join(["$x"] * 400)


@dataclass
class Running:
    url: str
    database: str
    env: dict[str, str]
    process: subprocess.Popen[bytes]
    stderr: Path

    def token(self, role: str, agent: str = "") -> str:
        engine = connect(self.database)
        try:
            return tokens.create(engine, role, agent or f"{role}-{secrets.token_hex(3)}")
        finally:
            engine.dispose()

    def client(self, role: str, agent: str = "") -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=HANG_S,
                            headers={"Authorization": f"Bearer {self.token(role, agent)}"})


def launch(tmp: Path, *extra: str, database: str | None = None) -> Running:
    """``policy serve`` on 127.0.0.1 with its stderr kept in a file (SQLite in ``tmp`` unless
    ``database`` is given)."""
    (tmp / "policy.yaml").write_text(POLICY)
    env = server_env(tmp)
    database = database or f"sqlite:///{tmp / 'serve.db'}"
    port = free_port()
    stderr = tmp / "serve.stderr"
    with stderr.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "clawgate", "serve", "--policy", str(tmp / "policy.yaml"),
             "--database", database, "--port", str(port), "--workspace", str(tmp), *extra],
            env=env, stderr=sink)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{url}/healthz", timeout=5).status_code == 200:
                return Running(url, database, env, process, stderr)
        except httpx.TransportError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"policy serve exited: {stderr.read_text()[-2000:]}")
        time.sleep(0.1)
    finish(process)
    raise RuntimeError("policy serve did not answer /healthz")


def finish(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    running = launch(tmp_path_factory.mktemp("serve-bounds"))
    try:
        yield running
    finally:
        finish(running.process)


def raw_post(url: str, path: str, token: str, body: dict[str, Any]) -> socket.socket:
    """Send a whole POST on a socket of its own and return the socket unread: the request is
    in the service's hands before anything sent after it."""
    data = json.dumps(body).encode()
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=HANG_S)
    sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}"
                 f"\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                 "Connection: close\r\n\r\n".encode() + data)
    return sock


def read_all(sock: socket.socket) -> tuple[int, dict[str, Any]]:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    sock.close()
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


# --- one agent starving the others -------------------------------------------------------


def test_another_agents_request_is_answered_while_a_slow_line_is_decided(
        served: Running) -> None:
    slow_token = served.token("agent", "slow-liner")
    with httpx.Client(base_url=served.url, timeout=HANG_S,
                      headers={"Authorization": f"Bearer {slow_token}"}) as slow, \
            served.client("agent", "quick") as quick:
        assert slow.post("/v1/check", json={"command": "ls"}).status_code == 200
        assert quick.post("/v1/check", json={"command": "ls"}).status_code == 200
        sock = raw_post(served.url, "/v1/check", slow_token, {"command": SLOW_LINE})
        answered = quick.post("/v1/check", json={"command": "ls"})
        slow_done_first = bool(select.select([sock], [], [], 0)[0])
        status, slow_answer = read_all(sock)
    assert (answered.status_code, answered.json()["outcome"]) == (200, "allow")
    assert not slow_done_first, "the quick agent's ls waited for the other agent's slow line"
    assert status == 200 and slow_answer["outcome"] == "deny"


@pytest.mark.parametrize(("route", "body"), [
    ("/v1/calls", {"tool": "read_file", "args": {"path": "notes.txt", "pad": "a" * (4 << 20)}}),
    ("/v1/check", {"command": "ls", "cwd": "/" + "a" * (4 << 20)}),
])
def test_a_huge_body_is_refused_before_it_is_decided(served: Running, route: str,
                                                    body: dict[str, Any]) -> None:
    with served.client("agent", "huge") as agent:
        refused = agent.post(route, json=body)
        still = agent.post("/v1/check", json={"command": "ls"})
    assert refused.status_code == 413
    assert "nothing was decided" in refused.json()["detail"]
    assert still.status_code == 200


def test_one_agents_flood_of_asks_is_capped_and_the_others_stay_in_sight(
        served: Running) -> None:
    with served.client("agent", "asker") as flooder, served.client("agent", "bystander") as other, \
            served.client("viewer") as viewer:
        answers = [flooder.post("/v1/check", json={"command": f"deploy-prod --n{n}"}).json()
                   for n in range(30)]
        mine = other.post("/v1/check", json={"command": "deploy-prod --mine"}).json()
        theirs = viewer.get("/v1/approvals", params={"agent": "asker", "limit": 500}).json()
        bystander = viewer.get("/v1/approvals", params={"agent": "bystander"}).json()
    assert [a["outcome"] for a in answers] == ["ask"] * 20 + ["deny"] * 10
    assert {a["reasons"][0]["rule_id"] for a in answers[20:]} == {"CG-SERVE-002"}
    assert all(a["approval_id"] is None for a in answers[20:])
    assert mine["outcome"] == "ask"
    assert theirs["total"] == 20 and len(theirs["pending"]) == 20
    assert [p["id"] for p in bystander["pending"]] == [mine["approval_id"]]


def test_identical_pending_requests_are_one_request(served: Running) -> None:
    with served.client("agent", "repeater") as agent, served.client("viewer") as viewer:
        asked = [agent.post("/v1/check", json={"command": "deploy-prod --again",
                                                "session": "s1"}).json() for _ in range(5)]
        other_session = agent.post("/v1/check", json={"command": "deploy-prod --again",
                                                      "session": "s2"}).json()
        queue = viewer.get("/v1/approvals", params={"agent": "repeater"}).json()
    assert len({a["approval_id"] for a in asked}) == 1
    assert other_session["approval_id"] != asked[0]["approval_id"]
    assert queue["total"] == 2


def test_the_queue_is_paged_with_its_total(served: Running) -> None:
    with served.client("agent", "pager") as agent, served.client("viewer") as viewer:
        ids = [agent.post("/v1/check", json={"command": f"deploy-prod --p{n}"}).json()
               ["approval_id"] for n in range(12)]
        first = viewer.get("/v1/approvals", params={"agent": "pager", "limit": 5}).json()
        third = viewer.get("/v1/approvals",
                           params={"agent": "pager", "limit": 5, "offset": 10}).json()
    assert (first["total"], third["total"]) == (12, 12)
    assert [p["id"] for p in first["pending"]] == ids[:5]
    assert [p["id"] for p in third["pending"]] == ids[10:]


def test_the_console_shows_how_many_wait(served: Running) -> None:
    with served.client("agent", "console-shown") as agent, served.client("viewer") as viewer:
        agent.post("/v1/check", json={"command": "deploy-prod --console"})
        total = viewer.get("/v1/approvals", params={"limit": 1}).json()["total"]
    with httpx.Client(base_url=served.url, timeout=HANG_S) as browser:
        signed = browser.post("/login", data={"token": served.token("viewer")})
        assert signed.status_code == 303
        home = browser.get("/").text
    assert f"{total} waiting" in home


BAD_FIELDS = [
    ("/v1/check", {"command": "ls", "session": "s" * 201}),
    ("/v1/check", {"command": "ls", "session": "a\x00b"}),
    ("/v1/check", {"command": "ls", "agent": "evil\nagent"}),
    ("/v1/check", {"command": "ls", "cwd": "/tmp/\x00x"}),
    ("/v1/calls", {"tool": "read_file", "args": {"path": "x"}, "context": {"session": "s" * 201}}),
    ("/v1/calls", {"tool": "read_file", "args": {"path": "x"}, "context": {"session": "\x00"}}),
    ("/v1/calls", {"tool": "read\x00file", "args": {"path": "x"}}),
    ("/v1/calls", {"tool": "read_file", "args": {"path": "x"},
                   "context": {"workspace": "/tmp\x00"}}),
    ("/v1/calls", {"tool": "read_file", "args": {"path": "x"},
                   "context": {"request_key": "key-\x00-0123456789"}}),
]


@pytest.mark.parametrize(("route", "body"), BAD_FIELDS)
def test_every_field_is_validated_and_others_are_unaffected(served: Running, route: str,
                                                            body: dict[str, Any]) -> None:
    with served.client("agent", "fielder") as agent, served.client("agent", "calm") as calm:
        refused = agent.post(route, json=body)
        fine = calm.post("/v1/check", json={"command": "ls", "session": "s" * 200})
    assert refused.status_code == 422
    assert fine.status_code == 200 and fine.json()["outcome"] == "allow"


@pytest.mark.postgres
def test_names_postgresql_cannot_keep_fail_no_other_agent(tmp_path: Path) -> None:
    running = launch(tmp_path, "--agent-rate", "100000", database=fresh_database())
    try:
        with running.client("agent", "odd-names") as odd, running.client("agent", "calm") as calm:
            def burst(n: int) -> int:
                return calm.post("/v1/check", json={"command": f"ls {n}"}).status_code

            with ThreadPoolExecutor(8) as pool:
                others = pool.map(burst, range(200))
                odd_answers = [odd.post("/v1/check", json=body).status_code for body in (
                    {"command": "ls", "session": "s" * 201}, {"command": "ls", "session": "\x00"},
                    {"command": "ls", "agent": "odd-names", "session": "a\x00b"})]
                calm_answers = list(others)
    finally:
        finish(running.process)
    assert odd_answers == [422, 422, 422]
    assert calm_answers == [200] * 200


# --- the database under the service ----------------------------------------------------


def test_a_database_deleted_under_the_service_fails_closed_and_says_so(
        tmp_path: Path) -> None:
    running = launch(tmp_path)
    try:
        token = running.token("agent", "orphan")
        with httpx.Client(base_url=running.url, timeout=HANG_S,
                          headers={"Authorization": f"Bearer {token}"}) as agent:
            assert agent.post("/v1/check", json={"command": "ls"}).status_code == 200
            for name in ("serve.db", "serve.db-wal", "serve.db-shm"):
                (tmp_path / name).unlink(missing_ok=True)
            after = agent.post("/v1/check", json={"command": "ls"})
            healthz = httpx.get(f"{running.url}/healthz", timeout=HANG_S)
        approver = ServerApprover(running.url, token, timeout_s=30)
        answer = approver.approve(ApprovalRequest("exec_shell", {"command": "deploy-prod"}))
    finally:
        finish(running.process)
    assert after.status_code == 503 and "nothing was decided" in after.json()["detail"]
    assert healthz.status_code == 503
    assert answer is ApprovalAnswer.DENY
    assert approver.last_error is not None and "503" in approver.last_error
    said = running.stderr.read_text()
    assert "was deleted or replaced while the service ran" in said
    assert not (tmp_path / "serve.db").exists()  # nothing made a new, empty one meanwhile


# --- console sessions and forms ----------------------------------------------------------


def signed_in_cookie(served: Running, role: str = "viewer") -> str:
    with httpx.Client(base_url=served.url, timeout=HANG_S) as browser:
        signed = browser.post("/login", data={"token": served.token(role)})
        assert signed.status_code == 303
        return str(browser.cookies["clawgate_session"])


def test_signing_out_ends_the_session_on_the_server(served: Running) -> None:
    cookie = signed_in_cookie(served)
    cookies = {"clawgate_session": cookie}
    with httpx.Client(base_url=served.url, timeout=HANG_S, cookies=cookies) as browser:
        before = browser.get("/v1/approvals").status_code
        out = browser.post("/logout").status_code
    with httpx.Client(base_url=served.url, timeout=HANG_S, cookies=cookies) as replayed:
        after = replayed.get("/v1/approvals").status_code
        page = replayed.get("/").text
        with replayed.stream("GET", "/events") as events:
            stream = events.status_code
    assert (before, out, after, stream) == (200, 303, 401, 401)
    assert 'id="queue"' not in page and 'action="/login"' in page


CROSS_SITE = [{"Origin": "http://evil.example"}, {"Origin": "null"},
              {"Sec-Fetch-Site": "cross-site"}, {"Referer": "http://evil.example/page"}]


@pytest.mark.parametrize("headers", CROSS_SITE)
def test_a_cross_site_login_is_refused(served: Running, headers: dict[str, str]) -> None:
    token = served.token("viewer")
    own = {"Origin": served.url, "Sec-Fetch-Site": "same-origin"}
    with httpx.Client(base_url=served.url, timeout=HANG_S) as browser:
        refused = browser.post("/login", data={"token": token}, headers=headers)
        assert "clawgate_session" not in refused.cookies
        signed = browser.post("/login", data={"token": token}, headers=own)
        out = browser.post("/logout", headers={"Origin": served.url})
    assert (refused.status_code, signed.status_code, out.status_code) == (403, 303, 303)


@pytest.mark.parametrize("headers", CROSS_SITE)
def test_a_cross_site_logout_is_refused(served: Running, headers: dict[str, str]) -> None:
    cookie = signed_in_cookie(served)
    cookies = {"clawgate_session": cookie}
    with httpx.Client(base_url=served.url, timeout=HANG_S, cookies=cookies) as browser:
        refused = browser.post("/logout", headers=headers)
        still = browser.get("/v1/approvals")
    assert (refused.status_code, still.status_code) == (403, 200)


# --- the long poll -----------------------------------------------------------------------


def test_the_long_poll_is_rate_limited(tmp_path: Path) -> None:
    running = launch(tmp_path, "--agent-rate", "5")
    try:
        with running.client("agent", "poller") as agent:
            asked = agent.post("/v1/check", json={"command": "deploy-prod --poll"}).json()
            polls = [agent.get(f"/v1/approvals/{asked['approval_id']}").status_code
                     for _ in range(40)]
    finally:
        finish(running.process)
    assert set(polls) == {200, 429}


def test_one_caller_holds_a_few_long_polls_at_once(served: Running) -> None:
    token = served.token("agent", "holder")
    with httpx.Client(base_url=served.url, timeout=HANG_S,
                      headers={"Authorization": f"Bearer {token}"}) as agent:
        request_id = agent.post("/v1/check", json={"command": "deploy-prod --hold"}).json()[
            "approval_id"]
    statuses: list[int] = []
    lock = threading.Lock()
    four_refused = threading.Event()

    def wait() -> None:
        with httpx.Client(base_url=served.url, timeout=HANG_S,
                          headers={"Authorization": f"Bearer {token}"}) as mine:
            got = mine.get(f"/v1/approvals/{request_id}", params={"wait": 60}).status_code
        with lock:
            statuses.append(got)
            if statuses.count(429) == 4:
                four_refused.set()

    waiters = [threading.Thread(target=wait) for _ in range(12)]
    for waiter in waiters:
        waiter.start()
    four_refused.wait(HANG_S)
    with served.client("approver") as person:
        person.post(f"/v1/approvals/{request_id}", json={"answer": "deny"})
    for waiter in waiters:
        waiter.join(HANG_S)
    assert sorted(statuses) == [200] * 8 + [429] * 4



def test_a_decision_past_the_time_limit_is_a_deny(tmp_path: Path) -> None:
    running = launch(tmp_path, "--decision-timeout", "0.02")
    try:
        with running.client("agent", "patient") as agent, running.client("viewer") as viewer:
            answer = agent.post("/v1/check", json={"command": SLOW_LINE}).json()
            audited = viewer.get("/v1/audit", params={"agent": "patient"}).json()["records"]
    finally:
        finish(running.process)
    assert answer["outcome"] == "deny"
    assert answer["reasons"][0]["rule_id"] == "CG-SERVE-001"
    assert [(r["outcome"], r["rule"]) for r in audited] == [("deny", "CG-SERVE-001")]
