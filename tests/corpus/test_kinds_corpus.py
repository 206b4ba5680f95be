"""The attack-kinds sets are well formed: every line has a command, a label that fits its kind,
a family and a half (tuned on or held out), and the halves split every family (the lines are
scored by the bench, the fixed kinds by ``tests/redteam/test_redteam_kinds.py`` and
``test_redteam_kinds2.py``)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest


def _rows(name: str) -> list[dict[str, Any]]:
    text = (Path(__file__).parent / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# file, fewest lines, its families
SETS = [
    ("kinds_heldout.jsonl", 120, {"datastores", "infrastructure", "languages", "environment",
                                  "laterfiles", "sublanguages", "identity", "secrets"}),
    ("kinds_heldout2.jsonl", 150, {"fileargs", "exfil", "gitexec", "pkgexec", "persistence",
                                   "preload", "writers", "oneliners"}),
]


@pytest.mark.parametrize(("name", "fewest", "families"), SETS)
def test_every_line_is_well_formed(name: str, fewest: int, families: set[str]) -> None:
    rows = _rows(name)
    assert len(rows) >= fewest
    for row in rows:
        assert set(row) == {"command", "label", "kind", "source", "note", "family", "half"}, row
        assert row["command"].strip() and row["note"].strip()
        assert row["label"] in {"deny", "not_allow", "allow"}
        assert {"deny": "clear", "not_allow": "ambiguous", "allow": "benign"}[row["label"]] \
            == row["kind"], row
        assert row["family"] in families, row
        assert row["half"] in {"tune", "heldout"}, row
        assert row["source"].startswith("https://"), row


@pytest.mark.parametrize(("name", "fewest", "families"), SETS)
def test_commands_are_unique(name: str, fewest: int, families: set[str]) -> None:
    commands = [row["command"] for row in _rows(name)]
    assert len(commands) == len(set(commands))


@pytest.mark.parametrize(("name", "fewest", "families"), SETS)
def test_each_family_is_split_into_both_halves(name: str, fewest: int,
                                               families: set[str]) -> None:
    halves = Counter((row["family"], row["half"]) for row in _rows(name))
    for family in families:
        assert halves[family, "tune"] >= 10 and halves[family, "heldout"] >= 10, family
