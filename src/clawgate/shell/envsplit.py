"""How GNU ``env -S STRING`` (``--split-string``) splits its string into arguments, which env then
reads as if they had been given on its command line (options, ``NAME=VALUE``, the command and its
arguments): coreutils' ``env.c`` rules, not a shell's.

- blanks (space, tab, newline, vertical tab, form feed, carriage return) separate arguments;
- ``'…'`` is literal but for ``\\\\`` and ``\\'``; ``"…"`` takes the escapes below;
- escapes: ``\\f \\n \\r \\t \\v`` those characters, ``\\# \\$ \\\\ \\" \\'`` the character,
  ``\\_`` a space inside double quotes and an argument separator outside them, ``\\c`` ends
  the string (only outside quotes);
- ``#`` at the start of an argument starts a comment to the end of the string;
- ``${NAME}`` is NAME's value in env's environment (outside single quotes).

Nothing else is special: no tilde, glob, ``$(…)``, ``;`` or ``|``. A string env refuses (an
unknown escape, ``$NAME`` without braces, an open quote) or one holding ``${NAME}``, whose value
is not known here, gives None.
"""

from __future__ import annotations

_BLANKS = " \t\n\v\f\r"
_CONTROL = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_LITERAL = "#$\\\"'"


def env_split(text: str) -> list[str] | None:
    """The arguments env makes of ``text``, or None where env refuses it or a variable's value
    would be needed."""
    args: list[str] = []
    current: list[str] = []
    started = False  # an argument is open (even an empty quoted one)
    quote = ""
    at = 0
    while at < len(text):
        char = text[at]
        at += 1
        if quote == "'":
            at, quote = _single_quoted(text, at, char, current)
            continue
        if char == "\\":
            if at >= len(text) or (text[at] == "c" and not quote):
                return None if at >= len(text) else _closed(args, current, started)
            escape = text[at]
            at += 1
            if escape == "_" and not quote:
                if started:
                    args.append("".join(current))
                    current, started = [], False
                continue
            found = " " if escape == "_" else _CONTROL.get(escape) or (
                escape if escape in _LITERAL else None)
            if found is None:
                return None
            current.append(found)
            started = True
        elif char == "$":
            return None  # ${NAME}: a value of env's environment; $NAME: refused by env
        elif quote == '"':
            if char == '"':
                quote = ""
            else:
                current.append(char)
        elif char in _BLANKS:
            if started:
                args.append("".join(current))
                current, started = [], False
        elif char == "#" and not started:
            break
        else:
            if char in "'\"":
                quote = char
            else:
                current.append(char)
            started = True
    return None if quote else _closed(args, current, started)


def _single_quoted(text: str, at: int, char: str, current: list[str]) -> tuple[int, str]:
    """One character inside single quotes: (where reading goes on, the quote still open)."""
    if char == "'":
        return at, ""
    if char == "\\" and at < len(text) and text[at] in "\\'":
        current.append(text[at])
        return at + 1, "'"
    current.append(char)
    return at, "'"


def _closed(args: list[str], current: list[str], started: bool) -> list[str]:
    return [*args, "".join(current)] if started else args
