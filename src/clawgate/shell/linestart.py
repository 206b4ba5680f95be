"""An escaped character at the start of a line (``ls⏎\\rm -rf ~``): bash ends the command at
the newline and runs ``rm``; tree-sitter-bash takes the newline and the escape into the last
word of the line before (one command, ``ls⏎rm``). ``masked`` gives a text of the same length
for tree-sitter to parse in its place, each such backslash made a letter: the word is read
where it stands, and its value from the line itself (``\\rm`` is ``rm``). Only before a
character that is a word's in either spelling (no operator, quote or expansion).
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern

_LINE_START_ESCAPE = lazy_pattern(r"(?<=\n)\\(?=[A-Za-z0-9_!.,:/@%+=-])")


def masked(line: str) -> str | None:
    """``line`` with each backslash that starts a line before a word character made ``_``."""
    shape = _LINE_START_ESCAPE.sub("_", line)
    return None if shape == line else shape
