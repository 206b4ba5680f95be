"""Recursive deletes of what the project's own clean tasks delete (CG-DEG-002 spares them):
a path a ``clean`` target of a Makefile or a ``clean`` script of a ``package.json`` removes
literally. Paths its other tasks delete, operands built from variables, the whole directory,
paths through links, trees holding credentials and what git tracks still ask. A real
workspace on disk, a real engine, real git."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings
from clawgate.validators.cleaned import cleaned

MAKEFILE = """\
O := .build
.PHONY: clean clean_man
clean: clean_man ## Clean up built directories and files
\trm -rf $(O)
\t@rm -fr .psci_modules ./docs-html \\
\t\tout-*/
\t-$(RM) -r bin/etcd* && echo done

clean_man:
\trm -rf ./man

docs-clean:
\trm -rf site-gen

build:
\trm -rf src
\tmkdir -p $(O)

distclean:
\trm -rf * ../elsewhere /opt/x ~/cache .
"""

PACKAGE = """{"scripts": {"clean": "rimraf lib-es && shx rm -rf types-out",
                         "test": "rm -rf fixtures && node test.js"}}"""

TREE = ("man/app.1", "docs-html/index.html", "out-linux/app", "bin/etcd", "bin/etcdctl",
        "bin/keep.sh", ".psci_modules/a.js", "site-gen/index.html", "lib-es/index.js",
        "types-out/index.d.ts", "src/main.c", "fixtures/a.json", "sub/man/x.1",
        "withkey/.env", "withkey/x.o", "tracked/a.txt", "docs/guide.md")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    for name in TREE:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")
    (root / "Makefile").write_text(MAKEFILE, encoding="utf-8")
    (root / "package.json").write_text(PACKAGE, encoding="utf-8")
    (root / "sub" / "Makefile").write_text("clean:\n\trm -rf man\n", encoding="utf-8")
    (root / "GNUmakefile.extra").write_text("clean:\n\trm -rf src\n", encoding="utf-8")
    (root / "linked-out").symlink_to(root / "src")
    for there in (".build-old", "elsewhere"):  # a delete of what is missing deletes nothing
        (root / there).mkdir()
    with (root / "Makefile").open("a", encoding="utf-8") as handle:
        handle.write("clean-more:\n\trm -rf withkey linked-out\n")
    return root


def _outcome(project: Path, line: str, cwd: str = "") -> tuple[Outcome, set[str]]:
    engine = Engine(EngineSettings(workspace=str(project)))
    found = engine.check(line, cwd=str(project / cwd))
    return found.outcome, {r.rule_id for r in found.reasons}


@pytest.mark.parametrize(("line", "cwd"), [
    ("rm -rf ./man", ""),  # clean_man
    ("rm -rf man", ""),
    ("rm -fr .psci_modules", ""),  # a continued recipe line, its prefix @ dropped
    ("rm -rf docs-html out-linux", ""),
    ("rm -rf out-*/", ""),  # the task's own glob
    ("rm -rf bin/etcd*", ""),  # $(RM) -r, after a - prefix
    ("rm -rf bin/etcd", ""),
    ("rm -rf site-gen", ""),  # docs-clean
    ("rm -rf lib-es types-out", ""),  # package.json's clean: rimraf, shx rm
    ("rm -rf man", "sub"),  # the Makefile of the directory the path is in
    ("rm -rf sub/man", ""),
    ("rm -rf docs-html/*", ""),  # inside a tree the task removes whole
])
def test_what_the_clean_task_deletes_is_deleted_freely(project: Path, line: str,
                                                        cwd: str) -> None:
    outcome, rules = _outcome(project, line, cwd)
    assert outcome is Outcome.ALLOW, (line, rules)


@pytest.mark.parametrize("line", [
    "rm -rf src",  # deleted by the build target, not a clean one
    "rm -rf fixtures",  # deleted by the test script
    "rm -rf bin",  # the task removes some of bin, not bin
    "rm -rf bin/keep.sh",
    "rm -rf docs",  # a prefix of docs-html is not docs-html
    "rm -rf .build-old",
    "rm -rf withkey",  # a clean task names it, but it holds a credential file
    "rm -rf linked-out/",  # a clean task names it, but it is a link
    "rm -rf elsewhere",  # ../elsewhere is outside the Makefile's directory
])
def test_other_paths_and_near_misses_still_ask(project: Path, line: str) -> None:
    outcome, rules = _outcome(project, line)
    assert outcome is Outcome.ASK, (line, rules)
    assert "CG-DEG-002" in rules, rules


@pytest.mark.parametrize("line", ["rm -rf *", "rm -rf ."])
def test_a_clean_task_that_deletes_everything_spares_nothing(project: Path, line: str) -> None:
    outcome, rules = _outcome(project, line)
    assert outcome is Outcome.DENY, (line, rules)


@pytest.mark.parametrize(("relative", "expected"), [
    ("man", True), ("man/app.1", False), ("bin/etcdctl", True), ("bin/etcd/x", False),
    ("out-linux", True), ("src", False), ("opt/x", False), ("cache", False),
])
def test_cleaned_matches_component_by_component(project: Path, relative: str,
                                                expected: bool) -> None:
    assert cleaned(f"{project}/{relative}", str(project)) is expected


GIT = shutil.which("git")


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_a_path_git_tracks_is_not_spared(tmp_path: Path) -> None:
    assert GIT is not None
    (tmp_path / "man").mkdir()
    (tmp_path / "man" / "app.1").write_text("x\n", encoding="utf-8")
    (tmp_path / "Makefile").write_text("clean:\n\trm -rf man\n", encoding="utf-8")
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    subprocess.run([GIT, "-C", str(tmp_path), "init", "-q"], check=True, env=env)
    assert _outcome(tmp_path, "rm -rf man")[0] is Outcome.ALLOW  # nothing tracked yet
    subprocess.run([GIT, "-C", str(tmp_path), "add", "man/app.1"], check=True, env=env)
    engine = Engine(EngineSettings(workspace=str(tmp_path)))
    assert engine.check("rm -rf man", cwd=str(tmp_path)).outcome is Outcome.ASK
