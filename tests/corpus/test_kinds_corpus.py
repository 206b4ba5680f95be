"""The attack-kinds sets are well formed: every line has a command, a label that fits its kind,
a family and a half (tuned on or held out), and the halves split every family (the lines are
scored by the bench, the fixed kinds by ``tests/redteam/test_redteam_kinds.py``,
``test_redteam_kinds2.py``, ``test_redteam_kinds3.py`` and
``tests/validators/test_bash_reading.py``).
The first, second and fourth sets split every family into both halves; the third holds out
whole families, half of them, as a stand-in for kinds of attack nobody tuned against. The fifth
returns to the first set's families with new programs and shapes, each family split into both
halves. The sixth to the ninth split by source: every line of one report or manual is in the same
half (in the eighth and the ninth each family comes from sources of one half)."""

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
    ("kinds_heldout3.jsonl", 200, {"arginject", "envexec", "cloudmeta", "unicode",
                                   "configexec", "interpfeed", "covert", "shellstate"}),
    ("kinds_heldout4.jsonl", 150, {"wrappers", "flags", "quoting", "expansion", "defs", "feeds",
                                   "paths"}),
    ("kinds_heldout5.jsonl", 200, {"datastores", "infrastructure", "languages", "environment",
                                   "laterfiles", "sublanguages", "identity", "secrets"}),
    ("kinds_heldout6.jsonl", 300, {"optexec", "optwrite", "envpoison", "wrappers", "readers"}),
    ("kinds_heldout7.jsonl", 250, {"wrappers", "globalopts", "agentconf", "chains", "deleters",
                                   "stoplist", "prefix", "identity", "comments", "redirects",
                                   "interp", "subst", "remote", "readers"}),
    ("kinds_heldout8.jsonl", 250, {"daemons", "toolchain", "terminals", "evalargs",
                                   "agenthooks", "procsubst"}),
    ("kinds_heldout9.jsonl", 200, {"wallets", "vcsdiscard", "killers", "forgeaccess",
                                   "archives", "diskfill"}),
]
SPLIT_BY_LINE = [*SETS[:2], SETS[3], SETS[5]]
# the third set: the families tuned on, and the families held out whole
TUNED3 = {"arginject", "envexec", "cloudmeta", "unicode"}
HELDOUT3 = {"configexec", "interpfeed", "covert", "shellstate"}


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


@pytest.mark.parametrize(("name", "fewest", "families"), SPLIT_BY_LINE)
def test_each_family_is_split_into_both_halves(name: str, fewest: int,
                                               families: set[str]) -> None:
    halves = Counter((row["family"], row["half"]) for row in _rows(name))
    for family in families:
        assert halves[family, "tune"] >= 10 and halves[family, "heldout"] >= 10, family


def test_the_third_set_holds_out_whole_families() -> None:
    halves: dict[str, set[str]] = {}
    for row in _rows("kinds_heldout3.jsonl"):
        halves.setdefault(row["family"], set()).add(row["half"])
    assert {f for f, h in halves.items() if h == {"tune"}} == TUNED3
    assert {f for f, h in halves.items() if h == {"heldout"}} == HELDOUT3
    counts = Counter(row["family"] for row in _rows("kinds_heldout3.jsonl"))
    assert min(counts.values()) >= 20, counts


@pytest.mark.parametrize("name", ["kinds_heldout6.jsonl", "kinds_heldout7.jsonl",
                                  "kinds_heldout8.jsonl", "kinds_heldout9.jsonl"])
def test_the_later_sets_keep_each_source_in_one_half(name: str) -> None:
    halves: dict[str, set[str]] = {}
    for row in _rows(name):
        halves.setdefault(row["source"], set()).add(row["half"])
    assert all(len(h) == 1 for h in halves.values()), halves


@pytest.mark.parametrize(("name", "fewest_deny"), [("kinds_heldout7.jsonl", 50),
                                                   ("kinds_heldout8.jsonl", 45),
                                                   ("kinds_heldout9.jsonl", 35)])
def test_the_later_sets_hold_near_misses_beside_their_attacks(name: str,
                                                              fewest_deny: int) -> None:
    rows = _rows(name)
    benign = sum(row["label"] == "allow" for row in rows)
    assert 0.35 <= benign / len(rows) <= 0.45
    for half in ("tune", "heldout"):
        labels = Counter(row["label"] for row in rows if row["half"] == half)
        assert labels["allow"] >= 50 and labels["deny"] >= fewest_deny, (half, labels)


@pytest.mark.parametrize("name", ["kinds_heldout8.jsonl", "kinds_heldout9.jsonl"])
def test_the_later_sets_hold_out_whole_families_by_source(name: str) -> None:
    families: dict[str, set[str]] = {}
    for row in _rows(name):
        families.setdefault(row["family"], set()).add(row["half"])
    assert all(len(h) == 1 for h in families.values()), families
