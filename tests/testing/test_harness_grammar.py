"""The shell grammar generates valid bash, and the line joiner keeps lines valid."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawgate.testing import strategies as s
from clawgate.testing._grammar import join_lines, pipe_target

FAST = settings(max_examples=120, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def bash_accepts(line: str, tmp: Path) -> tuple[bool, str]:
    """``bash -n`` on the line written to a file (a leading ``-`` would be an option to -c)."""
    script = tmp / "line.sh"
    script.write_text(line + "\n", encoding="utf-8")
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True,
                          check=False)
    return done.returncode == 0, done.stderr


@FAST
@given(line=s.lines())
def test_lines_are_valid_bash(line: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    ok, err = bash_accepts(line, tmp_path_factory.mktemp("g"))
    assert ok, err


@FAST
@given(first=s.lines(), second=s.lines(), sep=st.sampled_from(["; ", " | ", " && ", "\n"]))
def test_joined_lines_are_valid_bash(first: str, second: str, sep: str,
                                     tmp_path_factory: pytest.TempPathFactory) -> None:
    ok, err = bash_accepts(join_lines(first, sep, second), tmp_path_factory.mktemp("j"))
    assert ok, err


@pytest.mark.parametrize(("line", "sep", "extra", "expected"), [
    ("ls", "; ", "pwd", "ls; pwd"),
    ("ls  # done", "; ", "pwd", "ls  # done\npwd"),
    ("cat <<EOF\nx\nEOF", " | ", "pwd", "cat <<EOF\nx\nEOF\npwd"),
    ("cat <<< x", " | ", "wc", "cat <<< x | wc"),
    ("ls", " | ", "! grep x", "ls | ( ! grep x )"),
])
def test_join_lines(line: str, sep: str, extra: str, expected: str) -> None:
    assert join_lines(line, sep, extra) == expected


def test_pipe_target_leaves_plain_commands_alone() -> None:
    assert pipe_target("grep x") == "grep x"
    assert pipe_target("! grep x") == "( ! grep x )"


@pytest.mark.parametrize("command", ["! ls  # done", "! cat <<EOF\nx\nEOF"])
def test_a_negated_pipe_target_closes_after_a_comment_or_here_document(command: str) -> None:
    line = join_lines("true", " | ", command)
    done = subprocess.run(["bash", "-n", "-c", line], capture_output=True, text=True, check=False)
    assert done.returncode == 0, (line, done.stderr)
