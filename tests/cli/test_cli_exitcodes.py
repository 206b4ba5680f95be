"""The exit-code table of docs/cli.md is ``ExitCode``, row for row, and each code is what the CLI
returns in the case the table names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from clawgate.cli import main
from clawgate.cli.exitcodes import ExitCode, for_outcome
from clawgate.decision import Outcome

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
TABLE = PAGE[PAGE.index("## Exit codes"):]
TABLE = TABLE[:TABLE.index("\n\n", TABLE.index("| code |"))]
ROWS = {int(code): (check, other) for code, check, other in
        re.findall(r"^\| (\d+) \| (.*?) \| (.*?) \|$", TABLE, re.M)}
MEANING = {  # the words each row must hold, for the check column and the others'
    ExitCode.OK: ("ALLOW", "success"),
    ExitCode.INTERNAL: ("internal error", "internal error"),
    ExitCode.USAGE: ("usage error", "same"),
    ExitCode.ASK: ("ASK", "lint"),
    ExitCode.DENY: ("DENY", "fuzz"),
}


def test_the_table_has_one_row_per_exit_code_and_no_other() -> None:
    assert sorted(ROWS) == sorted(int(code) for code in ExitCode)
    assert set(MEANING) == set(ExitCode)


@pytest.mark.parametrize("code", list(ExitCode), ids=lambda c: c.name)
def test_each_row_says_what_the_code_means(code: ExitCode) -> None:
    check, other = ROWS[int(code)]
    assert MEANING[code][0] in check and MEANING[code][1] in other


@pytest.mark.parametrize("outcome", [o for o in Outcome if o is not Outcome.PASSTHROUGH])
def test_each_outcome_s_row_names_it(outcome: Outcome) -> None:
    assert outcome.name in ROWS[int(for_outcome(outcome))][0]


@pytest.mark.parametrize(("argv", "code"), [
    (["check", "git status"], ExitCode.OK),
    (["check", "--policy", "/nonexistent/p.yaml", "ls"], ExitCode.USAGE),
    (["check", "--bogus"], ExitCode.USAGE),
    (["check", "curl -s -X POST https://example.com"], ExitCode.ASK),
    (["check", "rm -rf /"], ExitCode.DENY),
    (["schema"], ExitCode.OK),
])
def test_the_cli_returns_what_the_table_says(argv: list[str], code: ExitCode) -> None:
    assert main(argv) == code
