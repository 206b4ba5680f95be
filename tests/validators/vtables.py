"""What the validator table tests share: one engine, one workspace under a fixed home, and the
two checks every table makes (a line is caught with its rule; a look-alike is allowed)."""

from __future__ import annotations

from clawgate.decision import Decision, Outcome
from clawgate.engine import Engine
from clawgate.validators.base import Context

HOME = "/home/dev"  # tests/validators/conftest.py sets $HOME to it for every test here
WS = "/home/dev/project"
CTX = Context(WS, WS, HOME)
ENGINE = Engine()
ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY


def decision(line: str, engine: Engine = ENGINE, cwd: str = WS) -> Decision:
    return engine.check(line, cwd=cwd)


def decide(line: str, engine: Engine = ENGINE, cwd: str = WS) -> tuple[Outcome, set[str]]:
    """The outcome of ``line`` and the ids of the rules that spoke."""
    found = decision(line, engine, cwd)
    return found.outcome, {r.rule_id for r in found.reasons}


def assert_caught(line: str, expected: Outcome, rule: str | None,
                  engine: Engine = ENGINE) -> None:
    outcome, rules = decide(line, engine)
    assert outcome is expected, (line, rules)
    if rule is not None:
        assert rule in rules, (line, rules)


def assert_allowed(line: str, engine: Engine = ENGINE) -> None:
    outcome, rules = decide(line, engine)
    assert outcome is ALLOW, (line, rules)
