"""Parameter operators worked out on a value known exactly, as bash works them out.

``${x/p/r}``, ``${x//p/r}``, ``${x/#p/r}``, ``${x/%p/r}`` (replace the first, every, a leading,
a trailing match of the pattern), ``${x#p}``, ``${x##p}``, ``${x%p}``, ``${x%%p}`` (remove the
shortest or longest matching prefix or suffix), ``${x^}``, ``${x^^}``, ``${x,}``, ``${x,,}``,
``${x~}``, ``${x~~}``, ``${x@U}``, ``${x@u}``, ``${x@L}`` (case), ``${x:o}``, ``${x:o:l}``
(a slice) and ``${#x}`` (the length): ``x=/etc/shaXdow; f=${x/X/}`` holds ``/etc/shadow``,
and ``cat $f`` is that read. Patterns are bash's globs (``*``, ``?``, bracket expressions,
quoted and escaped characters literal). Only what is certain is done: a pattern or a
replacement holding an expansion, a tilde, an unquoted ``&`` (bash 5.2 puts the match there),
an extended glob, a pattern that matches the empty text in a replacement, single quotes inside
a double-quoted expansion (their meaning there depends on the shell's compatibility level),
a case change or a bracket range on text outside ASCII (the locale decides), or a value longer
than ``MAX_VALUE`` leaves the expansion unknown (None).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from clawgate.lazyre import lazy_pattern

# Set in an expansion's variables when the line may change how patterns match (``shopt -s
# nocasematch`` makes them ignore case, ``extglob`` adds forms): no pattern is worked out.
SHELL_OPTIONS = "\0shopt"
MAX_VALUE = 256  # characters of a value matched against a glob (each position is tried)
_NAME = lazy_pattern(r"(#?)([A-Za-z_]\w*|\d)(?:\[(\d+)\])?")
_SLICE = lazy_pattern(r":\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?")
_CASE = {"^^": str.upper, ",,": str.lower, "~~": str.swapcase, "@U": str.upper,
         "@L": str.lower}
_FIRST = {"^": str.upper, ",": str.lower, "~": str.swapcase, "@u": str.upper}
_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z",
            "lower": "a-z", "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "xdigit": "0-9A-Fa-f"}

Lookup = Callable[[str], str]


def operate(rest: str, lookup: Lookup, *, quoted: bool,
            patterns: bool = True) -> tuple[str, int] | None:
    """The value of the braced expansion ``rest`` starts with (``{x//a/b}…``) and the
    characters it spans, or None when it is not one of these operators or not known
    exactly. ``lookup`` gives a variable's value (and raises when it is not known);
    ``patterns=False``: the line may change how patterns match, none is worked out."""
    head = _NAME.match(rest, 1)
    if head is None:
        return None
    end = _closing(rest, head.end())
    if end is None:
        return None
    operator = rest[head.end():end]
    if quoted and "'" in operator:
        return None
    name = head.group(2) if head.group(3) is None else f"{head.group(2)}[{int(head.group(3))}]"
    if head.group(1):
        if operator:
            return None
        value = lookup(name)
        return (str(len(value)), end + 1) if value.isascii() else None
    if not operator or (not patterns and operator[0] in "#%/"):
        return None
    result = _apply(operator, lookup(name))
    return None if result is None else (result, end + 1)


def _closing(text: str, start: int) -> int | None:
    """Where the expansion's closing brace is; None at an expansion inside it."""
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char in "'\"":
            close = text.find(char, index + 1)
            if close < 0 or (char == '"' and any(c in text[index:close] for c in "$`\\")):
                return None
            index = close + 1
            continue
        if char in "$`{":
            return None
        if char == "}":
            return index
        index += 1
    return None


def _apply(operator: str, value: str) -> str | None:
    if operator in _CASE:
        return _CASE[operator](value) if value.isascii() else None
    if operator in _FIRST:
        return (_FIRST[operator](value[:1]) + value[1:]) if value.isascii() else None
    if operator.startswith(":"):
        return None if operator[1:2] in ("-", "=", "+", "?") else _slice(operator, value)
    if operator[0] in "#%":
        longest = operator[:2] in ("##", "%%")
        regex = _glob(operator[2 if longest else 1:], value)
        return None if regex is None else _trim(value, regex, operator[0] == "#", longest)
    if operator[0] == "/":
        return _replace(operator, value)
    return None


def _slice(operator: str, value: str) -> str | None:
    found = _SLICE.fullmatch(operator)
    if found is None or not value.isascii():
        return None
    size = len(value)
    offset = int(found.group(1))
    if offset < 0:
        offset += size
        if offset < 0:
            return ""
    if found.group(2) is None:
        return value[offset:]
    length = int(found.group(2))
    stop = size + length if length < 0 else offset + length
    if stop < offset:
        return None  # bash stops with an error: no command runs with it
    return value[offset:stop]


def _trim(value: str, regex: re.Pattern[str], prefix: bool, longest: bool) -> str:
    size = len(value)
    cuts = range(size, -1, -1) if longest == prefix else range(size + 1)
    for cut in cuts:
        if prefix and regex.fullmatch(value[:cut]):
            return value[cut:]
        if not prefix and regex.fullmatch(value[cut:]):
            return value[:cut]
    return value


def _replace(operator: str, value: str) -> str | None:
    mode = operator[1] if operator[1:2] in ("/", "#", "%") else ""
    body = operator[1 + len(mode):]
    split = _unquoted_slash(body)
    pattern, replacement = (body, "") if split is None else (body[:split], body[split + 1:])
    regex = _glob(pattern, value)
    text = _literal(replacement)
    if regex is None or text is None:
        return None
    if not pattern:
        return {"#": text + value, "%": value + text}.get(mode, value)
    if regex.fullmatch(""):
        return None
    size = len(value)
    if mode == "#":
        ends = [end for end in range(size, 0, -1) if regex.fullmatch(value[:end])]
        return text + value[ends[0]:] if ends else value
    if mode == "%":
        starts = [start for start in range(size) if regex.fullmatch(value[start:])]
        return value[:starts[0]] + text if starts else value
    out: list[str] = []
    position = 0
    while position < size:
        end = next((e for e in range(size, position, -1)
                    if regex.fullmatch(value[position:e])), None)
        if end is None:
            out.append(value[position])
            position += 1
            continue
        out.append(text)
        position = end
        if mode != "/":
            return "".join(out) + value[position:]
    return "".join(out)


def _unquoted_slash(text: str) -> int | None:
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
        elif char in "'\"":
            index = text.find(char, index + 1) + 1
        elif char == "/":
            return index
        else:
            index += 1
    return None


def _literal(text: str) -> str | None:
    """A replacement's characters after quote removal; None where bash would do more."""
    if text.startswith("~"):
        return None
    out: list[str] = []
    for char, literal in _characters(text):
        if not literal and char == "&":
            return None
        out.append(char)
    return "".join(out)


def _characters(text: str) -> list[tuple[str, bool]]:
    """Each character and whether quoting or a backslash made it literal."""
    found: list[tuple[str, bool]] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            found.append((text[index + 1], True))
            index += 2
        elif char in "'\"":
            close = text.find(char, index + 1)
            found += [(c, True) for c in text[index + 1:close]]
            index = close + 1
        else:
            found.append((char, False))
            index += 1
    return found


def _glob(pattern: str, value: str) -> re.Pattern[str] | None:
    """A bash pattern as a regular expression; None for what is not certain (see module)."""
    if pattern.startswith("~") or len(value) > MAX_VALUE:
        return None
    chars = _characters(pattern)
    out: list[str] = []
    index = 0
    while index < len(chars):
        char, literal = chars[index]
        following = chars[index + 1][0] if index + 1 < len(chars) else ""
        if literal:
            out.append(re.escape(char))
        elif char in "?*+@!" and following == "(":
            return None  # an extended glob
        elif char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "[":
            bracket = _bracket(chars, index, value)
            if isinstance(bracket, str):
                return None
            if bracket is not None:
                out.append(bracket[0])
                index = bracket[1]
                continue
            out.append(re.escape(char))
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out), re.S)


