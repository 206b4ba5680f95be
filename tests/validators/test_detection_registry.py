"""Every validator of the detection families (INJ, WRAP, INTERP, ESC) documents a bad and a
harmless example and is named by at least one table test."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.validators import load_all

FAMILIES = ("INJ", "WRAP", "INTERP", "ESC", "CODE", "OBF", "PKG", "PROT", "IDENT", "AGENT",
            "EXPO", "DEG", "WIN", "ZSH")
HERE = Path(__file__).parent
TABLES = "".join(p.read_text(encoding="utf-8") for p in HERE.glob("test_*.py"))
CLASSES = [c for c in load_all().classes() if c.id.split("-")[1] in FAMILIES]


def test_the_families_are_registered() -> None:
    assert {c.id.split("-")[1] for c in CLASSES} == set(FAMILIES)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.id)
def test_documented_and_tested(cls: type) -> None:
    doc = cls.__doc__ or ""
    assert "Bad" in doc
    assert "Harmless" in doc
    assert cls.id in TABLES


def test_a_crashing_command_validator_still_fails_closed() -> None:
    """The engine calls command validators inline on its hot path; a crash is still a DENY
    that names the validator."""
    from clawgate.decision import Outcome, Verdict
    from clawgate.engine import Engine
    from clawgate.shell.model import SimpleCommand
    from clawgate.validators.base import Context, Validator

    class Broken(Validator):
        """Raises on every command. Bad: any. Harmless: none."""

        id = "CG-TEST-001"

        def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
            raise RuntimeError("boom")

    decision = Engine(validators=[Broken()]).check("ls")
    assert decision.outcome is Outcome.DENY
    assert decision.reasons[0].rule_id == "CG-TEST-001"
