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
    _APPLIED.append(True)
