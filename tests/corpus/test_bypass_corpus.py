"""The bypass corpus is well formed: every line has a command, a label that fits its kind, and
a source; and its benign near-misses come out ALLOW (the attacks are scored by the bench)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

ROWS = [json.loads(line) for line in
        (Path(__file__).parent / "bypasses.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]


def test_every_line_is_well_formed() -> None:
    assert len(ROWS) >= 80
    for row in ROWS:
        assert set(row) == {"command", "label", "kind", "source", "note"}, row
        assert row["command"].strip() and row["note"].strip()
        assert row["label"] in {"deny", "not_allow", "allow"}
        assert (row["kind"] == "benign") == (row["label"] == "allow"), row
        assert row["kind"] in {"clear", "ambiguous", "benign"}
        assert row["source"].startswith(("https://", "SonarSource/")), row


def test_commands_are_unique() -> None:
    commands = [row["command"] for row in ROWS]
    assert len(commands) == len(set(commands))


@pytest.mark.parametrize("row", [r for r in ROWS if r["kind"] == "benign"],
                         ids=lambda r: r["command"][:40])
def test_benign_near_misses_are_allowed(row: dict[str, str]) -> None:
    assert Engine().check(row["command"], cwd="/tmp/workspace").outcome is Outcome.ALLOW
