"""The audit writer on a real PostgreSQL: a record the database cannot keep (a session name
longer than its column) fails its own request only, never the others committed in the same
batch, and the chain stays whole."""

from __future__ import annotations

import asyncio
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import sqlalchemy as sa
from pgkit import fresh_database
from sqlalchemy.exc import DataError

from clawgate.serve.auditwriter import AuditWriter
from clawgate.serve.chain import Chain, Entry
from clawgate.serve.db import connect, migrate
from clawgate.serve.pgchain import PgChainLog

pytestmark = pytest.mark.postgres


def test_a_record_the_database_refuses_fails_only_its_own_request() -> None:
    engine = connect(fresh_database())
    migrate(engine)
    chain = Chain(engine, secrets.token_bytes(32))
    writer = AuditWriter(chain)

    def entry(session: str) -> Entry:
        return Entry("agent", session, "exec_shell", "allow", "", {"command": "ls"})

    async def burst() -> list[int | BaseException]:
        entries = [entry(f"s{n}") for n in range(40)]
        entries.insert(20, entry("s" * 201))
        return await asyncio.gather(*(writer.write(e) for e in entries),
                                    return_exceptions=True)

    try:
        results = asyncio.run(burst())
        verified = chain.verify()
    finally:
        writer.close()
        engine.dispose()
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(refused) == 1 and isinstance(refused[0], DataError)
    assert isinstance(results[20], DataError)
    assert sorted(r for r in results if isinstance(r, int)) == list(range(1, 41))
    assert verified["ok"] and verified["records"] == 40


def test_two_writers_each_remembering_its_own_head_make_one_chain() -> None:
    """Each writer inserts after the head it wrote last only if that is still the head under
    the lock; after the other's write it is not, and it reads the head again."""
    database = fresh_database()
    key = secrets.token_bytes(32)
    engines = [connect(database), connect(database)]
    migrate(engines[0])
    chains = [Chain(engine, key) for engine in engines]

    def entry(n: int) -> Entry:
        return Entry(f"agent-{n}", "s", "exec_shell", "allow", "", {"n": n})

    try:
        lasts = [chains[n % 2].append([entry(n)] * (n % 3 + 1)) for n in range(8)]
        again = chains[1].append([entry(99)])  # after its own write: the one-trip way
        with ThreadPoolExecutor(4) as pool:  # both at once, through the lock
            list(pool.map(lambda n: chains[n % 2].append([entry(n), entry(n)]), range(40)))
        verified = chains[0].verify()
    finally:
        for chain, engine in zip(chains, engines, strict=True):
            chain.close()
            engine.dispose()
    assert lasts == [1, 3, 6, 7, 9, 12, 13, 15]
    assert again == 16
    assert verified["ok"] and verified["records"] == 16 + 80, verified


def test_each_write_is_on_disk_when_it_returns() -> None:
    """No settle called: a write's own settle, after the COMMIT that passes the chain's lock
    on, has flushed the WAL past its records when it returns, whichever way it went (after the
    head read under the lock, after the head it wrote last, after a miss)."""
    database = fresh_database()
    key = secrets.token_bytes(32)
    engines = [connect(database), connect(database)]
    migrate(engines[0])
    chains = [Chain(engine, key) for engine in engines]
    flushed: list[bool] = []
    try:
        for n, writer in enumerate((0, 0, 1, 0, 0)):  # the first of each: the head read;
            chain = chains[writer]                     # the fourth: a miss, then after it
            chain.write([Entry("agent", "s", "exec_shell", "allow", "", {"n": n})])
            position = chain._pg.flushed if chain._pg is not None else None
            with engines[0].connect() as conn:
                flushed.append(position is not None and conn.execute(
                    sa.text("SELECT pg_current_wal_flush_lsn() >= CAST(:at AS pg_lsn)"),
                    {"at": position}).scalar_one() is True)
        verified = chains[0].verify()
    finally:
        for chain, engine in zip(chains, engines, strict=True):
            chain.close()
            engine.dispose()
    assert flushed == [True] * 5
    assert verified["ok"] and verified["records"] == 5, verified


def test_writers_taking_turns_build_each_batch_once() -> None:
    """Two writers in turn: once a writer has seen the other write, it reads the head under
    the lock before it builds its rows, instead of building them after a head gone stale (an
    HMAC each, for an insert that misses) and again after the head the miss answered."""
    database = fresh_database()
    key = secrets.token_bytes(32)
    engines = [connect(database), connect(database)]
    migrate(engines[0])
    chains = [Chain(engine, key) for engine in engines]
    logs = [PgChainLog(engine) for engine in engines]
    builds: list[int] = []

    def write(n: int) -> None:
        heads: list[tuple[int, str] | None] = []

        def build(head: tuple[int, str] | None) -> list[dict[str, Any]]:
            heads.append(head)
            return chains[n % 2]._rows(head, [Entry("agent", "s", "exec_shell", "allow", "",
                                                    {"n": n})])

        logs[n % 2].write(build)
        builds.append(len(heads))

    try:
        for n in range(12):
            write(n)
        verified = chains[0].verify()
    finally:
        for log, chain, engine in zip(logs, chains, engines, strict=True):
            log.close()
            chain.close()
            engine.dispose()
    assert builds[3:] == [1] * 9, builds  # from the second turn of each, built once
    assert verified["ok"] and verified["records"] == 12, verified
