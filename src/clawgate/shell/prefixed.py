"""``coproc`` before a compound command: ``coproc if …; fi``, ``coproc { …; }``, ``coproc NAME
{ …; }``, ``coproc NAME ( … )``, ``coproc while …``, wherever a command starts (``then coproc
X { …; }``). Bash runs the compound command as a coprocess; tree-sitter-bash
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

# coproc, an optional NAME, then what opens a compound command (where a command starts: see
# ``masked``).
_BEFORE_COMPOUND = lazy_pattern(
    r"(?<![^\s;&|(){}`!])"
    r"(coproc(?:[ \t]+[A-Za-z_][A-Za-z0-9_]*)?)"
    r"(?=[ \t]+(?:(?:if|while|until|for|case|select)[ \t\n]|\{[ \t\n]|\[\[[ \t]|\())")


def masked(line: str) -> str | None:
    """``line`` with each such keyword before a compound command blanked, or None. Only where
    a command starts: after the line's start, an operator, or a word after which one does
    (``then``, ``do``, ``else``, ``!``, ``time``: ``if a; then coproc X { b; }; fi``)."""
    from clawgate.shell.reserved import at_command_start

    shape = list(line)
    for found in _BEFORE_COMPOUND.finditer(line):
        if at_command_start(line, found.start()):
            shape[found.start():found.end()] = " " * (found.end() - found.start())
    written = "".join(shape)
    return None if written == line else written
