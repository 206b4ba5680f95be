"""``find -ok``/``-okdir`` answered by the line itself (CG-ESC-013)."""

from __future__ import annotations

import pytest
from vtables import CTX, DENY, assert_caught

from clawgate.decision import Outcome
from clawgate.shell import parse
from clawgate.validators.confirm import ForgedConfirmation


@pytest.mark.parametrize("line", [
    "echo y | find . -type f -maxdepth 1 -okdir open -a Calculator {} +",
    "yes | find . -ok touch {} \\;",
    "find . -okdir make {} \\; <<< y",
    "find . -ok chmod +x {} \\; < answers.txt",
])
def test_forged_confirmation(line: str) -> None:
    assert_caught(line, DENY, "CG-ESC-013")


@pytest.mark.parametrize("line", [
    "find . -ok touch {} \\;",  # a person answers
    "find . -name '*.py' | wc -l",
    "echo y | find . -exec true {} \\;",  # no question to answer: -exec is judged as it is
    "ls | xargs -p echo",  # xargs -p asks on the terminal
])
def test_no_forged_confirmation(line: str) -> None:
    validator = ForgedConfirmation()
    assert all(validator.check(cmd, CTX).outcome is Outcome.PASSTHROUGH
               for cmd in parse(line).commands)
