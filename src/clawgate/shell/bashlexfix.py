"""bashlex reads a here-document one line late inside a compound command; this corrects it.

bashlex reads the bodies of pending here-documents when its tokenizer hands out a newline
(``heredoc.gatherheredocuments``), and the parser registers a here-document when it reduces
the ``<<`` redirection. Inside ``{ … }``, ``( … )``, ``if``, loops and functions that reduction
happens only after the parser has read the newline as its lookahead token: nothing is pending
yet, the newline goes by, and the body is read after the next one. The first body line becomes a
command (``{ cat <<x`` / ``hello`` / ``x`` / ``}`` is ``cat`` and the command ``hello``), so
the parser differential called every here-document inside a compound command a disagreement.
At the top level bashlex gathers again when it reduces the list, which hides the bug there.

The correction: a here-document registered while the lookahead token is that newline has its
body read at once, from just after the newline, where the tokenizer stands (it has read nothing
since). That is where bash reads it.

A second correction: inside ``$( … )`` and ``<( … )`` bash (5.2) ends a here-document at a body
line that starts with the delimiter and holds the closing parenthesis after it (``$(cat <<EOF``
/ ``hi`` / ``EOF)``), with a warning, and reads the rest of that line as the text after the
body. bashlex wanted the delimiter alone on its line and rejected every such line; it now ends
the body there too. And a redirection followed by blanks or a comment before its body's line
ends where its body does (``_ENDS_ITS_LINE``), as one followed by the newline alone did, and
a substitution ends no sooner than the last body read inside it (``_recursive_parse``).
"""

from __future__ import annotations

import re
from typing import Any

_APPLIED: list[bool] = []


def apply() -> None:
    """Install the correction (once; bashlex must be importable)."""
    if _APPLIED:
        return
    from bashlex import heredoc, subst, tokenizer

    newline = tokenizer.tokentype.NEWLINE
    original_init = tokenizer.tokenizer.__init__

    class _Pending(list[Any]):
        """The tokenizer's stack of here-documents waiting for a body."""

        def __init__(self, owner: Any) -> None:
            super().__init__()
            self.owner = owner

        def append(self, item: Any) -> None:
            super().append(item)
            if getattr(self.owner._current_token, "ttype", None) is newline:
                heredoc.gatherheredocuments(self.owner)

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self.redirstack = _Pending(self)

    tokenizer.tokenizer.__init__ = init
    heredoc.makeheredoc = _make_heredoc
    subst._recursiveparse = _recursive_parse
    _APPLIED.append(True)


def _recursive_parse(parserobj: Any, base: str, sindex: int,
                     tokenizerargs: dict[str, Any] | None = None) -> tuple[Any, int]:
    """bashlex's ``subst._recursiveparse`` (a substitution's text parsed on its own), ending
    the substitution no sooner than the last here-document body read inside it: bashlex ended
    it where its last command's last part ended (``$(cat <<EOF >f`` ended after ``>f``, and
    the body's text was read again as more of the word, its ``$( )`` as commands)."""
    import copy

    from bashlex import parser, subst

    if tokenizerargs is None:
        tok = parserobj.tok
        tokenizerargs = {"parserstate": copy.copy(tok._parserstate),
                         "lastreadtoken": tok._last_read_token,
                         "tokenbeforethat": tok._token_before_that,
                         "twotokensago": tok._two_tokens_ago}
    limit = parserobj._expansionlimit
    inner = parser._parser(base[sindex:], tokenizerargs=tokenizerargs,
                           expansionlimit=None if limit is None else limit - 1)
    node = inner.parse()
    end = max(node.pos[1], getattr(inner.tok, _BODIES_END, -1))
    subst._adjustpositions(node, sindex, len(base))
    return node, end


def _make_heredoc(tok: Any, redirnode: Any, lineno: int, killleading: bool) -> str:
    """bashlex's ``heredoc.makeheredoc``, ending a body inside a substitution as bash does."""
    from bashlex import ast, errors

    delimiter = redirnode.output.word
    closing = getattr(tok._shell_eof_token, "value", None) == ")"
    document: list[str] = []
    startpos = tok._shell_input_line_index
    line_start = tok._shell_input_line_index
    line = tok.readline(False)
    while line:
        tabs = len(line) - len(line.lstrip("\t")) if killleading else 0
        line = line[tabs:]
        if line[:-1] == delimiter and line[len(delimiter)] == "\n":
            document.append(line[:-1])
            break
        if closing and line.startswith(delimiter) and ")" in line[len(delimiter):]:
            # the rest of the line, from just after the delimiter, is read again as text
            tok._shell_input_line_index = line_start + tabs + len(delimiter)
            break
        document.append(line)
        line_start = tok._shell_input_line_index
        line = tok.readline(False)
    if not line:
        raise errors.ParsingError(f"here-document at line {lineno} delimited by end-of-file "
                                  f"(wanted {delimiter!r})", tok._shell_input_line,
                                  tok._shell_input_line_index)
    text = "".join(document)
    endpos = tok._shell_input_line_index - 1
    setattr(tok, _BODIES_END, max(getattr(tok, _BODIES_END, -1), endpos))
    redirnode.heredoc = ast.node(kind="heredoc", value=text, pos=(startpos, endpos))
    if _ENDS_ITS_LINE.fullmatch(tok._shell_input_line, redirnode.pos[1], startpos):
        redirnode.pos = (redirnode.pos[0], endpos)  # the body follows: the redirection ends there
    return text


# What may stand between a here-document's redirection and its body for the redirection to
# end where its body does: its line's end, after blanks or a comment (bashlex took only the
# newline; after ``<<EOF `` a substitution holding the redirection ended before the body, and
# the body's text was read again as more of the word: ``$(cat <<EOF `` / ``$(x)`` ran x).
_BODIES_END = "_clawgate_bodies_end"  # on a tokenizer: where the last body it read ends
_ENDS_ITS_LINE = re.compile(r"[ \t]*(?:#[^\n]*)?\n")
