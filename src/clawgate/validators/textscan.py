"""A small quoting scanner for checks on raw text: which characters stand outside quotes."""

from __future__ import annotations

from collections.abc import Iterator

from clawgate.shell.quoting import HEREDOC, after_bodies, single_quoted

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


def quote_marks(text: str) -> frozenset[int]:
    """Indexes of the quote characters of ``text`` that open or close quoting, as bash reads
    them; a quote inside other quotes or after a backslash is a literal character, no mark.
    (A word, no here-documents or comments.)"""
    marks: set[int] = set()
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote in ("'", "$'"):
            if quote == "$'" and ch == "\\":
                i += 1
            elif ch == "'":
                marks.add(i)
                quote = ""
        elif quote == '"':
            if ch == "\\":
                i += 1
            elif ch == '"':
                marks.add(i)
                quote = ""
        elif ch == "\\":
            i += 1
        elif ch in "'\"":
            marks.add(i)
            quote = "$'" if ch == "'" and i and text[i - 1] == "$" else ch
        i += 1
    return frozenset(marks)


def literal_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` where the shell neither globs nor runs anything: single-quoted and
    ``$'…'`` text always; double-quoted text, here-document bodies and comments only when the
    line holds no command substitution (``$(``, a backquote), inside which quoting starts
    afresh."""
    spans = single_quoted(text)
    if "$(" in text or "`" in text:
        return spans
    quote = ""
    start = 0
    pending: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\" and quote != "'":
                i += 1
            elif ch == quote[-1]:
                if quote == '"':
                    spans.append((start, i + 1))
                quote = ""
        elif (ch == "#" and (i == 0 or text[i - 1] in _BREAKS)) or (ch == "\n" and pending):
            end = text.find("\n", i) if ch == "#" else after_bodies(text, i + 1, pending)
            end = n if end < 0 else end
            spans.append((i, end))
            pending = [] if ch == "\n" else pending
            i = end
            continue
        elif ch == "<" and text.startswith("<<", i) and not text.startswith("<<<", i) and (
                found := HEREDOC.match(text, i)) is not None:
            pending.append(found.group(2))
            i = found.end()
            continue
        elif ch == "\\":
            i += 1
        elif ch in "'\"":
            quote = "$'" if ch == "'" and i and text[i - 1] == "$" else ch
            start = i
        i += 1
    return spans


def inside(spans: list[tuple[int, int]], index: int) -> bool:
    return any(start <= index < end for start, end in spans)
