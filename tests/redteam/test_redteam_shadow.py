"""Lines that hide what they run, decided by what bash runs: each was ASK before the shadow
run, and is DENY now because bash, run in the shadow, starts a program that is DENY written
out (the reason names CG-SHADOW-001). Real bash, real bubblewrap."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

pytestmark = pytest.mark.bwrap

HIDDEN = [
    # positional parameters, arrays and name references set on the line (a function handed
    # a command as words, f rm -rf ~, is read as that command without bash: CG-PROG-004)
    'set -- rm -rf ~; "$@"',
    'f() { "$1$2" -rf ~; }; f r m',
    "rm_fn() { $1 -rf ~; }; rm_fn rm",
    's() { "$1$2" shutdown now; }; s su_ do',
    "declare -n r=c; c=rm; $r -rf ~",
    "let i=0; a=(rm); ${a[i]} -rf ~",
    "t=$(( 1 + 1 )); a=(ls x rm); ${a[t]} -rf ~",
    "c=r; c+=m; $c -rf ~",
    "for c in rm; do $c -rf ~; done",
    # builtins that assign: printf -v, read, mapfile / readarray
    "printf -v c 'r%s' m; $c -rf ~",
    "x=rm; printf -v y '%s' \"$x\"; $y -rf ~",
    "read -r a b <<< 'rm -rf'; $a $b ~",
    "read c <<< rm; $c -rf ~",
    "IFS=: read -r p q <<< 'rm:-rf'; $p $q ~",
    "mapfile -t a <<< 'rm'; ${a[0]} -rf ~",
    "mapfile -t cmd < <(printf '%s\\n' rm -rf /); \"${cmd[@]}\"",
    "readarray -t w <<< $'sudo\\nrm\\n-rf\\n/'; \"${w[@]}\"",
    # names computed by text tools, and eval of text built at run time
    "x=$(cut -c1-2 <<< rmdir); $x -rf ~",
    "x=$(head -c2 <<< rmx); $x -rf ~",
    "x=$(sort <<< rm); $x -rf ~",
    'v=rm; eval "\\$v -rf ~"',
]


@pytest.fixture(scope="module")
def engine() -> Engine:
    from clawgate.shell.shadow import Limits, Shadow

    return Engine(shadow=Shadow(Limits(timeout_s=20)))  # the bound is a hang guard only


@pytest.mark.parametrize("line", HIDDEN)
def test_what_bash_runs_decides(engine: Engine, line: str) -> None:
    decision = engine.check(line, cwd="/tmp/workspace")
    assert decision.outcome is Outcome.DENY, decision.trace
    rules = {r.rule_id for r in decision.reasons}
    # the shadow decided, or the static reading now reads the line itself (a function called
    # with its arguments is read with them put in): a DENY asks for no second opinion
    shadowed = any(t.rule_id.startswith("CG-SHADOW") for t in decision.trace)
    assert "CG-SHADOW-001" in rules or not shadowed, rules
