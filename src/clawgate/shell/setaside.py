"""The text a reading sets aside as no command: comments and here-document bodies.

Were the reading wrong about such text (a comment bash ends sooner, a body bash never takes
for one), what it holds would run unjudged. The engine judges each piece as a line of its own
and asks about the line when a piece reads as a command it would deny: a misreading then costs
a question, never a silent run. Plain prose (``# run the tests``, ``# Let's see``) reads as no
denied command and costs nothing.
"""

from __future__ import annotations

import re

from clawgate.shell.model import ParsedLine

_MAX_PIECES = 16  # pieces judged per line; the rest are not (each is a whole check)
_MAX_CHARS = 4096  # longer pieces are judged by their first characters


COMMENT = "a comment"
BODY = "a here-document body"


def set_aside(parsed: ParsedLine) -> tuple[tuple[str, str], ...]:
    """(``COMMENT`` or ``BODY``, text) for the comments (without their ``#``) and
    here-document bodies of ``parsed``, each text once, in order, those holding more than
    blanks."""
    pieces = [(COMMENT, comment.lstrip("#").strip()) for comment in parsed.comments]
    pieces += [(BODY, redirect.heredoc.strip()) for cmd in parsed.commands
               for redirect in cmd.redirects if redirect.heredoc]
    seen: dict[str, str] = {}
    for kind, piece in pieces:
        if piece and piece[:_MAX_CHARS] not in seen:
            seen[piece[:_MAX_CHARS]] = kind
    return tuple((kind, piece) for piece, kind in seen.items())[:_MAX_PIECES]


_WORD_END = frozenset(";&|(){}<>\n")
_WORD_HASH = re.compile(r"(?:^|(?<=[ \t]))#")  # a # opening a word: each one literal


def literal_hash_reading(source: str, piece: str) -> str | None:
    """The line as a shell that does not take this comment's ``#`` for a comment reads it
    (zsh without ``interactive_comments``): every ``#`` opening a word of the comment escaped,
    the rest of its line words and commands again. Only for a comment that stands once in the
    line after a word on its line (``echo done # rm -rf ~``), whose text such a shell hands to
    that command as arguments unless it holds operators or substitutions of its own; None for
    any other comment (one opening a line or following an operator, found more than once, not
    found): that one is judged as a line of its own."""
    found = [m.start() for m in re.finditer(rf"#+[ \t]*{re.escape(piece)}", source)]
    if len(found) != 1:
        return None
    at = found[0]
    before = source[:at].rstrip(" \t")
    if len(before) == len(source[:at]) or not before or before[-1] in _WORD_END:
        return None  # glued to a word, opening the line, or after an operator
    end = source.find("\n", at)
    end = len(source) if end < 0 else end
    return source[:at] + _WORD_HASH.sub(r"\\#", source[at:end]) + source[end:]
