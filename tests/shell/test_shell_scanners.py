"""The text scanners that pass over quiet runs in one step read every line as a scan of one
character at a time does: ``single_quoted`` (against the character-by-character scan it
replaced) and the line-break scan of ``segments.py`` (against its own ``_Scan`` stepped one
character at a time). And tree-sitter's tree of the last line is handed out again only for the
same bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from clawgate.shell import segments
from clawgate.shell.quoting import HEREDOC, after_bodies, single_quoted
from clawgate.shell.treesitter import KEPT_MAX_BYTES, KEPT_TREES, tree_of

_PIECES = ["a", " ", "'", '"', "\\", "\n", "$", "(", ")", "{", "}", "[", "]", "<<", "<<-",
           "<<'EOF'", "EOF", "EOF\n", "#", "`", "$(", "$'", "${", ";", "|", "&&", "if ", "x=1"]
TEXTS = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join) | st.text(max_size=40)
_WORD_BREAKS = frozenset(" \t\n;|&()<>")
TABLE = ["echo 'a b' \"c'd\" e", "a $'x\\'y' 'z", "cat <<'E'\nit's\nE\necho 'q'", "ls # it's",
         "echo \"$(echo 'x')\" 'y'", "a\nb 'c\nd'", "x=\"a\nb\"\nls", "f() {\n ls\n}",
         "cat <<E\n'\nE\nls", "echo `a\nb`", "a \\\nb", ""]


def _single_quoted_by_character(line: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pending: list[str] = []
    double = False
    outer: list[tuple[bool, int]] = []
    parens = 0
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "\n" and pending and not double:
            i = after_bodies(line, i + 1, pending)
            pending = []
            continue
        if double and line.startswith("$(", i):
            outer.append((double, parens))
            double, parens, i = False, 0, i + 2
            continue
        if outer and not double and ch in "()":
            parens += 1 if ch == "(" else -1
            if parens < 0:
                double, parens = outer.pop()
        elif ch == '"':
            double = not double
        elif ch == "<" and not double and line.startswith("<<", i) and not line.startswith(
                "<<<", i):
            found = HEREDOC.match(line, i)
            if found:
                pending.append(found.group(2))
                i = found.end()
                continue
        elif ch == "#" and not double and (i == 0 or line[i - 1] in _WORD_BREAKS):
            newline = line.find("\n", i)
            i = len(line) if newline < 0 else newline
            continue
        elif ch == "'" and not double:
            ansi = i > 0 and line[i - 1] == "$"
            end = i + 1
            while end < len(line) and line[end] != "'":
                end += 2 if ansi and line[end] == "\\" else 1
            spans.append((i, min(end, len(line))))
            i = end
        i += 1
    return spans


def _breaks_by_character(line: str) -> list[int] | None:
    scan = segments._Scan(line)
    try:
        while scan.i < len(line):
            scan.i = scan.quoted() if scan.quote else scan.unquoted()
    except segments._Unsure:
        return None
    return None if scan.quote else scan.breaks


def test_table() -> None:
    for line in TABLE:
        assert single_quoted(line) == _single_quoted_by_character(line), line
        assert segments._top_level_breaks(line) == _breaks_by_character(line), line


# Both scanners are put to each drawn text (as in test_table): drawing the texts is nearly all
# of the cost, the scans themselves are cheap.
@settings(max_examples=3000, deadline=None)
@given(TEXTS)
def test_both_scanners_read_as_the_character_scans(line: str) -> None:
    assert single_quoted(line) == _single_quoted_by_character(line)
    assert segments._top_level_breaks(line) == _breaks_by_character(line)


def test_the_last_tree_is_kept_for_the_same_bytes_only() -> None:
    first = tree_of(b"ls -l")
    assert tree_of(b"ls -l") is first
    other = tree_of(b"ls -la")
    assert other is not first
    assert other.root_node.text == b"ls -la"
    assert tree_of(b"ls -l").root_node.text == b"ls -l"


def test_the_last_few_trees_are_kept_newest_first() -> None:
    texts = [f"echo {i}".encode() for i in range(KEPT_TREES + 1)]
    trees = [tree_of(text) for text in texts]
    for text, tree in zip(texts[1:], trees[1:], strict=True):  # the last KEPT_TREES
        assert tree_of(text) is tree
    again = tree_of(texts[0])  # dropped: parsed anew, the same reading
    assert again is not trees[0]
    assert again.root_node.text == texts[0]


def test_a_big_tree_is_kept_only_while_it_is_the_newest() -> None:
    big = b"echo " + b"a" * KEPT_MAX_BYTES
    tree = tree_of(big)
    assert tree_of(big) is tree
    small = tree_of(b"ls")
    assert tree_of(b"ls") is small
    assert tree_of(big) is not tree  # dropped once another came: read anew
