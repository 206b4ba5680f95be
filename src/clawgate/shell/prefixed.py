"""A keyword before a compound command: ``coproc if …; fi``, ``coproc { …; }``, ``coproc NAME
{ …; }``, ``time while …``, ``time -p { …; }``. Bash runs the compound command (as a
coprocess, or timed); tree-sitter-bash knows these keywords only before a simple command and
reads the compound's words as arguments of a command named ``coproc`` or ``time``.
``masked`` gives a text of the same length for tree-sitter to parse in its place, the keyword
(with coproc's name, time's ``-p`` and ``--``) blanked: the compound command is read as what it
is, and its commands are judged (words are read from the line itself).
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern

# At a command's start: the keyword and what belongs to it, then what opens a compound command.
_BEFORE_COMPOUND = lazy_pattern(
    r"(?:^|(?<=[;&|(\n!]))([ \t]*)"
    r"(coproc(?:[ \t]+[A-Za-z_][A-Za-z0-9_]*)?|time(?:[ \t]+-p)?(?:[ \t]+--)?)"
    r"(?=[ \t]+(?:(?:if|while|until|for|case|select)[ \t\n]|\{[ \t\n]|\[\[[ \t]|\(\())")


def masked(line: str) -> str | None:
    """``line`` with each such keyword before a compound command blanked, or None."""
    shape = _BEFORE_COMPOUND.sub(lambda found: found.group(1) + " " * len(found.group(2)), line)
    return None if shape == line else shape
