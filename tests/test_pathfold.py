"""A path component as case-insensitive file systems compare it (``clawgate.pathfold``)."""

from __future__ import annotations

import pytest

from clawgate.pathfold import fold, short_alias


@pytest.mark.parametrize(("part", "folded"), [
    (".GIT", ".git"),
    (".git.", ".git"),
    ("CLAUDE.md  ", "claude.md"),
    ("workflow\u017f", "workflows"),  # long s
    (".g\u0131t", ".git"),  # dotless i: NTFS upper-cases it to I
    (".\u212airo", ".kiro"),  # Kelvin sign
    (".g\u200cit", ".git"),  # a zero-width non-joiner HFS+ ignores
    ("..", ".."),
    (".", "."),
    ("r\u00e9sum\u00e9", "r\u00e9sum\u00e9"),
    ("src", "src"),
    ("CLAUDE.md::$DATA", "claude.md"),  # the file's NTFS data stream
    (".git::$INDEX_ALLOCATION", ".git"),
])
def test_fold(part: str, folded: str) -> None:
    assert fold(part) == folded


@pytest.mark.parametrize(("part", "name", "alias"), [
    ("git~1", ".git", True),
    ("github~2", ".github", True),
    ("mcp~1.jso", ".mcp.json", True),
    ("pre-co~1.yam", ".pre-commit-config.yaml", True),
    ("git~1", ".github", False),
    ("x~1", ".git", False),
    ("git~", ".git", False),
    ("mcp~1.txt", ".mcp.json", False),
])
def test_short_alias(part: str, name: str, alias: bool) -> None:
    assert short_alias(part, name) is alias
