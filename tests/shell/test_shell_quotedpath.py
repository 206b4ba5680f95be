"""Lines of plain words and plain quotes, split by hand: the same model tree-sitter-bash gives,
field for field, or no reading at all (the line goes to the parser)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clawgate.shell import parse
from clawgate.shell.fastpath import is_plain
from clawgate.shell.quotedpath import parse_quoted
from clawgate.shell.treesitter import parse_tree

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


@pytest.mark.parametrize("line", [
    'grep -F "exact_string" src/main.py',
    "ls | cut -d ' ' -f -3",
    "awk '{print $5}' src/main.py",
    "awk -F ',' '{print $NF}' src/main.py | sort -u",
    'date -d "2018-09-01 00:00" +%s -u',
    "git commit -m 'fix: a b' && git log --format='%h %s' -n 3",
    "A=1 B=x,y pytest -k 'not slow' ; echo \"done (all)\"",
    "echo a'b'\"c\"d '' \"\"",
    "printf '%s\\n' \"it's\" | xargs -0 echo",
    "sed -n '1e exec /bin/sh 1>&0' /etc/hosts",
    "socat - 'exec:/bin/sh -p,pty,ctty,raw,echo=0'",
    "x 'r''m' -rf /",
    "ls || echo 'no # comment' || true",
])
def test_a_quoted_line_reads_as_tree_sitter_reads_it(line: str) -> None:
    found = parse_quoted(line)
    assert found is not None
    assert found == parse_tree(line)
    assert parse(line) == found


@pytest.mark.parametrize("line", [
    "echo \"$HOME\"",  # an expansion in double quotes
    "echo \"a`id`\"",
    "echo \"a\\\"b\"",
    "echo \"hi!\"",
    "echo 'a\nb'",  # a newline
    "echo 'é'",  # beyond ASCII
    "echo 'a' &",  # background
    "echo 'a' > f",  # a redirection
    "echo 'a' ;; x",
    "| echo 'a'",
    "echo 'a' |",
    "echo 'unclosed",
    "FOO='a b' env",  # a quoted assignment
    "export A='b'",  # a declaration builtin
    "readonly x:y; echo 'a'",
    "'r''m' -rf /",  # a quoted command name
    "--o=v 'x'",  # a name the grammar reads as an assignment
    "a%@ 'x'",
    "- 'x'",
    "A=1 'x'",
    "A=1 && echo 'x'",  # assignments alone before an operator
    "x:y 'a'",
    "[ 'a' = b ]",
    "test 'a' == b",
    "if 'x'; then y; fi",
    "local\"x\" y",
    "echo '{a}' *",
    "echo ~ 'a'",
    "echo 'a' # note",
])
def test_anything_else_goes_to_the_parser(line: str) -> None:
    assert parse_quoted(line) is None


_PLAIN = st.sampled_from(["a", "ls", "-x", "--opt", "--o=v", "a=b", "==", "=~", "=", "1", "%s",
                          "@", "a@b", "x:y", "a,b", "-", "--", "./x", "/bin/sh", "e=",
                          "export", "local", "unset", "test", "in", "do", "time", "a%", "1%"])
_INNER = st.sampled_from(["", " ", "a b", "#", "{print $1}", "*", "?", "[x]", "~", "<", ">",
                          "&", "|", ";", "(", ")", "{", "}", "'", '"', "\\", "$x", "`id`", "!",
                          "==", "a=b", "%", "@", "^", "-", ":"])
_QUOTED = st.builds(lambda s, single: f"'{s.replace(chr(39), '')}'" if single else
                    '"' + "".join(c for c in s if c not in '"$`\\!') + '"', _INNER, st.booleans())
_WORD = st.lists(st.one_of(_PLAIN, _QUOTED), min_size=1, max_size=3).map("".join)
_HEAD = st.one_of(st.sampled_from(["ls", "echo", "grep", "x", "./run", "A=1 ls", "B=x,y git",
                                   "1", "_", "readonly", "export"]), _WORD)
_COMMAND = st.builds(lambda head, rest: " ".join([head, *rest]), _HEAD,
                     st.lists(_WORD, max_size=4))
_LINE = st.builds(lambda first, rest: first + "".join(op + cmd for op, cmd in rest), _COMMAND,
                  st.lists(st.tuples(st.sampled_from([" | ", "|", " && ", ";", " || "]),
                                     _COMMAND), max_size=2))


@settings(max_examples=600, deadline=None, derandomize=True)
@given(_LINE)
def test_any_line_it_reads_is_read_as_tree_sitter_reads_it(line: str) -> None:
    found = parse_quoted(line)
    if found is not None:
        assert found == parse_tree(line)


def test_every_corpus_line_it_reads_is_read_as_tree_sitter_reads_it() -> None:
    lines = {json.loads(row)["command"] for path in sorted(CORPUS.glob("*.jsonl"))
             for row in path.read_text(encoding="utf-8").splitlines() if row.strip()}
    read = [line for line in sorted(lines) if not is_plain(line)
            and parse_quoted(line) is not None]
    assert len(read) > 500  # the corpora's everyday lines quote often
    assert [line for line in read if parse_quoted(line) != parse_tree(line)] == []
