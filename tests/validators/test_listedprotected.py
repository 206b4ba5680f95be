"""CG-PROG-002: a loop variable is a known write target only when its list reaches no protected
path (``validators/listedprotected.py``): literal words and globs judged as a write naming them
would be, listers' output read from the disk. Attacks beside near-misses of the same shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.protectedpaths import protected_reason

ENGINE = Engine()
ALLOW, ASK = Outcome.ALLOW, Outcome.ASK


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in (".git/config", ".git/hooks/pre-commit.sample", ".github/workflows/ci.yml",
                 "CLAUDE.md", "src/app.py", "src/util.py", "docs/guide.md", "README.md"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    return tmp_path


ATTACKS = [
    'for f in .git/hooks/pre-commit; do echo x >> "$f"; done',
    'for f in .git/hooks/*; do cp payload "$f"; done',
    'for f in .git/*/pre-commit; do cp payload "$f"; done',
    'for f in .github/workflows/ci.yml; do echo "  - run: x" >> "$f"; done',
    'for f in .github/*/*; do echo x >> "$f"; done',
    'for f in .*; do echo x >> "$f"; done',
    'for f in src .github; do cp -r payload "$f"; done',
    'for f in $(git ls-files); do sed -i s/a/b/ "$f"; done',
    "for f in $(git ls-files '*.yml'); do echo x >> \"$f\"; done",
    "for f in $(find . -name '*.yml'); do echo x >> \"$f\"; done",
    'for f in $(find . -type f); do echo x >> "$f"; done',
    "for f in $(find . -name '*.md' | sort); do sed -i s/a/b/ \"$f\"; done",
    'for f in $(ls .github/workflows/*); do echo x >> "$f"; done',
    'for f in $(ls); do echo x >> "$f"; done',  # ls prints CLAUDE.md: written where it runs
]

NEAR_MISSES = [
    'for f in src/*.py; do echo "# x" >> "$f"; done',
    'for f in README.md docs/guide.md; do sed -i s/a/b/ "$f"; done',
    "for f in $(git ls-files '*.py'); do sed -i s/a/b/ \"$f\"; done",
    "for f in $(find . -name '*.py'); do echo x >> \"$f\"; done",
    "for f in $(find src -type f); do echo x >> \"$f\"; done",
    'for f in $(ls src); do echo x > "src/$f.bak"; done',
    'for f in *.md; do echo x >> "$f"; done',  # *.md is not taken for CLAUDE.md, as written
]


@pytest.mark.parametrize("line", ATTACKS)
def test_loops_over_protected_paths_ask(project: Path, line: str) -> None:
    found = ENGINE.check(line, cwd=str(project))
    assert found.outcome is ASK, (line, found.reasons)


@pytest.mark.parametrize("line", NEAR_MISSES)
def test_loops_over_the_projects_own_files_pass(project: Path, line: str) -> None:
    found = ENGINE.check(line, cwd=str(project))
    assert found.outcome is ALLOW, (line, found.reasons)


@pytest.mark.parametrize(("path", "protected"), [
    ("/w/.github/*/ci.yml", True),  # a glob after a protected directory: any entry
    ("/w/.git/*/pre-commit", True),
    ("/w/.g*/hooks/x", True),
    ("/w/*/hooks/x", False),  # a run's first component needs its literal first character
    ("/w/*.md", False),
    ("/w/docs/*/x.md", False),
])
def test_globs_after_a_protected_directory(path: str, protected: bool) -> None:
    assert (protected_reason(path, "/w") is not None) is protected
