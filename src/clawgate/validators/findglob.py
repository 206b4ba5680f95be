"""find's name patterns (``-name``, ``-path``, ``-wholename`` and their ``-i`` forms) read as
find reads them: fnmatch(3) without flags, so ``*`` and ``?`` match a slash and a leading dot,
a backslash makes the next character literal (``confi\\g`` is ``config``), and a bracket
expression may hold POSIX classes (``c[[:alpha:]].yml`` matches ``ci.yml``). Python's fnmatch
reads neither the backslash nor the classes. A pattern whose meaning depends on the locale (a
class not listed here, an equivalence class, a collating symbol) is uncertain: ``matches``
says None, and each caller takes the reading that keeps a protected path in.
"""

from __future__ import annotations

import re

_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z",
            "lower": "a-z", "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "xdigit": "0-9A-Fa-f",
            "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")}


def matches(pattern: str, subject: str, *, fold: bool = False) -> bool | None:
    """Whether find's fnmatch matches ``subject`` with ``pattern`` (``fold``: ignoring
    case, as ``-iname``); None when the pattern's meaning is uncertain here."""
    regex = _regex(pattern)
    if regex is None:
        return None
    flags = re.S | (re.I if fold else 0)
    return re.fullmatch(regex, subject, flags) is not None


def _regex(pattern: str) -> str | None:
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            out.append(re.escape(pattern[index + 1:index + 2] or "\\"))
            index += 2
        elif char == "*":
            out.append(".*")
            index += 1
        elif char == "?":
            out.append(".")
            index += 1
        elif char == "[":
            bracket = _bracket(pattern, index)
            if bracket is None:
                out.append(re.escape(char))
                index += 1
            elif isinstance(bracket, str):
                return None
            else:
                out.append(bracket[0])
                index = bracket[1]
        else:
            out.append(re.escape(char))
            index += 1
    return "".join(out)


def _bracket(pattern: str, start: int) -> tuple[str, int] | str | None:
    """The bracket expression at ``start`` as a regex class and the index after it; None when
    it is not closed (the ``[`` is literal); a text (why) when it is uncertain."""
    index = start + 1
    negate = pattern[index:index + 1] in ("!", "^")
    index += negate
    members: list[str] = []
    first = True
    while index < len(pattern):
        char = pattern[index]
        if char == "]" and not first:
            return "[" + ("^" if negate else "") + "".join(members) + "]", index + 1
        first = False
        if char == "[" and pattern[index + 1:index + 2] in (":", ".", "="):
            found = re.match(r"\[:(\w+):\]", pattern[index:])
            if found is None or found.group(1) not in _CLASSES:
                return "a class, a collating symbol or an equivalence class of the locale"
            members.append(_CLASSES[found.group(1)])
            index += found.end()
            continue
        if char == "\\" and index + 1 < len(pattern):
            members.append(re.escape(pattern[index + 1]))
            index += 2
            continue
        if char == "-" and members and pattern[index + 1:index + 2] not in ("]", ""):
            members.append("-")
        else:
            members.append(re.escape(char))
        index += 1
    return None
