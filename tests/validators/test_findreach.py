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
    # find's fnmatch: a backslash makes the next character literal, POSIX classes in brackets
    ("find . -name confi\\g -exec sed -i s/a/b/ {} +", ["./.git/config"]),
    ("find . -name c[[:alpha:]].yml -exec sed -i s/a/b/ {} +", ["./.github/workflows/ci.yml"]),
    ("find . -name c[[=i=]].yml -exec sed -i s/a/b/ {} +",  # uncertain: may match any
     ["./.git/HEAD", "./.git/config", "./.git/hooks/pre-commit.sample",
      "./.github/workflows/ci.yml"]),
    ("find . -type f -not -name c[[=i=]].yml -exec sed {} +",
     ["./.git/HEAD", "./.git/config", "./.git/hooks/pre-commit.sample",
      "./.github/workflows/ci.yml"]),  # an uncertain exclusion keeps the path in
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
    # the pattern as find reads it, a starting point spelled as where the command runs
    ("find . -name 'confi\\g' -exec sed -i s/a/b/ {} +", ASK),
    ("find . -name 'c[[:alpha:]].yml' -exec sed -i s/a/b/ {} +", ASK),
    ("find \"$PWD\" -name config -exec sed -i s/a/b/ {} +", ASK),
    ("find ~+ -name config -exec sed -i s/a/b/ {} +", ASK),
    ("find \"$(pwd)\" -type f -exec sed -i s/a/b/ {} +", ASK),
    ("find \"$PWD\" -name '*.py' -exec sed -i s/a/b/ {} +", ALLOW),
    # fd hands what it finds to -x/-X: hidden entries with -H or -u
    ("fd -H config -x sed -i s/a/b/", ASK),
    ("fdfind -u -g 'ci.yml' -X sed -i s/a/b/", ASK),
    ("fd CLAUDE -x sed -i s/a/b/ {}", ASK),
    ("fd . -X sed -i s/a/b/", ASK),
    ("fd config -x sed -i s/a/b/", ALLOW),  # .git is hidden: not searched
    ("fd -e py -x sed -i s/a/b/", ALLOW),
    ("fd -H -e py . src -x sed -i s/a/b/", ALLOW),
])
def test_decisions(project: Path, line: str, expected: Outcome) -> None:
    decision = ENGINE.check(line, cwd=str(project))
    assert decision.outcome is expected, [r.rule_id for r in decision.reasons]


@pytest.mark.parametrize(("line", "expected"), [
    ("find docs/gitlink/ -name config -exec sed -i s/a/b/ {} +", ASK),
    ("find -L docs -name config -exec sed -i s/a/b/ {} +", ASK),
    ("find docs -follow -name HEAD -exec sed -i s/a/b/ {} +", ASK),
    ("find docs -name config -exec sed -i s/a/b/ {} +", ALLOW),  # the link is not followed
])
def test_links_to_protected_paths(project: Path, line: str, expected: Outcome) -> None:
    (project / "docs" / "gitlink").symlink_to("../.git")
    decision = ENGINE.check(line, cwd=str(project))
    assert decision.outcome is expected, [r.rule_id for r in decision.reasons]
