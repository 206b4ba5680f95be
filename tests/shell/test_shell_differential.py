"""The parser differential on ordinary compound commands: ``[ … ]`` tests.

tree-sitter reads ``[ … ]`` as a test expression (a ``test_command`` node whose parts are
expressions, not words); bashlex reads the same text as the command ``[`` with words up to
``]``. Before this was compared as one reading, every multi-line ``if [ … ]; then … fi`` was a
disagreement ("only bashlex sees a command"), DENY. These shapes come from the CI files of
public projects (``../shared/corpus/devcmds.jsonl``).
"""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell import differential, parse
from clawgate.validators.base import Context
from clawgate.validators.parsing import ParserDisagreement

P, DENY = Outcome.PASSTHROUGH, Outcome.DENY

EVERYDAY = [
    'if [ -z "$v" ]; then\n  echo hi\nfi',
    'if [ -d target/debug ]; then\n  rm -rf target/debug\nfi',
    'if [ "Linux" = "Windows" ]; then\n  cp "a.exe" "dist/"\nelse\n  cp "a" "dist/"\nfi',
    'if [ -z "$(git diff --name-only "$TAG")" ]; then\n  echo "No changes"\n  exit 1\nfi',
    'if [ $found -eq 0 ]; then\n    exit 0\nelse\n    echo "found"\n    exit 1\nfi',
    'if [ "$b" = "auto" ]; then\n  n=$(find docs -name "*.rst" 2>/dev/null | wc -l)\n'
    '  if [ "$n" -gt 0 ]; then\n    b="minor"\n  fi\nfi',
    '[ -z "$v" ] || (\n  echo a\n)',
    '[ a ] || {\n  echo a\n}',
    '[ -f x ] && echo "$(date)"',
    'for d in bins-*; do\n  if [[ $d =~ "w" ]]; then\n    e=1\n  fi\n'
    '  if [ "$e" = "" ]; then\n    tar cJf dist/$d.tar.xz $d\n  fi\ndone',
    'while [ "$i" -lt 3 ]; do\n  i=$((i+1))\ndone',
    'case "$x" in\n  a) echo a;;\n  *) echo "$(date)";;\nesac',
    # lines that stand apart (bashlex asked about some of them), (( )) and [[ ]] beside tests
    '[ -f x ] && echo "$(date)"\nls -la\n[ -d y ] || echo "$(pwd)"',
    '[ $((1+1)) -eq 2 ] && echo "$(date)"',
    'if [[ -n $x ]]; then\n  [ -f y ] && echo "$(date)"\nfi',
    # here-documents inside compound commands (bashlex read their bodies one line late)
    '{ cat <<x\nhello\nx\n}',
    '( cat <<EOF\nhello $USER\nEOF\n)',
    'if true; then\n  cat <<EOF > notes.txt\nline one\nEOF\nfi',
    'for f in a b; do\n  cat <<EOF | grep -c x\n$f\nEOF\ndone',
    'while read -r l; do\n  cat <<EOF\n$l\nEOF\ndone < list.txt',
    'f() { cat <<x # a comment\nhello\nx\n}',
    '{ cat <<-EOF\n\thello\n\tEOF\n} > out.txt',
    # a "$" that starts no expansion (tree-sitter failed on it; bash reads it as itself)
    'cat <<EOF\n$/ and $% stay as written\nEOF',
    '{ cat <<EOF\n$é\nEOF\n}',
    # a declaration builtin's assignment with escaped quotes: both read X={"a":1}
    'export X="{\\"a\\":1}"',
    'local -r msg="say \\"hi\\"" && echo "$msg"',
]


@pytest.mark.parametrize("line", EVERYDAY)
def test_tests_in_compound_commands_read_alike(line: str, ctx: Context) -> None:
    assert ParserDisagreement().check_line(parse(line), ctx).outcome is P


@pytest.mark.parametrize("line", EVERYDAY)
def test_everyday_compound_commands_are_allowed(line: str) -> None:
    assert Engine().check(line, cwd="/tmp/workspace").outcome is Outcome.ALLOW


def test_a_test_is_read_as_one_command() -> None:
    views = differential.tree_view(parse('[ -z "$v" ] && echo "$(date)"'))
    assert views[0] == (0, differential.TEST_COMMAND)


def test_bashlex_reading_a_test_agrees() -> None:
    parsed = parse('[ -z "$v" ] && echo a')
    mine = differential.tree_view(parsed)
    theirs = [(0, ("[", "-z", None, "]")), *mine[1:]]
    assert differential.compare(parsed, theirs) is None


@pytest.mark.parametrize("their_words", [
    ("rm", "-rf", "/"),  # another command where tree-sitter sees a test
    ("[", "-z", None),  # a test that does not end where tree-sitter's does
    ("]",),
])
def test_another_command_where_tree_sitter_sees_a_test_disagrees(
        their_words: tuple[str | None, ...]) -> None:
    parsed = parse('[ -z "$v" ] && echo a')
    mine = differential.tree_view(parsed)
    found = differential.compare(parsed, [(0, their_words), *mine[1:]])
    assert found is not None and "test" in found.detail


def test_a_command_only_bashlex_sees_inside_a_test_still_disagrees() -> None:
    parsed = parse('[ -z "$v" ] && echo a')
    mine = differential.tree_view(parsed)
    found = differential.compare(parsed, [*mine, (5, ("v",))])
    assert found is not None and "only bashlex" in found.detail


def test_a_test_bashlex_does_not_see_disagrees() -> None:
    parsed = parse('[ -z "$v" ] && echo a')
    found = differential.compare(parsed, differential.tree_view(parsed)[1:])
    assert found is not None and "only tree-sitter" in found.detail


# ``echo a⏎\' x``: tree-sitter-bash takes the newline and the escaped ``'`` into the word
# before (bash: ``echo a``, then the command ``'``), bashlex reads it as bash does (the reading
# leaves an escaped single quote starting a line to tree-sitter: ``linestart.py``).
@pytest.mark.parametrize("line", [
    "if [ -f x ]; then\n  echo a\n\\' x\nfi",  # the words still differ inside the block
    "[ -f x ] && echo a\n\\' x",
    "[ -f x ] && echo a\n\\' x\nls",  # the lines stand apart: read one by one
])
def test_disagreements_inside_blocks_with_tests_are_still_caught(line: str,
                                                                 ctx: Context) -> None:
    verdict = ParserDisagreement().check_line(parse(line), ctx)
    assert verdict.outcome is DENY and verdict.misparsing
