"""``coproc`` before a compound command: ``coproc if …; fi``, ``coproc { …; }``, ``coproc NAME
{ …; }``, ``coproc while …``. Bash runs the compound command as a coprocess; tree-sitter-bash
knows ``coproc`` only before a simple command and reads the compound's words as arguments of a
command named ``coproc``. ``masked`` gives a text of the same length for tree-sitter to parse
in its place, the keyword (and its name) blanked: the compound command is read as what it is,
and its commands are judged (words are read from the line itself).

``!`` and ``time`` before a compound command are blanked the same way, where tree-sitter
names a command after a keyword (``reserved.py``); the timing probes that leak a command's
output one character at a time (``time if [ $(whoami|cut -c1) = r ]; then sleep 5; fi``) are
judged by what they are (CG-INJ-018), not by a misreading.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern

# At a command's start: coproc, an optional NAME, then what opens a compound command.
_BEFORE_COMPOUND = lazy_pattern(
    r"(?:^|(?<=[;&|(\n!]))([ \t]*)"
    r"(coproc(?:[ \t]+[A-Za-z_][A-Za-z0-9_]*)?)"
    r"(?=[ \t]+(?:(?:if|while|until|for|case|select)[ \t\n]|\{[ \t\n]|\[\[[ \t]|\(\())")


def masked(line: str) -> str | None:
    """``line`` with each such keyword before a compound command blanked, or None."""
    shape = _BEFORE_COMPOUND.sub(lambda found: found.group(1) + " " * len(found.group(2)), line)
    return None if shape == line else shape
