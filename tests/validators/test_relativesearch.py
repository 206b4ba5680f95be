"""A relative search-path entry is looked up from the directory each later command runs in:
outside the workspace, or where only the run knows, it asks (CG-IDENT-008)."""

from __future__ import annotations

import pytest
from vtables import ALLOW, ASK, decide

from clawgate.decision import Outcome


@pytest.mark.parametrize(("line", "expected"), [
    # the entry follows the command out of the workspace
    ("PATH=.:$PATH; cd /tmp/x; gcc --version", ASK),
    ("PATH=:$PATH; cd /tmp/x && gcc --version", ASK),  # an empty entry: the current directory
    ("export PATH=$PATH:; cd ~/Downloads; ls", ASK),
    ("PATH=bin:$PATH; cd /tmp/x && make", ASK),
    ("export PATH=./node_modules/.bin:$PATH; cd ~/other && eslint .", ASK),
    ("PATH=..:$PATH; cd ..; ls", ASK),
    ('PATH=.:$PATH; cd "$DIR"; make', ASK),  # a directory only the run knows
    ("PYTHONPATH=. ; cd /tmp/x; python3 -c 'import json'", ASK),
    ("PATH=.:$PATH; cd /tmp/x; $CC --version", ASK),  # the environment's program, from there
    # the entry stays inside the workspace
    ("PATH=./bin:$PATH; make", ALLOW),
    ("PATH=.:$PATH; cd sub; ls", ALLOW),
    ("export PATH=$PWD/bin:$PATH; cd /tmp && ls", ALLOW),  # made absolute when set
    ("PATH=/usr/local/bin:$PATH; cd /tmp && ls", ALLOW),
    ("cd /tmp/x; ls", ALLOW),
    ("PATH=./bin:$PATH make; cd /tmp; ls", ALLOW),  # the entry was make's alone
])
def test_a_relative_entry_follows_the_command(line: str, expected: Outcome) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, (line, rules)
    if expected is ASK:
        assert "CG-IDENT-008" in rules, rules
