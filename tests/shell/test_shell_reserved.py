"""``!`` and ``time`` before a compound command: blanked for tree-sitter where a command starts,
left where they are words of another command."""

from __future__ import annotations

import pytest

from clawgate.shell import parse
from clawgate.shell.reserved import MAX_WORDS, blanked


@pytest.mark.parametrize(("line", "shape"), [
    ("! for i in a; do ls; done", "  for i in a; do ls; done"),
    ("a && time { ls; }", "a &&      { ls; }"),
    ("time -p ! if a; then b; fi", "          if a; then b; fi"),
    ("if x; then ! for i in a; do :; done; fi", "if x; then   for i in a; do :; done; fi"),
    ("! ! case x in a) ls;; esac", "    case x in a) ls;; esac"),
])
def test_a_prefix_where_a_command_starts_is_blanked(line: str, shape: str) -> None:
    assert blanked(line) == shape
    assert len(shape) == len(line)


@pytest.mark.parametrize("line", [
    "sudo time for x",  # sudo runs a program named time
    "x=1 time -p { ls; }",  # after an assignment, time is a program's name
    "echo then ! for x",
    "sudo -p ! for x",
    "! ls",  # a simple command: tree-sitter reads it
    "echo '! for'",
])
def test_a_prefix_that_is_a_word_of_another_command_stays(line: str) -> None:
    assert blanked(line) is None


def test_a_long_run_of_prefixes_is_not_followed() -> None:
    line = "! " * (MAX_WORDS + 2) + "for i in a; do rm -rf ~; done"
    shape = blanked(line)
    assert shape is not None and shape.startswith(" " * (2 * MAX_WORDS))
    # the reading left to tree-sitter then names keywords as commands: never a clean one
    assert any(c.program in ("for", "do", "done", "!") for c in parse(line).commands)
