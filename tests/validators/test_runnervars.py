"""The variables naming a CI runner's files and scratch directories: set by a command, they ask
(CG-ENV-015); set on the line by any means, a write to them is known only at run time
(CG-PROG-002)."""

from __future__ import annotations

import pytest
from vtables import ALLOW, ASK, DENY, decide

from clawgate.decision import Outcome


@pytest.mark.parametrize(("line", "expected", "rule"), [
    # an earlier call that moves the runner's files: every later write lands there
    ("export GITHUB_OUTPUT=~/.bashrc", ASK, "CG-ENV-015"),
    ("export GITHUB_ENV=.git/hooks/pre-commit", ASK, "CG-ENV-015"),
    ("declare -x GITHUB_PATH=x", ASK, "CG-ENV-015"),
    ("GITHUB_STEP_SUMMARY=out.md make", ASK, "CG-ENV-015"),
    ("export TMPDIR=~", ASK, "CG-ENV-015"),
    ("export TMPDIR=~/.ssh", ASK, "CG-ENV-015"),
    ("export RUNNER_TEMP=/etc", ASK, "CG-ENV-015"),
    ("TMP=$(cat f) make", ASK, "CG-ENV-015"),
    ("env TMPDIR=/etc make", ASK, "CG-ENV-015"),
    # near misses: a scratch directory that is one
    ("TMPDIR=/tmp/x go test ./...", ALLOW, None),
    ("export TMPDIR=build/tmp", ALLOW, None),
    ("TEMP=$(mktemp -d)", ALLOW, None),
    ("TMPDIR= make", ALLOW, None),
    ("echo x >> \"$GITHUB_OUTPUT\"", ALLOW, None),
    ("echo x > \"$RUNNER_TEMP/notes.txt\"", ALLOW, None),
    ("export GITHUB_TOKEN_FILE=x", ALLOW, None),
])
def test_runner_variables_set(line: str, expected: Outcome, rule: str | None) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, (line, rules)
    if rule is not None:
        assert rule in rules, rules


@pytest.mark.parametrize(("line", "expected"), [
    # the line sets the name: its value is the line's, not the runner's
    ('read GITHUB_OUTPUT; echo x > "$GITHUB_OUTPUT"', ASK),
    ('GITHUB_OUTPUT=$(cat f); echo x > "$GITHUB_OUTPUT"', ASK),
    ('printf -v TMPDIR %s ~; echo x > "$TMPDIR/.bashrc"', ASK),
    ('mapfile -t TMP < f; echo x > "$TMP"', ASK),
    ('for TMPDIR in ~; do echo x > "$TMPDIR/.bashrc"; done', ASK),
    ('GITHUB_OUTPUT=~/.bashrc; echo x > "$GITHUB_OUTPUT"', DENY),
    ('echo x > "$TARGET"', ASK),
])
def test_runner_names_set_on_the_line(line: str, expected: Outcome) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, (line, rules)
