"""Two replicas on one PostgreSQL database act as one: an answer given on one releases an agent
waiting on the other, concurrent writers on both make one audit chain with no gap, a replica
killed with SIGKILL under a waiting agent is survived, and a PostgreSQL restart under load is
answered with 503 (clients fail closed) and loses no audited decision."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from pgkit import fresh_database, restart_cluster
from servekit import ANSWER_S, Server, in_process_token, server_env, start, stop, until

from clawgate.approval import ApprovalAnswer, ApprovalRequest, ServerApprover

pytestmark = pytest.mark.postgres


@pytest.fixture
def replicas(tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    database = fresh_database()
    env = server_env(tmp_path)  # one state directory: the replicas share their key
    first_url, first = start(tmp_path, database, env, 600.0, None, "--agent-rate", "100000")
    second_url, second = start(tmp_path, database, env, 600.0, None, "--agent-rate", "100000")
    try:
        yield (Server(first_url, database, env, first, {}),
               Server(second_url, database, env, second, {}))
    finally:
        stop(first)
        stop(second)


def client(server: Server, token: str) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=60,
                        headers={"Authorization": f"Bearer {token}"})


def test_an_answer_on_one_replica_releases_a_wait_on_the_other(
        replicas: tuple[Server, Server]) -> None:
    one, two = replicas
    agent = in_process_token(one, "agent", "replicated")
    approver = in_process_token(one, "approver", "alice")
    with client(one, agent) as on_one, client(two, agent) as on_two:
        asked = on_one.post("/v1/check", json={"command": "deploy-prod --now"}).json()
        box: list[dict[str, Any]] = []
        waiter = threading.Thread(target=lambda: box.append(on_two.get(
            f"/v1/approvals/{asked['approval_id']}", params={"wait": 30}).json()))
        waiter.start()
        with client(one, approver) as person:
            person.post(f"/v1/approvals/{asked['approval_id']}", json={"answer": "allow"})
        waiter.join(ANSWER_S)
    assert box and box[0]["status"] == "allowed"


def test_concurrent_writers_on_both_replicas_make_one_chain(
        replicas: tuple[Server, Server]) -> None:
    one, two = replicas
    agent = in_process_token(one, "agent", "writer")

    def burst(server: Server) -> int:
        with client(server, agent) as c:
            return sum(c.post("/v1/check", json={"command": f"echo {n}"}).status_code == 200
                       for n in range(60))

    with ThreadPoolExecutor(8) as pool:
        answered = sum(pool.map(burst, [one, two] * 4))
    viewer = in_process_token(one, "viewer", "v")
    with client(two, viewer) as c:
        verified = c.get("/v1/audit/verify").json()
    assert answered == 480
    assert verified == {"ok": True, "records": 480, "first_bad": None,
                        "why": "480 records, chain intact"}


def test_the_replica_an_agent_waits_on_is_killed(replicas: tuple[Server, Server]) -> None:
    """The agent's long poll is on replica one when it is SIGKILLed; the person answers on
    two. Under load the kill may instead tear the agent's opening POST after replica one
    queued the request: the client then sends it again to two with the same request key and
    waits on the same request (the person answers whatever of the agent's is pending)."""
    one, two = replicas
    approver = ServerApprover([one.url, two.url], in_process_token(one, "agent", "survivor"),
                              timeout_s=60)
    box: list[ApprovalAnswer] = []
    waiter = threading.Thread(target=lambda: box.append(approver.approve(
        ApprovalRequest("exec_shell", {"command": "deploy-prod --kill"}))))
    waiter.start()
    person = in_process_token(two, "approver", "bob")
    with client(two, person) as c:
        assert until(lambda: _pending(c))
        threading.Event().wait(0.5)  # the agent's POST answered, its long poll begun
        one.process.send_signal(signal.SIGKILL)  # the replica the agent's long poll is on
        one.process.wait(ANSWER_S)

        def answered() -> bool:
            for request in _pending(c):
                c.post(f"/v1/approvals/{request['id']}", json={"answer": "allow"})
            return bool(box)

        until(answered, every=0.1)
    waiter.join(ANSWER_S)
    assert box == [ApprovalAnswer.ALLOW_ONCE], approver.last_error


def _pending(c: httpx.Client) -> list[dict[str, Any]]:
    return [p for p in c.get("/v1/approvals").json()["pending"] if p["agent"] == "survivor"]


def test_a_postgres_restart_under_load_fails_closed_and_loses_nothing(
        replicas: tuple[Server, Server]) -> None:
    one, _ = replicas
    agent = in_process_token(one, "agent", "loaded")
    statuses: list[int] = []
    stop_load = threading.Event()

    def load() -> None:
        with client(one, agent) as c:
            n = 0
            while not stop_load.is_set():
                n += 1
                try:
                    statuses.append(c.post("/v1/check", json={"command": f"ls {n}"}).status_code)
                except httpx.TransportError:
                    statuses.append(0)

    workers = [threading.Thread(target=load) for _ in range(4)]
    for worker in workers:
        worker.start()
    assert until(lambda: statuses.count(200) >= 8)  # the load is flowing (not a fixed sleep)
    restart_cluster()
    restarted = len(statuses)
    # the service is answering again after the restart: a 200 after it, however slow
    until(lambda: 200 in statuses[restarted:])
    stop_load.set()
    for worker in workers:
        worker.join(ANSWER_S)
    assert set(statuses) <= {200, 503}
    assert 503 in statuses  # the restart was seen: answered 503, nothing made up
    viewer = in_process_token(one, "viewer", "auditor")
    with client(one, viewer) as c:
        verified = c.get("/v1/audit/verify").json()
    assert verified["ok"], verified
    assert verified["records"] == statuses.count(200)


def test_workers_share_one_chain(tmp_path: Path) -> None:
    """``--workers 2``: two service processes behind one port write one audit chain."""
    database = fresh_database()
    env = server_env(tmp_path)
    url, process = start(tmp_path, database, env, 600.0, None, "--workers", "2",
                         "--agent-rate", "100000")  # 240 checks in a burst: not a flood
    server = Server(url, database, env, process, {})
    try:
        agent = in_process_token(server, "agent", "worker-agent")

        def burst(_: int) -> int:
            with client(server, agent) as c:
                return sum(c.post("/v1/check", json={"command": f"echo {n}"}).status_code == 200
                           for n in range(40))

        with ThreadPoolExecutor(6) as pool:
            answered = sum(pool.map(burst, range(6)))
        with client(server, in_process_token(server, "viewer", "v")) as c:
            verified = c.get("/v1/audit/verify").json()
    finally:
        stop(process)
    assert answered == 240
    assert verified["ok"] and verified["records"] == 240, verified


def test_workers_need_postgres(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "clawgate", "serve", "--workers", "2",
                           "--database", f"sqlite:///{tmp_path / 's.db'}"],
                          env=server_env(tmp_path), capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "--workers needs --database postgresql" in done.stderr
