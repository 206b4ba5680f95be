"""Where an awk program starts a command, and which command: ``system(CMD)``,
``CMD | getline``, ``print | CMD`` and ``|&`` coprocesses. Each command awk starts is the line
``sh -c`` runs, so a command given as a string literal is known as surely as ``sh -c 'CMD'``'s.

The reading is exact or it is nothing: every place where awk may start a command (any ``|``
that is not ``||``, any ``system(``) must be one of the sites read, and each site's command a
whole string literal (or a ``-v`` variable the line sets), or no command is known.
"""

from __future__ import annotations

import re

from clawgate.lazyre import lazy_pattern

_STRING = r'("(?:\\.|[^"\\])*")'
# Group 1 (or 2, 3) holds the command when it is a string literal; ``var`` a variable given
# to system(). A literal before ``| getline`` stands after what cannot be concatenated to it.
SITES = lazy_pattern(rf"\bsystem\s*\(\s*(?:{_STRING}\s*\)|(?P<var>[A-Za-z_]\w*)\s*\))?|"
                     rf"(?:(?:(?<=[(;{{}}\n])|^)[^\S\n]*{_STRING}\s*)?(?<!\|)\|\s*getline|"
                     rf"(?<![|])\|(?![|&])\s*(?!getline)(?:{_STRING}|[A-Za-z_]\w*)"
                     r"(?=\s*[;}\n)]|\s*$)|\|&")
# Every place awk may start a command: a pipe that is not ``||``, system(, ``|&``; looked for
# outside string literals and regular expressions (``split($0, a, "|")``, ``/a|b/``).
_STARTS = lazy_pattern(r"\bsystem\s*\(|(?<!\|)\|(?!\|)")
_STRINGS = lazy_pattern(r'"(?:\\.|[^"\\\n])*"')
_REGEXES = lazy_pattern(r"(?:^|(?<=[\s{(;,!~&|]))/(?:\\.|[^/\\\n])+/")
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
    """The program with its string literals' bodies and its regular expressions blanked,
    each character kept in its place."""
    def blank(found: re.Match[str]) -> str:
        text = found.group(0)
        return text[0] + " " * (len(text) - 2) + text[-1]

    return _REGEXES.sub(blank, _STRINGS.sub(blank, program))


def literal_commands(program: str) -> list[str]:
    """The commands an awk program gives as string literals (the others left out)."""
    return [text for site in SITES.finditer(program) for g in site.groups()
            if g is not None and g.startswith('"') and (text := unquote(g)) is not None]
