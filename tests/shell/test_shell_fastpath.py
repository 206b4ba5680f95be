"""Lines of plain words, split by hand (``shell/fastpath.py``): the same model tree-sitter-bash
gives, field for field, or no reading at all. A ``~`` inside a word (``HEAD~1``) is one of its
plain characters; one that starts a word or follows ``=`` is an expansion: the parser's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clawgate.shell import parse
from clawgate.shell.fastpath import is_plain, parse_plain, plain_line
from clawgate.shell.treesitter import parse_tree

OWN_CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SHARED_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"


@pytest.mark.parametrize("line", [
    "git diff --summary HEAD~1",
    "git blame HEAD~1~ src/main.py",
    "git shortlog HEAD~5..HEAD | head -3",
    "git log a..b~2 && git show HEAD~~",
    "A=b~c git x:~y a,~b @~ %~ +~ -~ .~ /~",
    "a~=b x; x a~=b",
])
def test_a_tilde_inside_a_word_is_plain(line: str) -> None:
    assert is_plain(line)
    assert parse_plain(line) == parse_tree(line)
    assert parse(line) == parse_tree(line)


@pytest.mark.parametrize("line", [
    "echo ~", "ls a ~", "~ a", "ls ~/x", "a=~ x", "A=~/bin ls", "x a=~b", "x|~", "x;~a",
    "x&&~", "x\t~",
])
def test_a_tilde_that_may_expand_goes_to_the_parser(line: str) -> None:
    assert not is_plain(line)


@pytest.mark.parametrize("line", [
    "e=|a",  # tree-sitter: an error
    "a=1 b=2",  # tree-sitter: the command, then each assignment again
    "a=b x:y",  # tree-sitter: an error
    "a@@", "a | a@@",  # tree-sitter: an error
    "export a@@", "unset X",  # declaration builtins: their arguments read as assignments
    "a && time|a", "time|a", "ls|do", "x&in", "ls;time",  # a reserved word beside an operator
])
def test_a_command_the_grammar_reads_otherwise_goes_to_the_parser(line: str) -> None:
    assert not is_plain(line)
    assert parse(line) == parse_tree(line)


def test_the_builtin_colon_is_a_plain_name() -> None:
    assert is_plain("apt-get update -q || :")
    assert parse_plain("apt-get update -q || :") == parse_tree("apt-get update -q || :")


_PIECES = st.sampled_from(["a", "ls", "HEAD", "-x", "--o", "1", "x:y", "a,b", "@", "%", "+",
                           "./x", "/bin/sh", ".", "_", "=", "a=b", ":", "a@@", "x%", "~", "~1",
                           "~~", "-~", ":~", "=~", "e=", "in", "do", "time", "export", "unset"])
_WORD = st.lists(_PIECES, min_size=1, max_size=3).map("".join)
_COMMAND = st.lists(_WORD, min_size=1, max_size=4).map(" ".join)
_LINE = st.builds(lambda first, rest: first + "".join(op + cmd for op, cmd in rest), _COMMAND,
                  st.lists(st.tuples(st.sampled_from([" | ", "|", " && ", ";", " || "]),
                                     _COMMAND), max_size=2))


def test_every_corpus_line_it_reads_is_read_as_tree_sitter_reads_it() -> None:
    paths = sorted(OWN_CORPUS.glob("*.jsonl")) + sorted(SHARED_CORPUS.glob("*.jsonl"))
    lines = {json.loads(row)["command"] for path in paths
             for row in path.read_text(encoding="utf-8").splitlines() if row.strip()}
    read = [line for line in sorted(lines) if is_plain(line)]
    assert len(read) > 1000
    assert any("~" in line for line in read)
    assert [line for line in read if parse_plain(line) != parse_tree(line)] == []


def _one_pass_agrees(line: str) -> None:
    """``plain_line``, which checks and splits a line of one command in one pass, reads a line
    exactly when ``is_plain`` does, as ``parse_plain`` reads it (fields the model leaves out of
    equality included: the program)."""
    found = plain_line(line)
    if not is_plain(line):
        assert found is None, line
        return
    expected = parse_plain(line)
    assert found == expected, line
    assert found is not None
    assert [c.program for c in found.commands] == [c.program for c in expected.commands]


_BLANKS = st.sampled_from(["", " ", "\t", "  ", " \t"])


# One property test for both readings: drawing a line is nearly all of its cost (the two
# readings take well under a millisecond), and two tests drew 3000 lines each. Each drawn line
# is put to both: read as tree-sitter reads it, and read in one pass as in two.
@settings(max_examples=3000, deadline=None, derandomize=True)
@given(_BLANKS, _LINE, _BLANKS)
def test_any_line_it_reads_is_read_as_tree_sitter_reads_it_and_in_one_pass_as_in_two(
        before: str, line: str, after: str) -> None:
    if is_plain(line):
        assert parse_plain(line) == parse_tree(line)
    _one_pass_agrees(before + line + after)


@pytest.mark.parametrize("line", [
    "", " ", "\t", "ls", " ls -la src ", "a=1 ls", "a=1", "a=1 b=2", "a~=b x", "x a=~b",
    "echo ~", "git diff HEAD~1", "ls\n", "ls\tx", "in", "ls in", "export a", ":", "a" * 5000,
    "ls é", "ls $x", "ls 'a'", "a@@", "A=b~c git x:~y", "a && time|a", "ls|do",
])
def test_the_one_pass_reading_on_edges(line: str) -> None:
    _one_pass_agrees(line)


def test_the_one_pass_reading_on_every_corpus_line() -> None:
    paths = sorted(OWN_CORPUS.glob("*.jsonl")) + sorted(SHARED_CORPUS.glob("*.jsonl"))
    lines = {json.loads(row)["command"] for path in paths
             for row in path.read_text(encoding="utf-8").splitlines() if row.strip()}
    assert len(lines) > 1000
    for line in sorted(lines):
        _one_pass_agrees(line)
