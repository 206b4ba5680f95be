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
the body there too.
"""

from __future__ import annotations

from typing import Any

_APPLIED: list[bool] = []


def apply() -> None:
    """Install the correction (once; bashlex must be importable)."""
    if _APPLIED:
        return
    from bashlex import heredoc, tokenizer

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
    _APPLIED.append(True)


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
    redirnode.heredoc = ast.node(kind="heredoc", value=text, pos=(startpos, endpos))
    if redirnode.pos[1] + 1 == startpos:  # the body right after the redirection: it ends there
        redirnode.pos = (redirnode.pos[0], endpos)
    return text
