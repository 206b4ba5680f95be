"""What the latency tail's causes were held to: the start-up heap frozen out of the collector's
walks, SQLite's writers queued on one lock instead of sleeping in SQLite's busy handler, and
the rate counters' flush still counting every admission (counts and outcomes only)."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from clawgate.policy.loader import load_policy
from clawgate.serve import heap
from clawgate.serve.chain import Chain, Entry
from clawgate.serve.db import connect, migrate, rates, writing
from clawgate.serve.queue import Queue
from clawgate.serve.ratelimit import AgentLimiter
from clawgate.serve.service import WARM, Service

KEY = b"k" * 32


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def unfrozen() -> object:
    yield None
    heap.release()


def test_settle_warms_freezes_and_still_frees_new_cycles(tmp_path: Path,
                                                         unfrozen: object) -> None:
    engine = connect(f"sqlite:///{tmp_path / 's.db'}")
    migrate(engine)
    service = Service(load_policy(), Chain(engine, KEY), Queue(engine, KEY),
                      workspace=str(tmp_path))
    try:
        frozen = heap.settle(service.warm)
        assert frozen > 0 and gc.get_freeze_count() > 0
        assert all(service.engine.check(c, cwd=str(tmp_path)) is service.engine.check(
            c, cwd=str(tmp_path)) for c in WARM)  # decided at start-up, kept in the cache
        made_after = _Cycle()
        import weakref

        alive = weakref.ref(made_after)
        del made_after
        gc.collect()
        assert alive() is None  # a cycle made after the freeze is collected as before
    finally:
        service.close()
        engine.dispose()
    heap.release()
    assert gc.get_freeze_count() == 0


def _impatient(path: Path) -> sa.engine.Engine:
    """The database with no busy timeout: a writer that meets another's lock fails at once."""
    engine = sa.create_engine(f"sqlite:///{path}", connect_args={"timeout": 0,
                                                                 "check_same_thread": False})

    @sa.event.listens_for(engine, "connect")
    def _wal(dbapi: object, _record: object) -> None:
        cursor = dbapi.cursor()  # type: ignore[attr-defined]
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    return engine


@pytest.mark.parametrize(("threads", "writes"), [(2, 200), (6, 60)])
def test_sqlite_writers_queue_on_the_process_lock(tmp_path: Path, threads: int,
                                                  writes: int) -> None:
    engine = _impatient(tmp_path / "s.db")
    migrate(engine)
    failures: list[BaseException] = []

    def writer(name: str) -> None:
        for n in range(writes):
            try:
                with writing(engine) as conn:
                    conn.execute(rates.insert().values(agent=name, window=n, count=1))
            except BaseException as exc:  # counted below
                failures.append(exc)

    pool = [threading.Thread(target=writer, args=(f"a{i}",)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    with engine.connect() as conn:
        total = conn.execute(sa.select(sa.func.count()).select_from(rates)).scalar_one()
    engine.dispose()
    assert failures == []  # none met "database is locked": none had to wait in SQLite
    assert total == threads * writes


def test_the_chain_and_the_flush_share_the_writer_lock(tmp_path: Path) -> None:
    engine = _impatient(tmp_path / "s.db")
    migrate(engine)
    chain = Chain(engine, KEY)
    limiter = AgentLimiter(engine, 1_000_000)  # its thread flushes every 50 ms meanwhile
    try:
        for n in range(300):
            assert limiter.admit(f"agent-{n % 3}")
            chain.append([Entry(f"agent-{n % 3}", "s", "exec_shell", "allow", "", {"n": n})])
    finally:
        limiter.close()  # the flush thread ends, and with it any flush it had in hand
    limiter.flush()  # what it had not taken yet (read only now: a flush in flight commits late)
    with engine.connect() as conn:
        counted = conn.execute(sa.select(sa.func.sum(rates.c["count"]))).scalar_one()
    assert chain.verify()["records"] == 300 and chain.verify()["ok"]
    assert counted == 300  # every admission counted once, none twice
    engine.dispose()
