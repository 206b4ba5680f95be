"""Red team, the fuzz's *adding* invariant (adding commands to a line never lowers its
outcome): a line that is DENY alone was ASK once joined after ``|``. A stage of a pipeline runs
in a subshell of its own, and what it assigned was taken as unknown on the whole line, its own
stage included: ``ls | ( x=/; rm -rf "$x" )`` was ASK where ``( x=/; rm -rf "$x" )`` is
DENY. The fuzz joins ``a | b`` and puts a ``b`` that starts with ``!`` in ``( … )``, which is
how it met the family. Now a stage's assignments are seen in that stage only, as bash sees
them."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.testing.invariants import adding_never_lowers

ENGINE = Engine(cache_size=0)


@pytest.mark.parametrize(("line", "extra", "sep"), [
    ("ls", "! x=/; rm -rf $x", " | "),
    ("echo hi", "! x=/; rm -rf $x", " | "),
    ("x=1", "! x=/; rm -rf $x", " | "),
    ("ls", "( x=/; rm -rf $x )", " | "),
    ("ls", "{ x=/; rm -rf $x; }", " | "),
    ("ls", "( x=/; (rm -rf $x) )", " | "),
    ("ls", "{ IFS=,; x=rm,-rf,/; $x; }", " | "),
])
def test_adding_a_pipe_never_lowers(line: str, extra: str, sep: str) -> None:
    adding_never_lowers(ENGINE, line, extra, sep)  # raises InvariantViolation when lower


@pytest.mark.parametrize(("line", "expected"), [
    ("ls | ( x=/; rm -rf $x )", Outcome.DENY),  # seen in its own stage
    ("ls | { x=/; rm -rf $x; }", Outcome.DENY),
    ("x=/; ls | { x=a; }; rm -rf $x", Outcome.DENY),  # the stage's x=a is not seen after it
    ("ls | { x=/; }; rm -rf $x", Outcome.ASK),  # nor its x=/: unknown there, as written
    ("x=/ | rm -rf $x", Outcome.ASK),  # another stage, another subshell
])
def test_a_stage_assigns_for_itself_only(line: str, expected: Outcome) -> None:
    assert ENGINE.check(line).outcome is expected
