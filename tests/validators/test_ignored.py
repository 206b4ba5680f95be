"""Recursive deletes of what the project's own ``.gitignore`` files declare is not source
(CG-DEG-002 spares them): coverage reports, local servers' data, downloaded tools, whatever the
project calls them. Source, ``.git``, trees holding credentials, paths through links and what
no ignore file names still ask. A real workspace on disk, a real engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings

IGNORE = """\
# coverage and local data
cover/
/covdir
*.etcd
/bin
_boot/
site-output/
lib/test/fixtures/git_*/
*.xo
generated-api/
!generated-api/README.md
/vendor/
secrets/
local.db
linked
reports-html/
"""

TREE = ("cover/index.html", "covdir/all.out", "tests/e2e/default.etcd/member/wal",
        "bin/etcdctl", "bin/etcd", "_boot/rel/start", "site-output/index.html",
        "lib/test/fixtures/git_repo/HEAD", "lib/test/fixtures/hand_written/a.ex", "mod.xo",
        "generated-api/x.md", "generated-api/README.md", "vendor/pkg/a.go", "src/main.c",
        "docs/guide.md", "docs/rendered/page.html", "secrets/.env", "local.db", "keep/.gitkeep",
        "data/raw.csv")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    for name in TREE:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")
    (root / ".gitignore").write_text(IGNORE, encoding="utf-8")
    (root / "docs" / ".gitignore").write_text("_build/\nrendered/\n", encoding="utf-8")
    (root / "keep" / ".gitignore").write_text("*\n!.gitignore\n", encoding="utf-8")
    (root / "linked").symlink_to(root / "src")
    return root


def _outcome(project: Path, line: str, cwd: str = "") -> tuple[Outcome, set[str]]:
    engine = Engine(EngineSettings(workspace=str(project)))
    found = engine.check(line, cwd=str(project / cwd))
    return found.outcome, {r.rule_id for r in found.reasons}


@pytest.mark.parametrize(("line", "cwd"), [
    ("rm -rf cover", ""),
    ("rm -rf ./covdir", ""),
    ("rm -rf tests/e2e/default.etcd", ""),
    ("rm -rf ./bin/etcd*", ""),
    ("rm -rf bin", ""),
    ("rm -rf _boot site-output", ""),
    ("rm -rf lib/test/fixtures/git_repo/", ""),
    ("rm -rf *.xo", ""),
    ("rm -fr vendor/", ""),
    ("rm -r docs/rendered", ""),  # a nested ignore file
    ("rm -rf rendered", "docs"),  # from a subdirectory
    ("cd docs && rm -rf rendered", ""),
    ("rm -rf cover covdir build", ""),  # with the names every build brings back
    ("rm -rf tests/e2e/*.etcd", ""),
    ("rm -rf reports-html", ""),  # not made yet: a directory once the build makes it
])
def test_ignored_output_is_deleted_freely(project: Path, line: str, cwd: str) -> None:
    outcome, rules = _outcome(project, line, cwd)
    assert outcome is Outcome.ALLOW, (line, rules)


@pytest.mark.parametrize("line", [
    "rm -rf src",  # source
    "rm -rf docs",  # holds source beside its ignored output
    "rm -rf cover src",  # one target is source
    "rm -rf lib/test/fixtures",  # a hand-written fixture beside the ignored ones
    "rm -rf data",  # named by no ignore file
    "rm -rf secrets",  # ignored to keep a credential out of the repository
    "rm -rf linked/",  # ignored, but a link: rm empties what it points at
    "rm -rf linked/*",
    "rm -rf .git",
    "rm -rf keep",  # only what is inside is ignored; its own ignore file is source
    "find . -name '*.c' -delete",  # find's tests decide, not the start point
])
def test_source_and_near_misses_still_ask(project: Path, line: str) -> None:
    outcome, rules = _outcome(project, line)
    assert outcome is Outcome.ASK, (line, rules)
    assert "CG-DEG-002" in rules or "CG-DEG-003" in rules or "CG-PROT-001" in rules, rules


@pytest.mark.parametrize("line", ["rm -rf *", "rm -rf ."])
def test_the_whole_workspace_is_not_spared_by_what_is_ignored_in_it(project: Path,
                                                                   line: str) -> None:
    outcome, rules = _outcome(project, line)
    assert outcome is Outcome.DENY, (line, rules)
    assert "CG-DEG-002" in rules, rules


def test_an_ignore_file_is_read_again_when_it_changes(tmp_path: Path) -> None:
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "f").write_text("x", encoding="utf-8")
    assert _outcome(tmp_path, "rm -rf reports")[0] is Outcome.ASK
    (tmp_path / ".gitignore").write_text("reports/\n", encoding="utf-8")
    assert _outcome(tmp_path, "rm -rf reports")[0] is Outcome.ALLOW


def test_an_ignore_file_that_is_a_link_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "reports").mkdir()
    elsewhere = tmp_path.parent / f"{tmp_path.name}-rules"
    elsewhere.write_text("reports/\n", encoding="utf-8")
    (tmp_path / ".gitignore").symlink_to(elsewhere)
    assert _outcome(tmp_path, "rm -rf reports")[0] is Outcome.ASK


@pytest.mark.parametrize("ignore", ["*\n", "/*\n!/keep\n", "*\n!.gitignore\n"])
def test_an_ignore_file_that_ignores_everything_singles_nothing_out(tmp_path: Path,
                                                                     ignore: str) -> None:
    (tmp_path / "Documents").mkdir()  # a home under a dotfiles repository, an uploads folder
    (tmp_path / "Documents" / "thesis.tex").write_text("x", encoding="utf-8")
    (tmp_path / ".gitignore").write_text(ignore, encoding="utf-8")
    assert _outcome(tmp_path, "rm -rf Documents")[0] is Outcome.ASK
    assert _outcome(tmp_path, "rm -rf ./*")[0] is Outcome.DENY  # the whole workspace


def test_a_tree_too_large_to_look_through_is_not_spared(tmp_path: Path) -> None:
    big = tmp_path / "reports"
    big.mkdir()
    for index in range(4200):
        (big / f"f{index}").touch()
    (tmp_path / ".gitignore").write_text("reports/\n", encoding="utf-8")
    assert _outcome(tmp_path, "rm -rf reports")[0] is Outcome.ASK
