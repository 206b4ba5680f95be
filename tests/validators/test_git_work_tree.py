"""git's discarding verbs judged by the work tree they act on (CG-DEST-002): in the home
directory or a system one (``--work-tree``, ``GIT_WORK_TREE``, ``-C``, a ``cd`` before) they
are DENY; in the project they still ask."""

from __future__ import annotations

import pytest
from vtables import ASK, CTX, DENY, HOME, WS, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.shell import parse_one
from clawgate.validators.gitplace import work_tree


@pytest.mark.parametrize(("line", "expected"), [
    ("git --git-dir=/tmp/x.git --work-tree=$HOME checkout -f", DENY),
    ("git --work-tree=/home/dev clean -fdx", DENY),
    ("git --work-tree /etc --git-dir=/tmp/r.git checkout -f .", DENY),
    ("GIT_WORK_TREE=/usr/local git --git-dir=/tmp/r.git reset --hard", DENY),
    ("git -C /home/dev clean -fdx", DENY),
    ("git -C / restore .", DENY),
    ("cd ~ && git clean -fdx", DENY),
    ("git clean -fdx", ASK),
    ("git --work-tree=. clean -fdx", ASK),
    ("git -C sub/module checkout -f", ASK),
    ("git --work-tree=build/site checkout -f gh-pages", ASK),
])
def test_discarding_judged_by_work_tree(line: str, expected: Outcome) -> None:
    assert_caught(line, expected, "CG-DEST-002")


@pytest.mark.parametrize("line", [
    "git --work-tree=$HOME status",  # reads only
    "git -C /home/dev/project/sub status",
    "git clean -n",
])
def test_harmless(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "tree"), [
    ("git clean -f", WS),
    ("git -C sub clean -f", f"{WS}/sub"),
    ("git -C a -C b clean -f", f"{WS}/a/b"),
    ("git --work-tree=$HOME clean -f", HOME),
    ("git -C sub --work-tree=.. clean -f", WS),
    ("GIT_WORK_TREE=/srv/app git clean -f", "/srv/app"),
    ("git -C \"$(mktemp -d)\" clean -f", None),
])
def test_work_tree(line: str, tree: str | None) -> None:
    assert work_tree(parse_one(line), CTX) == tree
