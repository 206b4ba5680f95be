"""Here-document body lines that start with blanks and then a substitution.

``cat <<EOF`` then a line ``  $(rm -rf ~)``, or a ``<<-`` body whose lines are indented with
tabs: bash expands the body (its delimiter unquoted) and runs the substitution wherever it
stands on its line. tree-sitter-bash reads none that starts a line after blanks: the text is
body content to it. The body is read again with those blanks as newlines: the same bytes long
(every substitution at its offset), the same substitutions (a blank line is no text in a body,
and no command inside one), and each then starts its line, where tree-sitter-bash reads it.
A line continued from the one before (``\\`` at its end) keeps its blanks: a newline there
would end the command a substitution spanning the lines is in.

tree-sitter-bash also reads the body of a delimiter that starts with ``$`` (``<<$X``) as text
alone; bash takes such a delimiter literally, unquoted, and expands the body. A body whose
expansions were so read as text is read again the same way.
"""

from __future__ import annotations

import re

_BLANK_LED = re.compile(rb"(?m)^(?<!\\\n)[ \t]+(?=[$`])")
# Blanks alone on a line too (the tabs of a ``<<-`` delimiter's line): tree-sitter-bash ends
# no body after such a line.
_BLANKS = re.compile(rb"(?m)^(?<!\\\n)[ \t]+(?=[$`\n]|\Z)")
_DELIMITER = b"CLAWGATE_BODY_END"


def blank_led_masked(body: bytes) -> bytes | None:
    """``body`` (from the start of its first line) with the blanks that start a line before a
    ``$`` or a backquote, or are all of it, turned into newlines; None when no line starts
    with blanks and a substitution."""
    if not _BLANK_LED.search(body):
        return None
    return _BLANKS.sub(lambda found: b"\n" * len(found[0]), body)


_EXPANSION = re.compile(rb"\$[({\[]")
# What tree-sitter-bash makes of a body it reads: text alone, or its expansions too.
_TEXT = frozenset({"heredoc_content"})


def unread_expansions(body: bytes, kinds: list[str]) -> bool:
    """``body`` holds an expansion (``$(``, ``${``, ``$[``) but what tree-sitter-bash read of
    it (the kinds of its parts) is text alone: the body of a delimiter that starts with ``$``
    (``<<$X``), which it takes for quoted and bash does not."""
    return _EXPANSION.search(body) is not None and all(kind in _TEXT for kind in kinds)


def wrapped(body: bytes) -> tuple[bytes, bytes]:
    """What to put before and after ``body`` to read it as the body of a here-document of a
    ``:`` (its delimiter unquoted, so its substitutions are read): a delimiter no line of the
    body is."""
    delimiter = _DELIMITER
    lines = set(body.split(b"\n"))
    while delimiter in lines:
        delimiter += b"_"
    return b": <<" + delimiter + b"\n", (b"" if body.endswith(b"\n") else b"\n") + delimiter
