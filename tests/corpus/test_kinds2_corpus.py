"""The second attack-kinds set is well formed: every line has a command, a label that fits its
kind, a family and a half (tuned on or held out), and the halves split every family (the lines
are scored by the bench, the fixed kinds by ``tests/redteam/test_redteam_kinds2.py``)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

ROWS = [json.loads(line) for line in
        (Path(__file__).parent / "kinds_heldout2.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]

FAMILIES = {"fileargs", "exfil", "gitexec", "pkgexec", "persistence", "preload", "writers",
            "oneliners"}


def test_every_line_is_well_formed() -> None:
    assert len(ROWS) >= 150
    for row in ROWS:
        assert set(row) == {"command", "label", "kind", "source", "note", "family", "half"}, row
        assert row["command"].strip() and row["note"].strip()
        assert {"deny": "clear", "not_allow": "ambiguous", "allow": "benign"}[row["label"]] \
            == row["kind"], row
        assert row["family"] in FAMILIES, row
        assert row["half"] in {"tune", "heldout"}, row
        assert row["source"].startswith("https://"), row


def test_commands_are_unique() -> None:
    commands = [row["command"] for row in ROWS]
    assert len(commands) == len(set(commands))


def test_each_family_is_split_into_both_halves() -> None:
    halves = Counter((row["family"], row["half"]) for row in ROWS)
    for family in FAMILIES:
        assert halves[family, "tune"] >= 10 and halves[family, "heldout"] >= 10, family
