"""Every registered validator has a unique well-formed ID, a docstring that says what it
catches with a bad and a harmless example, and at least one test that names its ID."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from clawgate.errors import RegistryError
from clawgate.validators import load_all
from clawgate.validators.base import Registry

TESTS = Path(__file__).resolve().parents[1]
CLASSES = load_all().classes()
_ID = re.compile(r"CG-[A-Z]{2,6}-\d{3}")


def _test_sources() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in TESTS.rglob("test_*.py"))


SOURCES = _test_sources()


def test_ids_are_unique_and_well_formed() -> None:
    ids = [cls.id for cls in CLASSES]
    assert len(ids) == len(set(ids))
    assert all(_ID.fullmatch(i) for i in ids)


def test_only_the_destructive_family_uses_the_prefix_unsafe_lifts() -> None:
    from clawgate.validators import destructive as dest
    from clawgate.validators import diskfill, disruptive, gitops, killers, outwardverbs, vcsdiscard

    owners = {cls.__module__ for cls in CLASSES if cls.id.startswith("CG-DEST-")}
    assert owners <= {dest.__name__, disruptive.__name__, gitops.__name__, killers.__name__,
                      vcsdiscard.__name__, diskfill.__name__,
                      outwardverbs.__name__}  # an unknown program's publish or deploy


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.id)
def test_docstring_says_what_and_why_with_examples(cls: type) -> None:
    doc = (cls.__doc__ or "").strip()
    assert doc, cls
    assert "Bad:" in doc and "Harmless:" in doc, f"{cls.id} lacks examples"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.id)
def test_every_validator_has_a_test(cls: type) -> None:
    assert cls.id in SOURCES or cls.__name__ in SOURCES, f"no test mentions {cls.id}"


def test_registry_refuses_duplicates_and_bad_ids() -> None:
    registry = Registry()

    class First:
        """Doc."""

        id = "CG-ZZ-001"

    class Second:
        """Doc."""

        id = "CG-ZZ-001"

    class Malformed:
        """Doc."""

        id = "ZZ-1"

    registry.register(First)  # type: ignore[type-var]
    with pytest.raises(RegistryError):
        registry.register(Second)  # type: ignore[type-var]
    with pytest.raises(RegistryError):
        registry.register(Malformed)  # type: ignore[type-var]
