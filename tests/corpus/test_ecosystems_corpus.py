"""The ecosystem corpora are well formed (every line a command labelled ``allow``, a source in a
public repository at a commit, an origin the extractor reads), split by project (no project
in both the tuning and the held-out file), and the extractor's exclusions leave out what goes
beyond the checkout (tests/corpus/README.md). Their figures are the bench's."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parents[1] / "bench"))
from extract_ci_commands import _BEYOND, _BEYOND_MORE, CAP  # noqa: E402

ORIGINS = {"workflow", "makefile", "justfile", "script", "package.json", "taskfile",
           "dockerfile", "tox", "noxfile", "docs", "gitlab", "circleci", "azure", "buildkite",
           "jenkinsfile"}


def _rows(name: str) -> list[dict[str, str]]:
    text = (HERE / f"{name}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _projects(rows: list[dict[str, str]]) -> set[str]:
    return {row["source"].split("@")[0] for row in rows}


@pytest.mark.parametrize("name", ["ecosystems", "ecosystems_heldout", "everyday_heldout2",
                                  "everyday_heldout3", "everyday_heldout4"])
def test_every_line_is_well_formed(name: str) -> None:
    rows = _rows(name)
    assert len(rows) >= 500
    for row in rows:
        assert set(row) == {"command", "label", "source", "origin"}, row
        assert row["command"].strip() and row["label"] == "allow"
        assert re.match(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}:\S", row["source"]), row
        assert row["origin"] in ORIGINS, row
    assert len({row["command"] for row in rows}) == len(rows)
    assert max(Counter(row["source"].split("@")[0] for row in rows).values()) <= CAP


def test_split_by_project() -> None:
    tuning, held = _projects(_rows("ecosystems")), _projects(_rows("ecosystems_heldout"))
    assert not tuning & held
    assert len(tuning | held) >= 40


def test_second_held_out_set_draws_on_projects_no_other_set_uses() -> None:
    others = {"ecosystems", "ecosystems_heldout", "devcmds_unseen", "devcmds_unseen2",
              "devcmds_unseen3", "agentcmds"}
    used = set().union(*(_projects(_rows(name)) for name in others))
    held = _projects(_rows("everyday_heldout2"))
    assert not held & used
    assert len(held) >= 25


def test_third_held_out_set_draws_on_projects_no_other_set_uses() -> None:
    others = {"ecosystems", "ecosystems_heldout", "devcmds_unseen", "devcmds_unseen2",
              "devcmds_unseen3", "agentcmds", "everyday_heldout2"}
    used = set().union(*(_projects(_rows(name)) for name in others))
    held = _projects(_rows("everyday_heldout3"))
    assert not held & used
    assert len(held) >= 25


def test_fourth_held_out_set_draws_on_projects_no_other_set_uses() -> None:
    others = {"ecosystems", "ecosystems_heldout", "devcmds_unseen", "devcmds_unseen2",
              "devcmds_unseen3", "agentcmds", "everyday_heldout2", "everyday_heldout3"}
    used = {p.lower() for name in others for p in _projects(_rows(name))}
    held = _projects(_rows("everyday_heldout4"))
    assert not {p.lower() for p in held} & used
    assert len(held) >= 25


def test_fifth_held_out_set_draws_on_projects_no_other_set_uses() -> None:
    others = {"ecosystems", "ecosystems_heldout", "devcmds_unseen", "devcmds_unseen2",
              "devcmds_unseen3", "agentcmds", "everyday_heldout2", "everyday_heldout3",
              "everyday_heldout4"}
    used = {p.lower() for name in others for p in _projects(_rows(name))}
    held = _projects(_rows("everyday_heldout5"))
    assert not {p.lower() for p in held} & used
    assert len(held) >= 25


def test_fifth_set_is_labelled_by_effect_and_split_by_project() -> None:
    """Every line is ``allow`` or, with a note saying what it does, ``not_allow``; each
    project sits wholly in one half, and the halves are near even."""
    rows = _rows("everyday_heldout5")
    assert len(rows) >= 500
    halves: dict[str, set[str]] = {"tune": set(), "heldout": set()}
    for row in rows:
        assert set(row) - {"note"} == {"command", "label", "source", "origin", "half"}, row
        assert row["command"].strip() and row["label"] in {"allow", "not_allow"}, row
        assert ("note" in row) == (row["label"] == "not_allow"), row
        assert re.match(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}:\S", row["source"]), row
        assert row["origin"] in ORIGINS, row
        halves[row["half"]].add(row["source"].split("@")[0])
    assert not halves["tune"] & halves["heldout"]
    assert abs(len(halves["tune"]) - len(halves["heldout"])) <= 1
    assert len({row["command"] for row in rows}) == len(rows)
    assert max(Counter(row["source"].split("@")[0] for row in rows).values()) <= CAP


@pytest.mark.parametrize("name", ["ecosystems", "ecosystems_heldout", "everyday_heldout2",
                                  "everyday_heldout3", "everyday_heldout4"])
def test_nothing_beyond_the_checkout_is_kept(name: str) -> None:
    for row in _rows(name):
        assert not _BEYOND.search(row["command"]), row
        assert not _BEYOND_MORE.search(row["command"]), row


def test_sixth_held_out_set_draws_on_projects_no_other_set_uses() -> None:
    others = {"ecosystems", "ecosystems_heldout", "devcmds_unseen", "devcmds_unseen2",
              "devcmds_unseen3", "agentcmds", "everyday_heldout2", "everyday_heldout3",
              "everyday_heldout4", "everyday_heldout5"}
    used = {p.lower() for name in others for p in _projects(_rows(name))}
    held = _projects(_rows("everyday_heldout6"))
    assert not {p.lower() for p in held} & used
    assert len(held) >= 30


def test_sixth_set_holds_whole_steps_labelled_by_effect() -> None:
    """Whole ``run:`` steps, many of several lines; ``not_allow`` lines say what they do, and a
    line whose ``${{ }}`` expressions were given values says which; each project sits wholly
    in one half."""
    rows = _rows("everyday_heldout6")
    assert len(rows) >= 400
    assert sum("\n" in row["command"] for row in rows) >= 100
    halves: dict[str, set[str]] = {"tune": set(), "heldout": set()}
    for row in rows:
        assert set(row) - {"note"} == {"command", "label", "source", "origin", "half"}, row
        assert row["command"].strip() and row["label"] in {"allow", "not_allow"}, row
        assert "${{" not in row["command"], row
        if row["label"] == "not_allow" or "note" in row:
            assert row["note"].strip(), row
        assert re.match(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}:\.github/workflows/", row["source"]), row
        assert row["origin"] == "workflow", row
        halves[row["half"]].add(row["source"].split("@")[0])
    assert not halves["tune"] & halves["heldout"]
    assert abs(len(halves["tune"]) - len(halves["heldout"])) <= 1
    assert len({row["command"] for row in rows}) == len(rows)


def _assert_fresh(name: str, others: set[str], least: int,
                  shared: frozenset[str] = frozenset()) -> None:
    """The set ``name`` draws on at least ``least`` projects, none of which ``others`` use
    (but those ``shared`` on purpose)."""
    used = {p.lower() for other in others for p in _projects(_rows(other))} - shared
    held = _projects(_rows(name))
    assert not {p.lower() for p in held} & used
    assert len(held) >= least


def _assert_labelled_and_split(rows: list[dict[str, str]],
                               row_check: Callable[[dict[str, str]], None]) -> None:
    """Every row has its fields, a label and a pinned source, and passes ``row_check``; each
    project sits wholly in one half, the halves within one project of each other; no line
    twice."""
    halves: dict[str, set[str]] = {"tune": set(), "heldout": set()}
    for row in rows:
        assert set(row) - {"note"} == {"command", "label", "source", "origin", "half"}, row
        assert row["command"].strip() and row["label"] in {"allow", "not_allow"}, row
        row_check(row)
        assert re.match(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}:\S", row["source"]), row
        halves[row["half"]].add(row["source"].split("@")[0])
    assert not halves["tune"] & halves["heldout"]
    assert abs(len(halves["tune"]) - len(halves["heldout"])) <= 1
    assert len({row["command"] for row in rows}) == len(rows)


def _workflow_row(row: dict[str, str]) -> None:
    """No ``${{ }}`` left; a note says why a line is ``not_allow`` or which expressions were
    given values."""
    assert "${{" not in row["command"], row
    assert ("note" in row) == (row["label"] == "not_allow" or "${{" in row.get("note", ""))


def _script_row(row: dict[str, str]) -> None:
    assert row["origin"] in ORIGINS, row
    if row["label"] == "not_allow":
        assert row.get("note", "").strip(), row


def _script_row_noted_when_not_allowed(row: dict[str, str]) -> None:
    assert row["origin"] in ORIGINS, row
    assert ("note" in row) == (row["label"] == "not_allow"), row


_BEFORE_SEVENTH = {"ecosystems", "ecosystems_heldout", "devcmds_unseen", "devcmds_unseen2",
                   "devcmds_unseen3", "agentcmds", "everyday_heldout2", "everyday_heldout3",
                   "everyday_heldout4", "everyday_heldout5", "everyday_heldout6"}


def test_seventh_held_out_set_draws_on_projects_no_other_set_uses() -> None:
    _assert_fresh("everyday_heldout7", _BEFORE_SEVENTH, 30)


def test_seventh_set_holds_steps_and_recipes_labelled_by_effect() -> None:
    """Whole ``run:`` steps beside Makefile recipe lines and ``package.json`` scripts;
    ``not_allow`` lines say what they do, a line whose ``${{ }}`` expressions were given values
    says which; each project sits wholly in one half."""
    rows = _rows("everyday_heldout7")
    assert len(rows) >= 350
    assert sum("\n" in row["command"] for row in rows) >= 80
    assert {row["origin"] for row in rows} == {"workflow", "makefile", "package.json"}
    _assert_labelled_and_split(rows, _workflow_row)


def test_script_set_draws_on_projects_no_other_set_uses() -> None:
    _assert_fresh("everyday_scripts",
                  _BEFORE_SEVENTH | {"everyday_heldout7", "everyday_heldout8"}, 25)


def test_script_set_holds_script_lines_and_bodies_labelled_by_effect() -> None:
    """Lines of the shell scripts projects keep beside their CI files, and whole script
    bodies of at most 60 lines (about a third); ``not_allow`` lines and lines given a value
    the runner supplies say so in ``note``; each project sits wholly in one half."""
    rows = _rows("everyday_scripts")
    assert len(rows) >= 200
    bodies = [row for row in rows if "\n" in row["command"]]
    assert len(bodies) >= len(rows) // 4
    assert all(len(row["command"].splitlines()) <= 60 for row in bodies)
    _assert_labelled_and_split(rows, _script_row)


def test_eighth_held_out_set_draws_on_projects_no_other_set_uses() -> None:
    _assert_fresh("everyday_heldout8",
                  _BEFORE_SEVENTH | {"everyday_heldout7", "everyday_scripts"}, 30)


def test_eighth_set_holds_steps_and_recipes_labelled_by_effect() -> None:
    """Whole ``run:`` steps beside Makefile and justfile recipe lines and ``package.json``
    scripts; ``not_allow`` lines say what they do, a line whose ``${{ }}`` expressions were
    given values says which; each project sits wholly in one half."""
    rows = _rows("everyday_heldout8")
    assert len(rows) >= 350
    assert sum("\n" in row["command"] for row in rows) >= 100
    assert {row["origin"] for row in rows} == {"workflow", "makefile", "justfile",
                                                "package.json"}
    _assert_labelled_and_split(rows, _workflow_row)


def test_ninth_held_out_set_draws_on_projects_no_other_set_uses() -> None:
    _assert_fresh("everyday_heldout9", _BEFORE_SEVENTH | {
        "everyday_heldout7", "everyday_heldout8", "everyday_scripts"}, 25)


def test_ninth_set_holds_steps_and_recipes_labelled_by_effect() -> None:
    """Whole ``run:`` steps beside Makefile and justfile recipe lines and ``package.json``
    scripts; ``not_allow`` lines say what they do, a line whose ``${{ }}`` expressions were
    given values says which; each project sits wholly in one half."""
    rows = _rows("everyday_heldout9")
    assert len(rows) >= 240
    assert sum("\n" in row["command"] for row in rows) >= 60
    assert {row["origin"] for row in rows} == {"workflow", "makefile", "justfile",
                                                "package.json"}
    _assert_labelled_and_split(rows, _workflow_row)


def test_second_script_set_draws_on_projects_no_other_set_uses() -> None:
    # everyday_heldout9 was gathered in the same hours: htop's workflow steps there, its
    # scripts here, the one project both draw on
    _assert_fresh("everyday_scripts2", _BEFORE_SEVENTH | {
        "everyday_heldout7", "everyday_heldout8", "everyday_heldout9", "everyday_scripts"}, 20,
        shared=frozenset({"htop-dev/htop"}))


def test_second_script_set_holds_bodies_and_lines_labelled_by_effect() -> None:
    """Whole script bodies of at most 80 lines (at least 40 %) beside single statements and
    Dockerfile ``RUN`` lines; ``not_allow`` rows say what they do; each project sits wholly
    in one half."""
    rows = _rows("everyday_scripts2")
    assert len(rows) >= 60
    bodies = [row for row in rows if "\n" in row["command"]]
    assert len(bodies) * 5 >= len(rows) * 2
    assert all(len(row["command"].splitlines()) <= 80 for row in bodies)
    _assert_labelled_and_split(rows, _script_row_noted_when_not_allowed)
