"""Red team of the day's new ALLOW paths, each hole with the attack that went through and
the near-misses that must keep going through. The real engine, a real git repository.

A ``find`` whose name tests were taken as bounding every delete it makes, whatever the
expression's structure: ``find . ! -name dist -delete`` (every other file), ``find . -name
dist -prune -o -delete`` (an alternative that runs when the name test fails) and ``find .
-name dist -delete , -delete`` (a list) deleted the tracked sources and went freely, because
``dist`` is a name builds write and git tracks nothing named ``dist``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings

ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY
GIT = shutil.which("git")
TRACKED = ("src/main.c", "README.md")
UNTRACKED = ("dist/a.whl", "node_modules/x/index.js")


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if GIT is None:
        pytest.fail("git is required")
    root = tmp_path_factory.mktemp("repository")
    for name in (*TRACKED, *UNTRACKED):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "PATH": "/usr/bin:/bin"}
    subprocess.run([GIT, "-C", str(root), "init", "-q"], check=True, env=env)
    subprocess.run([GIT, "-C", str(root), "add", *TRACKED], check=True, env=env)
    return root


FIND_STRUCTURE = [
    # the action runs on what the name test does not match
    ("find . ! -name dist -delete", ASK),
    ("find . -not -name dist -delete", ASK),
    ("find . -not -name dist -exec rm -rf {} +", ASK),
    ("find . -name dist -prune -o -delete", ASK),
    ("find . -name dist -prune -o -exec rm -rf {} +", ASK),
    ("find . -name dist -delete -o -delete", ASK),
    ("find . -name dist -delete , -delete", ASK),
    ("find . \\( -name dist -o -true \\) -delete", ASK),
    ("find . -name dist -exec rm -rf {} \\; -o -exec rm -rf {} \\;", ASK),
    # what a find prints, fed to a delete
    ("find . -not -name dist | xargs rm -rf", ASK),
    ("find . ! -name dist -print0 | xargs -0 rm -rf", ASK),
    ("find . -name dist -o -print | xargs rm -rf", ASK),
    ("find . -name dist -print , -print | xargs rm -rf", ASK),
    ("rm -rf $(find . -not -name dist)", ASK),
    # an expression find itself refuses is no bound either
    ("find . -name dist \\( -delete", ASK),
    # near-misses: every delete runs after the name test held
    ("find . -name dist -delete", ALLOW),
    ("find . -name dist -exec rm -rf {} +", ALLOW),
    ("find . -type d -name node_modules -prune -exec rm -rf '{}' +", ALLOW),
    ("find . -name dist -type d -prune -exec rm -rf {} \\;", ALLOW),
    ("find . \\( -name dist -o -name node_modules \\) -exec rm -rf {} +", ALLOW),
    ("find . -name dist -delete -o -name node_modules -delete", ALLOW),
    ("find . -name dist -a -delete", ALLOW),
    ("find -L . -maxdepth 2 -name dist -delete", ALLOW),
    ("find . -name dist | xargs rm -rf", ALLOW),
    ("find . -name dist -print0 | xargs -0 rm -rf", ALLOW),
    ("rm -rf $(find . -name dist)", ALLOW),
]


@pytest.mark.parametrize(("line", "expected"), FIND_STRUCTURE)
def test_a_find_spared_only_where_its_name_tests_bound_the_delete(
        repository: Path, line: str, expected: Outcome) -> None:
    engine = Engine(EngineSettings(workspace=str(repository)))
    decision = engine.check(line, cwd=str(repository))
    assert decision.outcome is expected, decision
