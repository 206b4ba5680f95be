"""Every counter-example the harness ever found, replayed on every run.

``regressions.jsonl`` holds one per line: the invariant, the arguments that broke it, the
cause, and a ``status``. ``open`` ones are expected to fail (strict xfail: a fix shows up as
XPASS, and whoever fixed it flips the status to ``fixed``); ``fixed`` ones must hold. Add new
ones with ``policy fuzz --save tests/testing/regressions.jsonl`` and fill in the cause.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clawgate.engine import Engine
from clawgate.testing import invariants as inv
from clawgate.testing.fuzz import warm_up
from clawgate.testing.strategies import make_workspace

RECORDS = [json.loads(line) for line in
           (Path(__file__).parent / "regressions.jsonl").read_text().splitlines() if line]


def _param(record: dict[str, Any]) -> Any:
    marks = []
    if record["status"] == "open":
        marks.append(pytest.mark.xfail(reason=record["cause"], strict=True,
                                       raises=inv.InvariantViolation))
    return pytest.param(record, marks=marks, id=f"{record['invariant']}")


@pytest.fixture(scope="module")
def engine() -> Engine:
    engine = Engine()
    warm_up(engine)  # as policy fuzz does: the first timed check must not pay for imports
    return engine


def test_records_are_well_formed() -> None:
    for record in RECORDS:
        assert record["invariant"] in inv.CHECKS
        assert record["status"] in {"open", "fixed"}
        assert record["cause"]


@pytest.mark.parametrize("record", [_param(r) for r in RECORDS])
def test_regression(record: dict[str, Any], engine: Engine, tmp_path: Path) -> None:
    if record["invariant"] == "paths":
        pytest.importorskip("clawgate.tools.paths",
                            reason="needs clawgate.tools.paths (written on the guard branch)")
        (tmp_path / "home").mkdir()
        layout = make_workspace(tmp_path)
        inv.path_stays_inside(**record["arguments"], workspace=layout.root,
                              home=str(tmp_path / "home"))
        return
    arguments = dict(record["arguments"])
    if record["invariant"] == "decides":  # these were hangs: replayed with a hang's deadline
        arguments["deadline_ms"] = 10_000.0  # (the time bound itself is bench/'s)
    inv.replay(engine, record["invariant"], arguments)
