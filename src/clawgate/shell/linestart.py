"""Escapes tree-sitter-bash reads in the wrong place.

An escaped character at the start of a line (``ls⏎\\rm -rf ~``, ``ls⏎\\; a``): bash ends the
command at the newline and runs ``rm`` (or a program named ``;``); tree-sitter-bash takes the
newline and the escape into the last word of the line before (one command, ``ls⏎rm``).
``masked`` gives a text of the same length for tree-sitter to parse in its place, each such
backslash made ``_``, and the character it escapes too where that is no word's character (an
operator, a blank, ``$``, ``#``, a brace, a glob): the escaped pair is one word where it stands
either way, and its value is read from the line itself (``\\rm`` is ``rm``, ``\\;`` is ``;``).
Not before a single quote: inside single quotes a backslash is no escape and that quote ends
the string, so writing it otherwise could move where a string ends; such a line keeps its
reading. A double quote after a backslash is a literal in every context (escaped outside
quotes and inside double quotes, plain inside single quotes), and so is the ``_`` it becomes.

An escaped blank starting a word (``echo \\ \\ a``): tree-sitter-bash drops it as blank space;
``blank_starts`` masks it the same way (inside quotes, where it is two literal characters, the
mask is two literal characters too). Not on a line with a here-document: a delimiter can
start with an escaped blank (``<<\\ EOF``), and its end line must stay where bash finds it.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_LINE_START_ESCAPE = lazy_pattern(r"(?<=\n)\\([^\n'])")
_WORD_CHARACTER = lazy_pattern(r"[A-Za-z0-9_!.,:/@%+=-]|[^\x00-\x7f]")


def masked(line: str) -> str | None:
    """``line`` with each backslash that starts a line made ``_``, with the character after it
    when that one is no word character."""
    shape = _LINE_START_ESCAPE.sub(_written, line)
    return None if shape == line else shape


def _written(found: re.Match[str]) -> str:
    escaped = found[1]
    return "_" + (escaped if _WORD_CHARACTER.fullmatch(escaped) else "_")


# A backslash and a blank where a word starts (after an unescaped blank, an operator or the
# line's start): tree-sitter-bash takes the pair for blank space and drops it from the word
# (``echo \ \ a`` read as ``echo a``); to bash it is the word's first character, a blank.
_BLANK_STARTING_A_WORD = lazy_pattern(r"(?:^|(?<=[;&|()<>\n])|(?<=(?<!\\)[ \t]))\\[ \t]")


def blank_starts(line: str) -> str | None:
    """``line`` with each escaped blank that starts a word made ``__`` (one word where it
    stands; its value read from the line), or None when it holds none."""
    shape = _BLANK_STARTING_A_WORD.sub("__", line)
    return None if shape == line else shape

