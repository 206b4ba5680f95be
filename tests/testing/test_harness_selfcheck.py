"""The harness on clawgate itself, as CI runs it: the ci profile (300 derandomised examples per
invariant) against the default policy.

Every invariant holds; each counter-example ever found is kept in regressions.jsonl.
"""

from __future__ import annotations

import pytest

from clawgate.engine import Engine
from clawgate.testing.fuzz import FuzzConfig, run_one
from clawgate.testing.plugin import PROFILES

# `decides` with a deadline only a hang misses: its 50 ms bound is bench/bench_fuzz.py's figure
# and CI's `policy fuzz --examples 2000` step, never a test's assertion.
CI = FuzzConfig(examples=PROFILES["ci"], deadline_ms=10_000.0)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.mark.parametrize("name", [
    "decides",
    "rewrites",
    "adding",
    "wrappers",
    "paths",
    "audit",
])
def test_invariant_holds_on_the_default_policy(engine: Engine, name: str) -> None:
    result = run_one(engine, name, CI)
    if result.status == "skipped":
        pytest.skip(result.note)
    assert result.status == "ok", (result.violation, getattr(result.violation, "arguments", None))
    assert result.examples >= CI.examples
