"""Comments written in backquotes: ``grep -m1 x f `# the rev field` | tail -n1``.

The idiom comments a long command between its words. Bash reads a backquoted substitution's
text to the next unescaped backquote and runs it: ``# the rev field`` is a comment, nothing
runs, and the substitution gives the empty string; standing unquoted as a word of its own, it
leaves no word at all. tree-sitter-bash reads the backquote as an error and the rest of the
line as a comment (what follows it vanishes from its reading), and bashlex gives up.

``masked`` gives a text of the same length for tree-sitter to parse in place of the line, each
such substitution blanked: only one that stands as a word of its own outside any quotes, whose
text starts with ``#`` (after blanks) and holds no newline (a next line would be a command),
no backslash (bash's backquote escapes) and nothing else. Words are read from the line
itself, where a blank stands between them either way. Not on a line with a here-document,
whose body is no command text.
"""

from __future__ import annotations

_BOUNDARY = frozenset(" \t\n;&|()")


def masked(line: str) -> str | None:
    """``line`` with each backquoted comment that stands as a word blanked, or None."""
    if "<<" in line or "`" not in line:
        return None
    shape = list(line)
    at = 0
    quote = ""  # "'" or '"' while inside quotes
    while at < len(line):
        char = line[at]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\":
            at += 1  # the escaped character is a literal
        elif quote == '"':
            quote = "" if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or line[at - 1] in _BOUNDARY):
            end = line.find("\n", at)
            at = len(line) if end < 0 else end
            continue
        elif char == "`":
            end = line.find("`", at + 1)
            if end < 0:
                return None
            if _comment(line, at, end):
                shape[at:end + 1] = " " * (end + 1 - at)
            at = end
        at += 1
    written = "".join(shape)
    return None if written == line else written


def _comment(line: str, start: int, end: int) -> bool:
    """``line[start:end + 1]`` is a backquoted comment standing as a word of its own."""
    body = line[start + 1:end]
    if "\n" in body or "\\" in body or not body.lstrip(" \t").startswith("#"):
        return False
    before = start == 0 or line[start - 1] in _BOUNDARY
    after = end + 1 == len(line) or line[end + 1] in _BOUNDARY
    return before and after
