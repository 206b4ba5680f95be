"""Recursive deletes of the names the ignore templates mean as output in every project
(``cover``, ``_boot``, ``.psci_modules``, ``cdk.out``: ``clawgate.ignoretemplates``) go freely;
names that hold sources, data or settings somewhere (``public``, ``bin``, ``vendor``, ``lib``,
``data``, ``docs``, ``logs``, ``.vscode``) still ask, as does one of the spared names that git
tracks or that a link leads through. A real workspace on disk (no ignore file of its own), a
real git repository, a real engine."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings

TREE = ("cover/index.html", "_boot/rel/start", "_build/x.beam", ".psci_modules/M/index.js",
        "cdk.out/manifest.json", "lib/cover_db/cover.13", "t/.spago/p/x", "public/index.html",
        "bin/tool", "bin/etcd", "vendor/pkg/a.go", "lib/app.rb", "data/raw.csv", "docs/a.md",
        "logs/run.txt", ".vscode/settings.json", ".idea/workspace.xml", "db/schema.rb",
        "src/main.c", "out1/x")
GIT = shutil.which("git")


def _tree(root: Path) -> Path:
    for name in TREE:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")
    (root / "pkg").mkdir()
    (root / "pkg" / "cover").symlink_to(root / "src")  # a link named as output
    return root


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tree(tmp_path_factory.mktemp("workspace"))


def _outcome(root: Path, line: str) -> Outcome:
    return Engine(EngineSettings(workspace=str(root))).check(line, cwd=str(root)).outcome


@pytest.mark.parametrize(("line", "expected"), [
    # output the templates name (Python's and Elixir's cover/, TwinCAT's _Boot, PureScript's
    # .psci_modules, the AWS CDK's cdk.out, Perl's cover_db, PureScript's .spago)
    ("rm -rf cover", Outcome.ALLOW),
    ("rm -rf ./cover/", Outcome.ALLOW),
    ("rm -rf _boot _build", Outcome.ALLOW),
    ("rm -fr .psci_modules", Outcome.ALLOW),
    ("rm -rf cdk.out", Outcome.ALLOW),
    ("rm -rf lib/cover_db", Outcome.ALLOW),
    ("find . -name .spago -prune -exec rm -rf {} +", Outcome.ALLOW),
    ("find . -name cover_db | xargs rm -rf", Outcome.ALLOW),
    ("rm -rf pkg/cover", Outcome.ALLOW),  # the link itself, not what it points at
    ("Remove-Item -Recurse -Force cover", Outcome.ALLOW),  # the Windows twins
    ("rd /s /q .psci_modules", Outcome.ALLOW),
    ("rd /s /q public", Outcome.ASK),
    ("Remove-Item -Recurse -Force bin", Outcome.ASK),
    # sources, data and settings in some projects, whatever a template says
    ("rm -rf public/", Outcome.ASK),
    ("rm -rf bin", Outcome.ASK),
    ("rm -rf ./bin/etcd*", Outcome.ASK),
    ("rm -rf vendor/", Outcome.ASK),
    ("rm -rf lib", Outcome.ASK),
    ("rm -rf data", Outcome.ASK),
    ("rm -rf docs", Outcome.ASK),
    ("rm -rf logs", Outcome.ASK),
    ("rm -rf .vscode .idea", Outcome.ASK),
    ("rm -rf db", Outcome.ASK),
    ("rm -rf src", Outcome.ASK),
    ("rm -rf out1", Outcome.ASK),
    ("rm -rf cover src", Outcome.ASK),
    ("rm -rf pkg/cover/", Outcome.ASK),  # through the link: src is emptied
    ("rm -rf pkg/cover/*", Outcome.ASK),
    ("find pkg/cover/ -delete", Outcome.ASK),
])
def test_template_names_in_a_workspace(workspace: Path, line: str, expected: Outcome) -> None:
    assert _outcome(workspace, line) is expected


@pytest.mark.skipif(GIT is None, reason="git is not installed")
@pytest.mark.parametrize(("line", "expected"), [
    ("rm -rf cover", Outcome.ASK),
    ("rm -rf cover/*", Outcome.ASK),
    ("find cover -delete", Outcome.ASK),
    ("find . -name cover -exec rm -rf {} +", Outcome.ASK),
    ("find . -type d -name cover -prune -exec rm -rf {} \\;", Outcome.ASK),
    ("find . -name cover | xargs rm -rf", Outcome.ASK),
    ("rm -rf $(find . -name cover)", Outcome.ASK),
    ("rm -rf _boot", Outcome.ALLOW),  # not tracked
    ("find . -name .spago -prune -exec rm -rf {} +", Outcome.ALLOW),
])
def test_a_tracked_template_name_is_never_spared(tmp_path: Path, line: str,
                                                 expected: Outcome) -> None:
    assert GIT is not None
    root = _tree(tmp_path)
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "PATH": "/usr/bin:/bin"}
    subprocess.run([GIT, "-C", str(root), "init", "-q"], check=True, env=env)
    subprocess.run([GIT, "-C", str(root), "add", "cover/index.html", "src/main.c"], check=True,
                   env=env)
    assert _outcome(root, line) is expected
