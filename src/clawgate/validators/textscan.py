"""A small quoting scanner for checks on raw text: which characters stand outside quotes."""

from __future__ import annotations

from collections.abc import Iterator


def unquoted(text: str) -> Iterator[tuple[int, str]]:
    """(index, char) of every character outside single, double and ``$'...'`` quotes."""
    quote = ""
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if quote == "'":
            if ch == "'":
                quote = ""
        elif quote == "$'":
            if ch == "\\":
                i += 1
            elif ch == "'":
                quote = ""
        elif quote == '"':
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = ""
        elif ch == "\\":
            yield i, ch
            i += 1
        elif ch == "'":
            quote = "$'" if i and text[i - 1] == "$" else "'"
        elif ch == '"':
            quote = '"'
        else:
            yield i, ch
        i += 1
