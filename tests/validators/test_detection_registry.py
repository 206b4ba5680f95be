"""Every validator of the detection families (INJ, WRAP, INTERP, ESC) documents a bad and a
harmless example and is named by at least one table test."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.validators import load_all

FAMILIES = ("INJ", "WRAP", "INTERP", "ESC")
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
