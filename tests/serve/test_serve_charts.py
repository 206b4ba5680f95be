"""The charts' counting, in SQLite and PostgreSQL: each decision in the bucket its time falls
in (edges included), answers to approval requests not counted, the rules past the top five
together."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from pgkit import fresh_database
from sqlalchemy.engine import Engine

from clawgate.serve.charts import buckets, by_outcome, by_rule
from clawgate.serve.db import audit, connect, migrate

NOW = 1_800_000_000.0  # a bucket edge of every window (a multiple of 300, 3600 and 86400)


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Engine]:
    url = (f"sqlite:///{tmp_path_factory.mktemp('charts') / 'serve.db'}"
           if request.param == "sqlite" else fresh_database())
    made = connect(url)
    migrate(made)
    yield made
    made.dispose()


def put(engine: Engine, *records: tuple[float, str, str, str]) -> None:
    """Audit rows (time, tool, outcome, rule): the counting reads nothing else."""
    with engine.begin() as conn:
        conn.execute(audit.insert(), [
            {"seq": n, "time": t, "agent": "a", "session": "", "tool": tool, "outcome": o,
             "rule": r, "body": "{}", "prev": "", "mac": ""}
            for n, (t, tool, o, r) in enumerate(records, start=1)])


def test_each_decision_is_counted_in_its_bucket(engine: Engine) -> None:
    frame = buckets("1h", NOW)  # 12 buckets of 300 s, the last one [NOW, NOW + 300)
    first = frame.starts[0]
    put(engine,
        (first - 0.5, "exec_shell", "deny", "r1"),  # before the window
        (first, "exec_shell", "allow", "r1"),  # bucket 0, its first second
        (first + 299.6, "exec_shell", "deny", "r1"),  # bucket 0, its last second
        (first + 300.0, "exec_shell", "ask", "r2"),  # bucket 1
        (NOW + 299.9, "exec_shell", "deny", "r2"),  # the last bucket
        (NOW, "approval", "allow", ""))  # an answer, not a decision
    assert {s.name: s.counts for s in by_outcome(engine, frame)} == {
        "allow": (1,) + (0,) * 11,
        "ask": (0, 1) + (0,) * 10,
        "deny": (1,) + (0,) * 10 + (1,)}


def test_the_rules_past_the_top_five_are_one_series(engine: Engine) -> None:
    frame = buckets("24h", NOW)
    put(engine, *[(NOW + 1, "exec_shell", "deny", f"rule-{n}") for n in range(7) for _ in
                  range(n + 1)])
    series = by_rule(engine, frame)
    assert [(s.name, s.total) for s in series] == [
        ("rule-6", 7), ("rule-5", 6), ("rule-4", 5), ("rule-3", 4), ("rule-2", 3),
        ("other rules", 3)]
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(audit)).scalar_one() == 28