def _bracket(chars: list[tuple[str, bool]], start: int,
             value: str) -> tuple[str, int] | str | None:
    """The bracket expression at ``start`` as a regex class and the index after it; None when
    there is no closing ``]`` (the ``[`` is itself); a text (why) when it is not certain."""
    index = start + 1
    negate = index < len(chars) and chars[index][0] in "!^" and not chars[index][1]
    index += negate
    members: list[str] = []
    ranged = False
    first = True
    while index < len(chars):
        char, literal = chars[index]
        if char == "]" and not first and not literal:
            if ranged and not value.isascii():
                return "a range outside ASCII"
            return ("[" + ("^" if negate else "") + "".join(members) + "]", index + 1)
        first = False
        if char == "[" and not literal and index + 1 < len(chars) and chars[index + 1][0] in ":.=":
            text = "".join(c for c, _ in chars[index:])
            found = re.match(r"\[:(\w+):\]", text)
            if found is None or found.group(1) not in _CLASSES or not value.isascii():
                return "a class the locale decides"
            members.append(_CLASSES[found.group(1)])
            index += found.end()
            continue
        if (char == "-" and not literal and members and index + 1 < len(chars)
                and chars[index + 1][0] != "]"):
            members.append("-")
            ranged = True
        else:
            members.append(re.escape(char))
        index += 1
    return None
