"""Bash's ``time`` keyword: at the start of a pipeline, ``time`` is a reserved word, not the
program ``/usr/bin/time``. It takes one option, ``-p`` (written so, unquoted), then an
optional ``--``; the next word is the program bash runs, whatever it looks like:
``time -f x ls`` runs the program ``-f`` with the words ``x ls``; ``time -p -- rm x`` runs
``rm``. A ``time`` after an assignment, quoted, escaped or after ``command`` is the program.

tree-sitter-bash reads the keyword as a command's first word: ``keyword_dropped`` takes it
(and its ``-p`` and ``--``) off a command that starts a pipeline.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
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


_ASSIGNMENT = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


def leading_assignments(words: tuple[m.Word, ...]
                        ) -> tuple[tuple[m.Assignment, ...], tuple[m.Word, ...]]:
    """The assignments that start ``words`` (``time x=1 ls``: after the keyword, ``x=1`` is an
    assignment to bash, and ``ls`` the program), and the words after them."""
    found: list[m.Assignment] = []
    rest = words
    while rest and (head := _ASSIGNMENT.match(rest[0].text)) is not None:
        word = rest[0]
        name = head.group().rstrip("+=")
        text = word.text[head.end():]
        value = None if word.value is None else word.value.partition("=")[2]
        found.append(m.Assignment(name, m.Word(text, value, word.quoted, word.expansions)))
        rest = rest[1:]
    return tuple(found), rest
