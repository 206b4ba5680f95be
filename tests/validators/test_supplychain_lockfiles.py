"""Package names a project's lock files resolved are no made-up names (CG-PKG-002 gives way):
its dependency tree chose them. A name no lock holds still asks, a lock of another registry
vouches for nothing, an address stays an address, and a near-miss of a popular name is still
a typosquat (CG-PKG-001)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vtables import HOME

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.packages.lockfiles import locked
from clawgate.shell import parse_one
from clawgate.validators.base import Context
from clawgate.validators.supplychain import Typosquat, UnknownPackage

_PACKAGE_LOCK = {
    "lockfileVersion": 3,
    "packages": {
        "": {"name": "app"},
        "node_modules/made-up-tap-merge": {"version": "1.0.0"},
        "node_modules/made-up-a/node_modules/@made-up/scoped-tool": {"version": "2.0.0"},
    },
}
_SHRINKWRAP_V1 = {"lockfileVersion": 1, "dependencies": {
    "made-up-old": {"version": "1.0.0", "dependencies": {"made-up-nested": {"version": "1"}}}}}
_YARN = """\
# yarn lockfile v1


"@made-up/yarn-scoped@^1.0.0", "@made-up/yarn-scoped@^1.2.0":
  version "1.2.0"
  dependencies:
    made-up-listed-only-as-dependency "^1"

made-up-yarn-tool@npm:^3.0.0:
  version "3.0.0"
"""
_PNPM = """\
lockfileVersion: '9.0'

importers:
  .:
    devDependencies:
      made-up-importer-only:
        specifier: ^1

packages:
  '@made-up/pnpm-scoped@1.0.0':
    resolution: {integrity: sha512-x}
  made-up-pnpm-tool@4.1.0:
    resolution: {integrity: sha512-y}
"""
_PNPM_V5 = "lockfileVersion: 5.4\n\npackages:\n\n  /made-up-pnpm-old/1.0.0:\n    dev: true\n"
_UV = """\
version = 1
[[package]]
name = "made-up-uv-dep"
version = "1.0"

[[package]]
name = "Made_Up.Poetry_Style"
version = "2.0"
"""
_PIPFILE = {"_meta": {}, "default": {"made-up-pipenv": {"version": "==1"}},
            "develop": {"made-up-pipenv-dev": {"version": "==2"}}}


def _project(root: Path) -> Path:
    (root / "package-lock.json").write_text(json.dumps(_PACKAGE_LOCK))
    (root / "npm-shrinkwrap.json").write_text(json.dumps(_SHRINKWRAP_V1))
    (root / "yarn.lock").write_text(_YARN)
    (root / "pnpm-lock.yaml").write_text(_PNPM)
    (root / "uv.lock").write_text(_UV)
    (root / "Pipfile.lock").write_text(json.dumps(_PIPFILE))
    return root


def test_the_names_each_lock_file_holds(tmp_path: Path) -> None:
    root = str(_project(tmp_path))
    assert locked("npm", root) == {
        "made-up-tap-merge", "@made-up/scoped-tool", "made-up-old",
        "made-up-nested", "@made-up/yarn-scoped", "made-up-yarn-tool",
        "@made-up/pnpm-scoped", "made-up-pnpm-tool"}
    assert locked("pypi", root) == {
        "made-up-uv-dep", "Made_Up.Poetry_Style", "made-up-pipenv", "made-up-pipenv-dev"}
    assert locked("crates", root) == set()


def test_older_and_broken_lock_files(tmp_path: Path) -> None:
    (tmp_path / "pnpm-lock.yaml").write_text(_PNPM_V5)
    (tmp_path / "package-lock.json").write_text("{ not json")
    (tmp_path / "poetry.lock").write_text("[[package]\nname = 'made-up-broken'\n")
    assert locked("npm", str(tmp_path)) == {"made-up-pnpm-old"}
    assert locked("pypi", str(tmp_path)) == set()


@pytest.mark.parametrize(("line", "expected"), [
    ("npx made-up-tap-merge --help", Outcome.PASSTHROUGH),
    ("npx @made-up/scoped-tool", Outcome.PASSTHROUGH),
    ("npm install made-up-nested made-up-yarn-tool", Outcome.PASSTHROUGH),
    ("pnpm dlx made-up-pnpm-tool", Outcome.PASSTHROUGH),
    ("pip install made-up-uv-dep", Outcome.PASSTHROUGH),
    ("pip install made-up-poetry-style", Outcome.PASSTHROUGH),  # PyPI's normal form
    ("uvx made-up-pipenv-dev", Outcome.PASSTHROUGH),
    # near-misses of the same shape: names no lock resolved, a lock of the other registry,
    # text of a lock that is no entry's header, an address
    ("npx made-up-tap-merge-extra", Outcome.ASK),
    ("npx made-up-listed-only-as-dependency", Outcome.ASK),
    ("npx made-up-importer-only", Outcome.ASK),
    ("npx made-up-uv-dep", Outcome.ASK),
    ("pip install made-up-tap-merge", Outcome.ASK),
    ("npm install made-up-nested made-up-other", Outcome.ASK),
    ("pip install https://example.com/made-up-uv-dep.tar.gz", Outcome.ASK),
])
def test_resolved_by_the_project_is_its_own(tmp_path: Path, line: str,
                                            expected: Outcome) -> None:
    ctx = Context(str(_project(tmp_path)), str(tmp_path), HOME)
    assert UnknownPackage().check(parse_one(line), ctx).outcome is expected


def test_a_typosquat_a_lock_holds_is_still_one(tmp_path: Path) -> None:
    (tmp_path / "uv.lock").write_text('version = 1\n[[package]]\nname = "reqeusts"\n')
    ctx = Context(str(tmp_path), str(tmp_path), HOME)
    assert Typosquat().check(parse_one("pip install reqeusts"), ctx).outcome is Outcome.DENY


def test_the_engine_follows_the_lock_files(tmp_path: Path) -> None:
    engine = Engine()
    line = "npx made-up-pnpm-tool"
    assert engine.check(line, cwd=str(tmp_path)).outcome is Outcome.ASK
    _project(tmp_path)
    assert engine.check(line, cwd=str(tmp_path)).outcome is Outcome.ALLOW
