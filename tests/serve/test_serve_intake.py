"""The audit chain's one writer on a real PostgreSQL: replicas hand their records in, the
replica holding the lead links them; the lead passes on when its holder is killed, and nothing
answered is lost or chained twice."""

from __future__ import annotations

import json
import secrets
import signal
import threading
from collections import Counter
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from pgkit import fresh_database
from servekit import ANSWER_S, Server, in_process_token, server_env, start, stop, until

from clawgate.serve.chain import Chain, Entry
from clawgate.serve.db import audit, audit_intake, connect, migrate
from clawgate.serve.intake import Intake, Linker

pytestmark = pytest.mark.postgres


def entry(n: int) -> Entry:
    return Entry("agent", "s", "exec_shell", "allow", "", {"command": f"echo {n}", "n": n})


def test_records_handed_in_are_linked_once_in_order_and_verify() -> None:
    engine = connect(fresh_database())
    migrate(engine)
    key = secrets.token_bytes(32)
    chain = Chain(engine, key)
    intake = Intake(engine)
    try:
        batches = [intake.write([entry(3 * b + n) for n in range(3)]) for b in range(4)]
        assert intake.kept([*batches, "0" * 32]) == set(batches)  # in the intake
        linker = Linker(engine, key)
        chain.caught_up()
        linker.close()
        assert intake.kept([*batches, "0" * 32]) == set(batches)  # linked: still known
        verified = chain.verify()
        with engine.connect() as conn:
            order = [json.loads(body)["n"] for body in conn.execute(
                sa.select(audit.c.body).order_by(audit.c.seq)).scalars()]
            left = conn.execute(sa.select(sa.func.count()).select_from(audit_intake)).scalar()
    finally:
        intake.close()
        chain.close()
        engine.dispose()
    assert order == list(range(12))
    assert left == 0
    assert verified == {"ok": True, "records": 12, "first_bad": None,
                        "why": "12 records, chain intact"}


def test_one_linker_leads_and_another_takes_over_when_its_connection_dies() -> None:
    engine = connect(fresh_database())
    migrate(engine)
    key = secrets.token_bytes(32)
    chain = Chain(engine, key)
    intake = Intake(engine)
    linkers = [Linker(engine, key, wait_s=0.05), Linker(engine, key, wait_s=0.05)]
    try:
        assert until(lambda: any(linker.leading for linker in linkers))
        leader = next(linker for linker in linkers if linker.leading)
        other = next(linker for linker in linkers if linker is not leader)
        assert not other.leading
        intake.write([entry(n) for n in range(5)])
        chain.caught_up()
        leader._stop.set()  # the leader dies: its thread ends, its connection is closed
        leader._thread.join(ANSWER_S)
        assert until(lambda: other.leading)
        intake.write([entry(n) for n in range(5, 9)])
        chain.caught_up()
        verified = chain.verify()
    finally:
        for linker in linkers:
            linker.close()
        intake.close()
        chain.close()
        engine.dispose()
    assert verified["ok"] and verified["records"] == 9, verified


def _leads(server: Server, token: str) -> bool:
    text = httpx.get(f"{server.url}/metrics", timeout=60,
                     headers={"Authorization": f"Bearer {token}"}).text
    return "clawgate_audit_leader 1.0" in text


def test_the_leader_killed_under_load_loses_no_answered_decision(tmp_path: Path) -> None:
    """Two replicas under load; the one leading the chain is SIGKILLed mid-run; the other
    takes the lead and links what the dead one had not. Every decision answered 200 by either
    is in the chain exactly once, and the chain verifies."""
    database = fresh_database()
    env = server_env(tmp_path)  # one state directory: the replicas share their key
    servers = []
    for _ in range(2):
        url, process = start(tmp_path, database, env, 600.0, None, "--agent-rate", "100000")
        servers.append(Server(url, database, env, process, {}))
    try:
        viewer = in_process_token(servers[0], "viewer", "v")
        assert until(lambda: any(_leads(s, viewer) for s in servers))
        leader = next(s for s in servers if _leads(s, viewer))
        survivor = next(s for s in servers if s is not leader)
        agent = in_process_token(servers[0], "agent", "loaded")
        answered: list[str] = []
        stop_load = threading.Event()

        def load(server: Server, name: str) -> None:
            with httpx.Client(base_url=server.url, timeout=60,
                              headers={"Authorization": f"Bearer {agent}"}) as c:
                n = 0
                while not stop_load.is_set():
                    n += 1
                    command = f"echo {name}-{n}"
                    try:
                        if c.post("/v1/check", json={"command": command}).status_code == 200:
                            answered.append(command)
                    except httpx.TransportError:  # the killed replica: torn, not answered
                        if server is leader:
                            return

        workers = [threading.Thread(target=load, args=(s, f"{i}-{w}"))
                   for i, s in enumerate(servers) for w in range(3)]
        for worker in workers:
            worker.start()
        assert until(lambda: len(answered) >= 300)
        leader.process.send_signal(signal.SIGKILL)
        leader.process.wait(ANSWER_S)
        assert until(lambda: _leads(survivor, viewer))
        done = len(answered)
        assert until(lambda: len(answered) >= done + 100)  # the survivor answers on
        stop_load.set()
        for worker in workers:
            worker.join(ANSWER_S)
        with httpx.Client(base_url=survivor.url, timeout=60,
                          headers={"Authorization": f"Bearer {viewer}"}) as c:
            verified = c.get("/v1/audit/verify").json()
        chained, left = _chained(database)
    finally:
        for server in servers:
            stop(server.process)
    assert verified["ok"], verified
    assert left == 0
    assert [c for c, times in chained.items() if times > 1] == []  # nothing chained twice
    assert [c for c in answered if c not in chained] == []  # nothing answered is lost


def _chained(database: str) -> tuple[Counter[str], int]:
    """How many times each command is in the chain; how many records wait in the intake."""
    engine = connect(database)
    try:
        with engine.connect() as conn:
            chained = Counter(json.loads(body)["command"] for body in conn.execute(
                sa.select(audit.c.body).where(audit.c.tool == "exec_shell")).scalars())
            left = conn.execute(sa.select(sa.func.count()).select_from(audit_intake)).scalar()
    finally:
        engine.dispose()
    return chained, int(left or 0)
