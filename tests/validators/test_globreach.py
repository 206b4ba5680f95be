"""Whether a glob matches anything on the disk now (``validators/globreach.py``): True only
when certain, component by component as bash expands it."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.validators.globreach import matches_nothing


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "source" / "reference" / "v1").mkdir(parents=True)
    (tmp_path / "source" / "reference" / "v1" / "index.md").write_text("x\n")
    (tmp_path / "source" / "reference" / ".v0" / "api").mkdir(parents=True)
    (tmp_path / "notes.txt").write_text("x\n")
    (tmp_path / "linked").symlink_to(tmp_path / "source")
    return tmp_path


CASES = [
    ("missing/*/api", True),  # the literal part is not there
    ("source/reference/*/api/", False),  # .v0/api: dot names count (dotglob may be on)
    ("source/reference/*/docs", True),
    ("source/*/v1/index.md", False),
    ("source/*/v1/*.rst", True),
    ("notes.txt/*/x", True),  # a file is not a directory to go through
    ("linked/reference/*/index.md", False),  # through a link, as bash follows one
    ("linked/*/v[12]/index.md", False),  # a bracket expression: not worked out
    ("*/reference/v1/gone", True),
    ("*", False),
]


@pytest.mark.parametrize(("pattern", "expected"), CASES)
def test_matches_nothing(tree: Path, pattern: str, expected: bool) -> None:
    assert matches_nothing(f"{tree}/{pattern}".rstrip("/")) is expected
