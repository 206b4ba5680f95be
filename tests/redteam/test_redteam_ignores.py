"""A ``find`` that deletes by name took tracked files with it: ``find . -name build -exec rm
-rf {} +`` was spared because ``build`` is a name builds write, though the repository tracks
the ``build/`` that it removes (a project whose sources live there, or a hand-written file
beside the output). ``rm -rf build`` asked; the ``find`` forms, fed to ``xargs`` or to ``$( )``,
went freely. Now every form asks when git tracks what it matches, and goes freely when git
tracks nothing there. A real git repository, a real engine."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

TRACKED = ("build/release.sh", "pkg/__pycache__/keep.txt", "src/main.c")
UNTRACKED = ("dist/a.whl", "src/__pycache__/m.cpython-312.pyc")


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert GIT is not None
    root = tmp_path_factory.mktemp("repository")
    for name in (*TRACKED, *UNTRACKED):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "PATH": "/usr/bin:/bin"}
    subprocess.run([GIT, "-C", str(root), "init", "-q"], check=True, env=env)
    subprocess.run([GIT, "-C", str(root), "add", *TRACKED], check=True, env=env)
    return root


@pytest.mark.parametrize(("line", "expected"), [
    # what git tracks, deleted by a find of a regenerable name or start point
    ("find build -delete", Outcome.ASK),
    ("find build -mindepth 1 -exec rm -rf {} +", Outcome.ASK),
    ("find . -name build -exec rm -rf {} +", Outcome.ASK),
    ("find . -type d -name build -prune -exec rm -rf {} \\;", Outcome.ASK),
    ("find . -name build | xargs rm -rf", Outcome.ASK),
    ("find . -name build -print0 | xargs -0 rm -rf", Outcome.ASK),
    ("rm -rf $(find . -name build)", Outcome.ASK),
    ("find . -name __pycache__ -exec rm -rf {} +", Outcome.ASK),
    ("find pkg -name '__pycache__' -type d -exec rm -r {} +", Outcome.ASK),
    ("find build/* -delete", Outcome.ASK),
    # near-misses: git tracks nothing the find matches
    ("find dist -delete", Outcome.ALLOW),
    ("find . -name dist -exec rm -rf {} +", Outcome.ALLOW),
    ("find src -name __pycache__ -exec rm -rf {} +", Outcome.ALLOW),
    ("find . -name '*.pyc' -delete", Outcome.ALLOW),
    ("find build -name '*.o' -delete", Outcome.ALLOW),
    ("rm -rf dist", Outcome.ALLOW),
    ("rm -rf build", Outcome.ASK),
])
def test_a_find_spares_nothing_git_tracks(repository: Path, line: str,
                                          expected: Outcome) -> None:
    engine = Engine(EngineSettings(workspace=str(repository)))
    assert engine.check(line, cwd=str(repository)).outcome is expected
