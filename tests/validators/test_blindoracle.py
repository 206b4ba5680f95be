"""Table tests of CG-INJ-018: a delay decided by a character cut out of an output."""

from __future__ import annotations

import pytest
from vtables import ASK, assert_allowed, assert_caught


@pytest.mark.parametrize("line", [
    "time if [ $(whoami|cut -c 1) == s ]; then sleep 5; fi",
    'if [ "$(id -un | head -c 1)" = "r" ]; then sleep 3; fi',
    "[ ${HOME:1:1} = r ] && sleep 2",
    "if [ a = $(hostname|cut -c1) ]; then ping -c 5 127.0.0.1; fi",
    "if [[ $(cat /etc/hostname | head -c 1) == r ]]; then sleep 5; fi",
    "test \"$(whoami | awk '{print substr($0,1,1)}')\" = r && sleep 4",
    "[ `whoami | cut -c 2` != o ] || sleep 10",
    "! for f in a; do [ $(uname | cut -b 1) -eq 1 ] && sleep 1; done",
])
def test_caught(line: str) -> None:
    assert_caught(line, ASK, "CG-INJ-018")


@pytest.mark.parametrize("line", [
    "sleep 5",
    '[ "$(uname -s | cut -c 1-5)" = Linux ] && make',  # no delay
    "x=$(git rev-parse HEAD | cut -c1-7); echo $x; sleep 1",  # an assignment, no test
    "sleep $(( $(date +%s) % 3 ))",
    'until test -f build/ready; do sleep 1; done',
    'if [ "$(git status --porcelain)" = "" ]; then sleep 1; fi',  # the whole output
])
def test_allowed(line: str) -> None:
    assert_allowed(line)
