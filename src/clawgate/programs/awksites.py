"""Where an awk program starts a command, and which command: ``system(CMD)``,
``CMD | getline``, ``print | CMD`` and ``|&`` coprocesses. Each command awk starts is the line
``sh -c`` runs, so a command given as a string literal is known as surely as ``sh -c 'CMD'``'s.

The reading is exact or it is nothing: every place where awk may start a command (any ``|``
that is not ``||``, any ``system(``) must be one of the sites read, and each site's command a
whole string literal (or a ``-v`` variable the line sets), or no command is known.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern

_STRING = r'("(?:\\.|[^"\\])*")'
# Group 1 (or 2, 3) holds the command when it is a string literal; ``var`` a variable given
# to system(). A literal before ``| getline`` stands after what cannot be concatenated to it.
SITES = lazy_pattern(rf"\bsystem\s*\(\s*(?:{_STRING}\s*\)|(?P<var>[A-Za-z_]\w*)\s*\))?|"
                     rf"(?:(?:(?<=[(;{{}}\n])|^)[^\S\n]*{_STRING}\s*)?(?<!\|)\|\s*getline|"
                     rf"(?<![|])\|(?![|&])\s*(?!getline)(?:{_STRING}|[A-Za-z_]\w*)"
                     r"(?=\s*[;}\n)]|\s*$)|\|&")
# Every place awk may start a command: a pipe that is not ``||``, system(, ``|&``, and gawk's
# indirect call ``@name(…)``, which calls the function a variable names (``f = "system";
# @f(CMD)``); looked for outside string literals and regular expressions (``split($0, a,
# "|")``, ``/a|b/``).
_STARTS = lazy_pattern(r"\bsystem\s*\(|(?<!\|)\|(?!\|)|@\s*[A-Za-z_]\w*\s*\(")
# What may stand before a ``/`` that opens a regular expression; after anything else (a name, a
# number, ``)``, ``]``, ``$``) the ``/`` divides, and the text after it is code.
_BEFORE_REGEX = frozenset("{(;,!~&|=\n")
_ESCAPES = lazy_pattern(r"\\(.)")
_KNOWN_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}


def unquote(literal: str) -> str | None:
    """The text of an awk string literal; None when it holds an escape other than ``\\n``,
    ``\\t``, ``\\"``, ``\\\\`` and ``\\/`` (an octal or hex escape spells letters a reader
    of the plain text would not see: ``"\\163h"`` is ``sh``)."""
    body = literal[1:-1]
    if any(m.group(1) not in _KNOWN_ESCAPES for m in _ESCAPES.finditer(body)):
        return None
    return _ESCAPES.sub(lambda m: _KNOWN_ESCAPES[m.group(1)], body)


def awk_commands(program: str, variables: dict[str, str] | None = None) -> list[str] | None:
    """The command lines an awk program starts, in order; None when one of them is not known
    before run time (built by concatenation, held by a variable the line does not set, a
    coprocess) or a place that may start one is not read as a site."""
    sites = list(SITES.finditer(program))
    if any(not any(s.start() <= start.start() < s.end() for s in sites)
           for start in _STARTS.finditer(_blanked(program))):
        return None
    found: list[str] = []
    for site in sites:
        var = site.group("var")
        if var is not None:
            if variables is None or var not in variables:
                return None
            found.append(variables[var])
            continue
        literal = next((g for g in site.groups() if g is not None and g != var), None)
        text = unquote(literal) if literal is not None else None
        if text is None:
            return None
        found.append(text)
    return found


def _blanked(program: str) -> str:
    """The program with its string literals' bodies and its regular expressions blanked, each
    character kept in its place, read from left to right as awk reads it: a ``"`` inside a
    regular expression (``/"/``) opens no string, and a ``/`` after an operand divides (``a = 1
    / 2; … ; b = 3 / 4`` holds no regular expression). A string or regular expression the line
    does not close is left as it stands (its text still looked through)."""
    out = list(program)
    previous = "\n"  # the last character of code before this one, blanks left out
    i = 0
    while i < len(program):
        ch = program[i]
        if ch == '"' or (ch == "/" and previous in _BEFORE_REGEX):
            end = _closing(program, i, ch)
            if end is not None:
                out[i + 1:end] = " " * (end - i - 1)
                previous, i = ch, end + 1
                continue
        if not ch.isspace() or ch == "\n":
            previous = ch
        i += 1
    return "".join(out)


def _closing(program: str, start: int, quote: str) -> int | None:
    """Where the string or regular expression opened at ``start`` ends; None when it runs past
    its line (awk reads neither across a newline)."""
    j = start + 1
    while j < len(program) and program[j] != "\n":
        if program[j] == "\\":
            j += 2
            continue
        if program[j] == quote:
            return j if j > start + 1 or quote == '"' else None
        j += 1
    return None


def literal_commands(program: str) -> list[str]:
    """The commands an awk program gives as string literals (the others left out)."""
    return [text for site in SITES.finditer(program) for g in site.groups()
            if g is not None and g.startswith('"') and (text := unquote(g)) is not None]
