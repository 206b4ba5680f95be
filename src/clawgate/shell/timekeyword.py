"""Bash's ``time`` keyword: at the start of a pipeline, ``time`` is a reserved word, not the
program ``/usr/bin/time``. It takes one option, ``-p`` (written so, unquoted), then an
optional ``--``; the next word is the program bash runs, whatever it looks like:
``time -f x ls`` runs the program ``-f`` with the words ``x ls``; ``time -p -- rm x`` runs
``rm``. A ``time`` after an assignment, quoted, escaped or after ``command`` is the program.

tree-sitter-bash reads the keyword as a command's first word: ``keyword_dropped`` takes it
(and its ``-p`` and ``--``) off a command that starts a pipeline.
"""

from __future__ import annotations

from clawgate.shell import model as m


def keyword_dropped(words: tuple[m.Word, ...]) -> tuple[m.Word, ...]:
    """``words`` of a command that starts a pipeline, without a leading ``time`` keyword and
    what bash reads as its part (``time time …``, ``time ! …`` included)."""
    rest = words
    while rest and rest[0].text == "time":
        rest = rest[1:]
        if rest and rest[0].text == "-p":
            rest = rest[1:]
        if rest and rest[0].text == "--":
            rest = rest[1:]
        if rest and rest[0].text == "!":
            rest = rest[1:]
    return rest
