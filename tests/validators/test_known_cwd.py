"""``$PWD`` in a sed script is the directory the shell expands it in: the script is read with
that directory in its place (textprograms.with_cwd), and the line check asks where the line
moved to, or set, a directory only known at run time (cwdtrack.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell import parse
from clawgate.shell.model import Word
from clawgate.validators.textprograms import with_cwd


def _word(text: str) -> Word:
    return parse(f"sed {text} f").commands[0].words[1]


@pytest.mark.parametrize(("text", "expected"), [
    ('"s#${PWD}#.#"', "s#/w#.#"),
    ('"s|$PWD/||g"', "s|/w/||g"),
    ("s#$PWD#.#", "s#/w#.#"),
    ('"s#${PWD}#$HOME#"', None),  # another variable
    ('"s#${PWD:-/x}##"', None),  # an operator: not the plain value
    ('"s#$PWDX##"', None),
    ('"s#$(pwd)##"', None),
    ('"s#\\$PWD##"', None),
])
def test_with_cwd(text: str, expected: str | None) -> None:
    assert with_cwd(_word(text), "/w") == expected


@pytest.mark.parametrize(("line", "outcome"), [
    ('sed -i -e "s#${PWD}#.#" coverage_base.info', Outcome.ALLOW),
    ('sed -i "s|$PWD/||g" lcov.info', Outcome.ALLOW),
    ('cd sub && sed -i "s#${PWD}#.#" coverage.info', Outcome.ALLOW),
    ('sed -i "s#${PWD}#.#;e id" coverage.info', Outcome.ASK),  # still read: e runs a command
    # the file of a w is judged as the write it is: into the workspace, or a start-up file
    ('sed "s#$PWD#.#w out.txt" coverage.info', Outcome.ALLOW),
    ('sed "s#$PWD#.#w /etc/profile.d/x.sh" coverage.info', Outcome.DENY),
    ('cd "$D" && sed -i "s#${PWD}#.#" coverage.info', Outcome.ASK),  # moved: unknown place
    ('popd && sed -i "s#${PWD}##" f', Outcome.ASK),
    ("PWD='x#e id#'; sed -i \"s#${PWD}##\" f", Outcome.ASK),  # set by the line
    ('export PWD=/x; sed -i "s#${PWD}##" f', Outcome.ASK),
    ('sed -i "s#${PWD}#$HOME#" f', Outcome.ALLOW),  # $HOME stands for the home directory
    ("HOME='x#e id#'; sed -i \"s#a#$HOME#\" f", Outcome.ASK),  # unless the line sets it
    ('export HOME=/x; sed -i "s#${PWD}#$HOME#" f', Outcome.ASK),
    ('sed -i "s#${PWD}#$OTHER#" f', Outcome.ASK),  # another variable
])
def test_decisions(line: str, outcome: Outcome, tmp_path: Path) -> None:
    assert Engine().check(line, cwd=str(tmp_path)).outcome is outcome


def test_a_directory_whose_name_holds_a_command_is_read_as_sed_would(tmp_path: Path) -> None:
    """The directory's own name goes into the script: its ``#`` ends the substitution and
    ``e id`` becomes a command of its own."""
    odd = tmp_path / "a#x#;e id;s#"
    odd.mkdir()
    line = 'sed -i "s#${PWD}##" f'
    assert Engine().check(line, cwd=str(odd)).outcome is not Outcome.ALLOW
    moved = "cd 'a#x#;e id;s#' && " + line
    assert Engine().check(moved, cwd=str(tmp_path)).outcome is not Outcome.ALLOW
