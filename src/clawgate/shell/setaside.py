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


# A Markdown task list item's mark (``- [ ] run the tests``, ``* [x] docs``), the checklist of
# a commit message or a pull request's body: its text is judged without it. Read as a command,
# the mark is a glob for a program name (``[x]``: the file ``x``), which only hiding needs.
# Where an operator follows it (``- [x] ; rm -rf ~``, ``- [x] && make``), the mark is the command
# the operator needs before it: without one the text would read as no line at all, and what
# follows would go unjudged. There it stands as ``:``, a command that does nothing.
_TASK_MARK = re.compile(r"^([ \t]*)[-*+] \[[ xX]\][ \t]*", re.M)
_OPERATOR_NEXT = re.compile(r"(?:\\\n|[ \t])*[;&|)]")


def _unmarked(found: re.Match[str]) -> str:
    if _OPERATOR_NEXT.match(found.string, found.end()):
        return f"{found[1]}: "
    return found[1]


COMMENT = "a comment"
BODY = "a here-document body"


def set_aside(parsed: ParsedLine) -> tuple[tuple[str, str], ...]:
    """(``COMMENT`` or ``BODY``, text) for the comments (without their ``#``) and
    here-document bodies of ``parsed``, each text once, in order, those holding more than
    blanks."""
    pieces = [(COMMENT, comment.lstrip("#").strip()) for comment in parsed.comments]
    pieces += [(BODY, _TASK_MARK.sub(_unmarked, redirect.heredoc).strip())
               for cmd in parsed.commands for redirect in cmd.redirects if redirect.heredoc]
    seen: dict[str, str] = {}
    for kind, piece in pieces:
        if piece and piece[:_MAX_CHARS] not in seen:
            seen[piece[:_MAX_CHARS]] = kind
    return tuple((kind, piece) for piece, kind in seen.items())[:_MAX_PIECES]


_WORD_END = frozenset(";&|(){}<>\n")


def trailing_comment(source: str, piece: str) -> bool:
    """The comment stands once in the line, after a word on its line and an unescaped blank
    (``echo done # rm -rf ~``): where bash's reading is certain. A ``#`` opening a word starts
    a comment that runs to the end of the line, whatever it holds, so its text is no command
    to bash. A comment opening a line or following an operator, or found more than once, is
    not this one, and ``a\\ #`` (an escaped blank: the ``#`` inside the word) is not either."""
    found = [m.start() for m in re.finditer(rf"#+[ \t]*{re.escape(piece)}", source)]
    if len(found) != 1:
        return False
    at = found[0]
    if at == 0 or source[at - 1] not in " \t":
        return False  # glued to a word: no comment to bash
    before = source[:at].rstrip(" \t")  # the word, then a run of blanks up to the #
    escapes = len(before) - len(before.rstrip("\\"))
    if escapes % 2 == 1 and at - len(before) == 1:
        return False  # the one blank is escaped: the # is inside the word
    return bool(before) and before[-1] not in _WORD_END


# A line that is one plain command (no quotes, expansions or escapes of its own) with one
# here-document whose delimiter is quoted whole, followed by the body and the delimiter's line
# that ends the input: ``cat <<'EOF' > notes.txt``, the body, ``EOF``.
_PLAIN_HEAD = re.compile(r"[\w ./>=+,:@%-]*<<[ \t]*(['\"])(\w+)\1[\w ./<>=+,:@%-]*")


def certain_body(source: str) -> bool:
    """The line's one here-document body is literal text to bash, and where it ends is
    certain: the command line before it is plain, the delimiter quoted whole (nothing in the
    body is expanded), the first body line equal to the delimiter is the input's last line,
    and no other ``<<`` stands in the line. A body bash never reads as commands is no command
    a misreading could run; what the command does with its text is judged where it goes."""
    head, newline, rest = source.partition("\n")
    found = _PLAIN_HEAD.fullmatch(head.strip())
    if not newline or found is None or head.count("<<") != 1:
        return False
    lines = rest.rstrip("\n").split("\n")
    delimiter = found.group(2)
    return lines[-1] == delimiter and delimiter not in lines[:-1]
