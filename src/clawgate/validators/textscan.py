"""A small quoting scanner for checks on raw text: which characters stand outside quotes."""

from __future__ import annotations

from collections.abc import Iterator

from clawgate.shell.quoting import HEREDOC, after_bodies

_BREAKS = frozenset(" \t\n;|&()<>")


def unquoted(text: str) -> Iterator[tuple[int, str]]:
    """(index, char) of every character outside single, double and ``$'...'`` quotes.

    Comments and here-document bodies count as outside: a quote in them opens nothing (bash
    reads ``# it's`` as a comment), so what follows them is not taken to be quoted."""
    quote = ""
    pending: list[str] = []  # here-document delimiters whose bodies start at the next newline
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if not quote and ((ch == "#" and (i == 0 or text[i - 1] in _BREAKS))
                          or (ch == "\n" and pending)):
            end = text.find("\n", i + (ch == "\n")) if ch == "#" else after_bodies(
                text, i + 1, pending)
            end = n if end < 0 else end
            pending = [] if ch == "\n" else pending
            yield from ((k, text[k]) for k in range(i, end))
            i = end
            continue
        if not quote and ch == "<" and text.startswith("<<", i) and not text.startswith(
                "<<<", i) and (found := HEREDOC.match(text, i)) is not None:
            pending.append(found.group(2))
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
