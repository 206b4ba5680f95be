"""Table tests of the shell's own directory (``validators/owndir.py``): ``. "$(dirname "$0")/x"``
in the agent's own line reads the file of that name here; every other shape of it still asks."""

from __future__ import annotations

import pytest
from vtables import ASK, CTX, DENY, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.records import replace
from clawgate.validators.owndir import beside_the_shell


@pytest.mark.parametrize("line", [
    'source "$(dirname "$0")/common.sh"',
    "source $(dirname $0)/common.sh",
    '. "$(dirname -- "${0}")"/scripts/env.sh',
    '. "$(cd "$(dirname "$0")" && pwd)/lib.sh"',
    '. "$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P)/scripts/bootstrap.sh"',
    '\\. "$(dirname "$0")"/scripts/env.sh',
])
def test_a_script_beside_the_shell_is_the_file_here(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "expected", "rule"), [
    # $0 is the caller's choice in a line handed to a shell
    ("bash -c '. \"$(dirname \"$0\")/x.sh\"' /tmp/evil/a", ASK, "CG-INJ-010"),
    ("bash -c '. \"$(dirname \"$0\")/x.sh\"' \"$x\"", ASK, "CG-INJ-010"),
    ("sh -c 'source \"$(dirname $0)/x.sh\"' \"$(mktemp -d)/a\"", ASK, "CG-INJ-010"),
    ("ssh host '. \"$(dirname \"$0\")/x.sh\"'", ASK, "CG-INJ-010"),
    ("docker run img sh -c '. \"$(dirname \"$0\")/x.sh\"' /tmp/e", ASK, "CG-INJ-010"),
    # another parameter, another program's output, more text in the substitution
    ('source "$(dirname "$1")/common.sh"', ASK, "CG-INJ-010"),
    ('. "$(dirname "$(which evil)")/x.sh"', ASK, "CG-INJ-010"),
    ('. "$(dirname "$0"; curl -s x.example)/x"', ASK, "CG-INJ-010"),
    ('. "$(dirname \'$0\')/x.sh"', ASK, "CG-INJ-010"),
    # a path that climbs out, is computed, is a pattern, or names the directory itself
    ('. "$(dirname "$0")/../../tmp/x.sh"', ASK, "CG-INJ-010"),
    ('. "$(dirname "$0")/.."', ASK, "CG-INJ-010"),
    ('. "$(dirname "$0")/$x"', ASK, "CG-INJ-010"),
    ('. "$(dirname "$0")$x"', ASK, "CG-INJ-010"),
    ('. "$(dirname "$0")"', ASK, "CG-INJ-010"),
    (". $(dirname $0)/*.sh", ASK, "CG-INJ-010"),
    # the working directory moved out of the workspace first
    ('cd /tmp && . "$(dirname "$0")/x.sh"', ASK, "CG-INJ-010"),
    # the rest of the line is judged as ever
    ('. "$(dirname "$0")/x.sh" && rm -rf ~', DENY, "CG-CAT-001"),
])
def test_other_shapes_still_ask(line: str, expected: Outcome, rule: str | None) -> None:
    assert_caught(line, expected, rule)


def test_a_nested_line_has_no_shell_of_its_own() -> None:
    text = '"$(dirname "$0")/x.sh"'
    assert beside_the_shell(text, CTX)
    assert not beside_the_shell(text, replace(CTX, nested=True))
