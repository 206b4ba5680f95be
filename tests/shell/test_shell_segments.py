"""The second opinion asked line by line: only where every line break ends a command."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from clawgate.shell import differential, parse
from clawgate.shell.segments import bashlex_view_by_lines, separate_lines
from clawgate.validators.parsing import _needs_second_opinion


@pytest.mark.parametrize(("line", "spans"), [
    ("a\nb", [(0, 1), (2, 3)]),
    ("echo 'x\ny'", [(0, 10)]),  # the break is inside quotes: one line
    ("a # it's\nb", [(0, 8), (9, 10)]),  # a quote in a comment opens nothing
    ('echo "<$(tty) ${HOME}" >x\ny', [(0, 25), (26, 27)]),
    ("echo $'a\\'b'\nc", [(0, 12), (13, 14)]),
    ("cat >f <<EOF\n[x]\n{ a\nEOF\nls", [(0, 24), (25, 27)]),  # a body is its line's
    ("cat <<A <<B\n1\nA\n2\nB\nc", [(0, 19), (20, 21)]),
    ("cat <<EOF\nnever ends", [(0, 20)]),
    ("a <<<x\nb", [(0, 6), (7, 8)]),  # a here-string is one word
])
def test_lines_that_stand_apart(line: str, spans: list[tuple[int, int]]) -> None:
    assert separate_lines(line) == spans


@pytest.mark.parametrize("line", [
    "a",  # no break
    'echo "a\nb"',  # inside double quotes
    "a |\nb", "a &&\nb", "a\n| b",  # a pipeline or list goes on
    "for i in x\ndo y\ndone", "if a\nthen b\nfi",  # compound commands
    "f() {\na\n}", "(a\nb)", "`a\nb`", "echo $(a\nb)",  # brackets and substitutions
    'echo "$(echo "a")"\nb', 'echo "${x:-"a\nb"}"',  # quotes nested in double quotes
    "a\\\nb", "cat <<E &&\nx\nE\nls",  # a continuation; a list that goes on past a body
    'cat <<E"OF"\nE\nrm -rf /\nEOF',  # a delimiter in pieces: the body runs to EOF
])
def test_lines_that_do_not(line: str) -> None:
    assert separate_lines(line) is None


def test_bashlex_reads_only_the_lines_that_need_it() -> None:
    line = "ls -la\necho `date`\ncat notes.txt"
    parsed = parse(line)
    asked: list[str] = []

    def needs(text: str) -> bool:
        asked.append(text)
        return _needs_second_opinion(text)

    views = bashlex_view_by_lines(parsed, needs)
    assert asked == ["ls -la", "echo `date`", "cat notes.txt"]
    assert dict(views).keys() == dict(differential.bashlex_view(line)).keys()
    assert differential.compare(parsed, views) is None


def test_each_line_keeps_its_place() -> None:
    line = "ls\necho a\\ b\ncat x"
    parsed = parse(line)
    views = bashlex_view_by_lines(parsed, _needs_second_opinion)
    offsets = [offset for offset, _ in views]
    assert offsets == [0, 3, 13]  # bashlex's reading of the middle line, tree-sitter's others
    assert views[1] == next(v for v in differential.bashlex_view(line) if v[0] == 3)


def test_without_separate_lines_the_whole_line_goes_to_bashlex() -> None:
    line = "for i in 1 2\ndo echo `x`\ndone"
    parsed = parse(line)
    assert bashlex_view_by_lines(parsed, _needs_second_opinion) == differential.bashlex_view(
        line)


def _corpus_scripts() -> list[str]:
    """Scripts of two to four corpus lines, seeded: what an agent sends as one command."""
    corpus = Path(__file__).resolve().parents[3] / "shared" / "corpus"
    lines = [json.loads(raw)["command"] for path in sorted(corpus.glob("*.jsonl"))
             for raw in path.read_text(encoding="utf-8").splitlines() if raw.strip()]
    pick = random.Random(2)
    return [*(line for line in lines if "\n" in line),
            *("\n".join(pick.sample(lines, pick.randint(2, 4))) for _ in range(150) if lines)]


def test_scripts_disagree_where_the_whole_reading_does() -> None:
    """On real scripts, asking bashlex line by line finds the disagreements (and only those)
    that asking it about the whole script finds."""
    scripts = _corpus_scripts()
    if not scripts:
        pytest.skip("no shared corpus")
    for script in scripts:
        parsed = parse(script)
        if parsed.has_error or parsed.too_deep or not _needs_second_opinion(parsed.source):
            continue
        try:
            whole = differential.compare(parsed, differential.bashlex_view(parsed.source))
        except (differential.Unavailable, differential.Rejected):
            continue
        try:
            by_lines = differential.compare(parsed, bashlex_view_by_lines(
                parsed, _needs_second_opinion))
        except (differential.Unavailable, differential.Rejected):
            by_lines = None
        assert (whole is None) == (by_lines is None), script
