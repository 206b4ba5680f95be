"""A compound command after ``!`` or ``time``, as bash reads it.

bash takes a pipeline's ``!`` (negation) and ``time`` (timing, ``-p`` for POSIX output) before
any command, compound ones included: ``! for f in *; do rm "$f"; done``, ``time { make; }``,
``! if a; then b; fi``. tree-sitter-bash takes them before a simple command only; before a
compound one it reads the keywords as the names of simple commands (``for f in *``, ``do rm
"$f"``, ``done``) and the loop's own words as arguments. Neither word changes which commands
run: the line is handed to tree-sitter again with each such ``!`` and ``time`` blanked (the
same length: every offset holds), and the words are read from the line itself.
"""

from __future__ import annotations

from clawgate.bounds import charge
from clawgate.lazyre import lazy_pattern

# ``!`` or ``time [-p]`` in a command's place (after the line's start, a blank or an operator),
# before a compound command's first word, or before another such ``!``.
_PREFIX = lazy_pattern(
    r"(?<![^\s;&|(){}`])(?:!|time(?:[ \t]+-p)?)"
    r"(?=[ \t]+(?:(?:for|while|until|if|case|select|coproc|function|!|time)(?=[\s;]|$)|"
    r"\{(?=\s)))")
# The names tree-sitter gives the simple commands it makes of such a line (``time`` before a
# simple command is one of its commands, and stays one).
KEYWORDS = frozenset({"for", "while", "until", "if", "case", "select", "coproc", "function",
                      "do", "done", "then", "elif", "else", "fi", "esac", "{", "}", "!"})


# The words after which a command starts (besides an operator or the line's start).
_BEFORE_A_COMMAND = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!",
                               "time"})


def blanked(line: str) -> str | None:
    """``line`` with each ``!`` and ``time`` before a compound command blanked, or None when
    it holds none. Only where a command starts: ``sudo time for x`` runs a program named
    ``time``, and its words stay."""
    shape, changed = list(line), False
    for found in _PREFIX.finditer(line):
        charge(MAX_WORDS)  # the words looked back over
        if at_command_start(line, found.start()):
            shape[found.start():found.end()] = " " * (found.end() - found.start())
            changed = True
    return "".join(shape) if changed else None


def at_command_start(line: str, start: int) -> bool:
    """Whether a command starts at ``start``: after the line's start, an operator, or words
    after which one does (``then``, ``do``, ``!``, ``time``, ``time -p``), themselves at one.
    At most ``MAX_WORDS`` words are looked back over (a longer run is not blanked: tree-sitter's
    reading then stands, which names keywords as commands, and is not allowed)."""
    for _ in range(MAX_WORDS):
        word, start = _word_before(line, start)
        if word is None:
            return True
        if word == "-p":  # time's own option
            word, start = _word_before(line, start)
            word = "time" if word == "time" else ""
        if word not in _BEFORE_A_COMMAND:
            return False
    return False


def _word_before(line: str, start: int) -> tuple[str | None, int]:
    """The word that ends before ``start`` (blanks skipped) and where it starts; None at the
    line's start or after an operator."""
    i = start - 1
    while i >= 0 and line[i] in " \t":
        i -= 1
    if i < 0 or line[i] in _OPERATORS:
        return None, start
    end = i + 1
    while i >= 0 and line[i] not in _OPERATORS and line[i] not in " \t":
        i -= 1
    return line[i + 1:end], i + 1


MAX_WORDS = 8
_OPERATORS = ";&|(){}\n`"
