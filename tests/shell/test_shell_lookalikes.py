"""Here-document body lines that start like the delimiter (``    EOF = "end"`` in a body ended by
``EOF``): tree-sitter-bash ends the body there, bash only at the delimiter itself. tree-sitter
reads the line with such a line's first letter changed (``quoting.delimiter_lookalikes``); the
words come from the line as written, and the body ends where bash ends it."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell import parse
from clawgate.shell.quoting import delimiter_lookalikes

ENGINE = Engine()


@pytest.mark.parametrize(("line", "shaped"), [
    ("cat <<'EOF' > t.py\n    EOF = 1\nEOF", "cat <<'EOF' > t.py\n    xOF = 1\nEOF"),
    ("cat <<EOF\nEOFX\nEOF", "cat <<EOF\nxOFX\nEOF"),
    ("cat <<EOF\nEOF \nEOF", "cat <<EOF\nxOF \nEOF"),
    ("cat <<EOF\n\tEOF\nEOF", "cat <<EOF\n\txOF\nEOF"),  # << keeps tabs: no end
    ("cat <<X\nxs = 1\nX", None),  # not the delimiter's start
    ("cat <<X\nXs = 1\nX", "cat <<X\nxs = 1\nX"),
    ("cat <<-EOF\n\tEOF", None),  # <<- ends at a tabbed delimiter
    ("cat <<EOF\nhello\nEOF", None),
    ("cat <<t\ntime ls\nt", None),  # a reserved word keeps its letter
    ("cat <<do\ndo ls\ndo", None),
    ("ls", None),
])
def test_lookalike_lines_get_another_letter(line: str, shaped: str | None) -> None:
    assert delimiter_lookalikes(line) == shaped
    if shaped is not None:
        assert len(shaped) == len(line)


@pytest.mark.parametrize("line", [
    "cat <<'EOF' > tokens.py\nclass TokenType:\n    IDENT = 'identifier'\n"
    "    EOF = 'end of input'\nEOF",
    "cat <<'EOF' > m.py\nEOF_MARK = 1\nprint(EOF_MARK)\nEOF\npython3 m.py",
    "cat <<EOF > notes.txt\nEOFs are hard\nEOF",
])
def test_bodies_with_lookalike_lines_are_read_whole(line: str) -> None:
    parsed = parse(line)
    assert not parsed.has_error
    assert parsed.commands[0].program == "cat"
    assert ENGINE.check(line, cwd="/tmp/workspace").outcome is Outcome.ALLOW


@pytest.mark.parametrize("line", [
    "cat <<'EOF' > t.py\n    EOF = 1\nEOF\nrm -rf ~",
    "cat <<EOF > t.py\nEOFX\n((x))\nEOF\nrm -rf ~",
    "python3 - <<EOF\n  EOF = 1\nimport os; os.system('rm -rf ~')\nEOF",
])
def test_what_follows_the_body_is_still_read(line: str) -> None:
    assert ENGINE.check(line, cwd="/tmp/workspace").outcome is Outcome.DENY


def test_words_are_read_from_the_line_as_written() -> None:
    line = "cat <<'EOF' > t.py\n    EOF = 1\nEOF"
    parsed = parse(line)
    assert parsed.source == line and parsed.shape is not None
    body = "".join(r.heredoc or "" for r in parsed.commands[0].redirects)
    assert "EOF = 1" in body and "xOF" not in body
