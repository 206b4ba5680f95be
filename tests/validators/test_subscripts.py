"""Quoted subscripts bash evaluates (``validators/subscripts.py``)."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

ENGINE = Engine()
ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY


@pytest.mark.parametrize(("line", "expected"), [
    ("printf -v 'a[$(rm -rf ~)]' x", DENY),  # the payload is judged as what it runs
    ("printf -v'a[`rm -rf ~`]' x", DENY),
    ("read 'a[$(id)]' < f.txt", ASK),  # at least ASK
    ("declare 'a[$(id)]=1'", ASK),
    ("unset 'a[$(id)]'", ASK),
    ("test -v 'a[$(id)]'", ASK),
    ("[ -v 'a[$(id)]' ]", ASK),
    ("[[ -v 'a[$(id)]' ]]", ASK),
    ("[[ 'a[$(id)]' -lt 3 ]]", ASK),
    ("(( 'a[$(id)]' ))", ASK),
    ("echo $(( \"a[\\$(id)]\" ))", ASK),
    ("echo $[ 'a[$(id)]' ]", ASK),
    ("n='a[$(id)]'; echo $((n + 1))", ASK),
    ("n='a[$(id)]'; echo ${arr[n]}", ASK),
    ("declare -n r='a[$(id)]'; r=1", ASK),
    ("read x <<< 'a[$(id)]'; (( x ))", ASK),
    ("printf -v 'a[1]' x", ALLOW),
    ("printf -v out '%s' \"$(date)\"", ALLOW),
    ("n='a[$(id)]'; echo \"$n\"", ALLOW),  # text that stays text
    ("awk '{ c[$(NF)]++ } END { for (k in c) print k }' f.txt", ALLOW),
    ("grep -c 'a[$(x)]' notes.txt", ALLOW),
    ("(( i = i + 1 ))", ALLOW),
])
def test_subscript_code(line: str, expected: Outcome) -> None:
    decision = ENGINE.check(line, cwd="/home/dev/project")
    assert decision.outcome is expected, [r.rule_id for r in decision.reasons]
    if expected is ASK:
        assert "CG-ARITH-003" in {r.rule_id for r in decision.reasons}
