"""``policy check``'s start-up path reads argv as click does: whatever ``fast_parse`` accepts,
the click command accepts with the same values (that the path imports no click nor rich is
tests/test_records.py's start-up test)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clawgate.cli.check_command import check
from clawgate.cli.check_options import OPTIONS, CheckArgs, fast_parse

HERE = str(Path(__file__).resolve().parent)
TOKENS = st.sampled_from([
    "--policy", "--cwd", "--json", "--jsonl", "--explain", "--", "-", "-h", "--help", "-x",
    "--jsn", "--json=1", f"--cwd={HERE}", "--cwd=/nonexistent", f"--policy={__file__}",
    HERE, __file__, "/nonexistent", "", "ls", "git status", "rm -rf /", "-la", "a=b",
    "--policy=", "--cwd=", "é", "--explain=x",
])


def _click_reading(argv: list[str]) -> CheckArgs | None:
    try:
        ctx = check.make_context("check", list(argv))
    except click.exceptions.Exit:  # help
        return None
    except click.UsageError:
        return None
    return CheckArgs(**ctx.params)


@settings(max_examples=1500, deadline=None)
@given(st.lists(TOKENS, max_size=7))
def test_fast_parse_reads_what_click_reads(argv: list[str]) -> None:
    fast = fast_parse(argv)
    if fast is not None:
        assert _click_reading(argv) == fast, argv


@pytest.mark.parametrize("argv", [
    ["git status"], ["--json", "ls"], ["--explain", "--json", "--", "ls", "-la"],
    ["--policy", __file__, "--policy", __file__, "ls"], [f"--cwd={HERE}", "ls"],
    ["--cwd", HERE, "--jsonl"], ["-"], ["ls", "--json"], ["--", "--json"],
])
def test_the_common_forms_take_the_fast_path(argv: list[str]) -> None:
    fast = fast_parse(argv)
    assert fast is not None and fast == _click_reading(argv)


@pytest.mark.parametrize("argv", [["-h"], ["--help"], [], ["--jsonl", "ls"], ["--cwd", "/x", "ls"],
                                  ["--json=1", "ls"], ["-la"], ["--policy", "--json", "ls"]])
def test_everything_else_is_left_to_click(argv: list[str]) -> None:
    assert fast_parse(argv) is None


def test_the_click_command_has_the_table_s_options() -> None:
    declared = {p.opts[0] for p in check.params if isinstance(p, click.Option)}
    assert declared == {option for option, *_ in OPTIONS}

