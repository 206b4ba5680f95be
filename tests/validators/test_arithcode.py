"""Code run by arithmetic evaluation and by mapfile callbacks (``validators/arithcode.py``)."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

ENGINE = Engine()
ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("let 'x[$(rm -rf ~)]=1'", DENY, None),  # the payload is checked as what it runs
    ("let 'x[`rm -rf ~`]=1'", DENY, None),
    ("let 'x[$(id)]=1'", ASK, "CG-ARITH-001"),
    ('let "x[$y]=1"', ALLOW, None),
    ("let i=i+1", ALLOW, None),
    ("let 'i = i + 1'", ALLOW, None),
    ("declare -i n; n='a[$(rm -rf ~)]'", DENY, None),
    ("typeset -ri n='a[$(id)]'", ASK, "CG-ARITH-002"),
    ("declare -i n; n=4", ALLOW, None),
    ("declare n; n='a[$(id)]'; echo \"$n\"", ALLOW, None),  # not integer: text stays text
    ("mapfile -t -C 'rm -rf ~ #' -c 1 x < list.txt", DENY, None),
    ("readarray -C\"$cb\" x < list.txt", ASK, "CG-ARITH-001"),
    ("mapfile -C 'echo' x < list.txt", ASK, "CG-ARITH-001"),
    ("mapfile -t lines < list.txt", ALLOW, None),
])
def test_arithmetic_code(line: str, expected: Outcome, rule: str | None) -> None:
    decision = ENGINE.check(line, cwd="/home/dev/project")
    assert decision.outcome is expected, (line, [r.rule_id for r in decision.reasons])
    if rule is not None:
        assert rule in {r.rule_id for r in decision.reasons}
