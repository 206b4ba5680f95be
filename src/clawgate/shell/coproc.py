"""``coproc`` before a compound command: ``coproc if …; fi``, ``coproc { …; }``, ``coproc NAME
{ …; }``, ``coproc while …``. Bash runs the compound command as a coprocess; tree-sitter-bash
knows only ``coproc`` before a simple command and reads the rest as words of a command named
``coproc`` (``coproc``, ``if``, ``sudo``, …). ``masked`` gives a text of the same length for
tree-sitter to parse in its place, the keyword (and its name) blanked: the compound command is
read as what it is, and its commands are judged (words are read from the line itself).
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern

# At a command's start: coproc, an optional NAME, then what opens a compound command.
_COPROC_COMPOUND = lazy_pattern(
    r"(?:^|(?<=[;&|(\n]))([ \t]*)(coproc(?:[ \t]+[A-Za-z_][A-Za-z0-9_]*)?)"
    r"(?=[ \t]+(?:(?:if|while|until|for|case|select)[ \t\n]|\{[ \t\n]|\[\[[ \t]|\(\())")


def masked(line: str) -> str | None:
    """``line`` with each ``coproc [NAME]`` before a compound command blanked, or None."""
    shape = _COPROC_COMPOUND.sub(lambda found: found.group(1) + " " * len(found.group(2)), line)
    return None if shape == line else shape
