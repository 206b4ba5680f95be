"""Brace expansion done as bash does it, first and on the text: ``{find,/} -delete`` runs
``find / -delete``, ``{"$a",b}`` gives two words. tree-sitter-bash reads many such words wrongly
(``{\\s\\u,"$x"}`` becomes ``{`` and the rest), so the engine checks the expanded line as well.
"""

from __future__ import annotations

import itertools

from clawgate.lazyre import lazy_pattern
from clawgate.shell.quoting import HEREDOC, after_bodies

_ASSIGNMENT = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
_BREAKS = frozenset(" \t\n;|&<>()")
_STARTS_COMMAND = frozenset({";", "|", "&", "(", "\n", "&&", "||", ""})


def expand_line(line: str) -> str | None:
    """``line`` with every unquoted brace expansion (a comma list, a sequence ``{a..c}``) in a
    word expanded, or None when there is none. Comments and here-document bodies are not
    words: left as they are."""
    if "{" not in line or ("," not in line and ".." not in line):  # ({ :;}, ${x}: no scan)
        return None
    return _expanded(line)


def _expanded(line: str) -> str | None:
    """``expand_line`` by the scan of its words."""
    out: list[str] = []
    changed = False
    previous = ""
    for token, is_word in _tokens(line):
        if is_word and not (previous in _STARTS_COMMAND and _ASSIGNMENT.match(token)):
            alternatives = braces(token)
            if alternatives is not None and alternatives != [token]:  # {e..e}: one, changed
                out.append(" ".join(alternatives))
                changed = True
                previous = token
                continue
        out.append(token)
        if token.strip() or token == "\n":
            previous = token if not is_word or not _ASSIGNMENT.match(token) else previous
    return "".join(out) if changed else None


def _tokens(line: str) -> list[tuple[str, bool]]:
    """Words (True) and what lies between them (False): blanks, operators, comments."""
    found: list[tuple[str, bool]] = []
    pending: list[str] = []  # here-document delimiters whose bodies start at the next newline
    i = 0
    while i < len(line):
        ch = line[i]
        heredoc = HEREDOC.match(line, i) if line.startswith("<<", i) else None
        if heredoc is not None and not line.startswith("<<<", i):
            pending.append(heredoc.group(2))
            found.append((heredoc.group(0), False))
            i = heredoc.end()
        elif ch == "\n" and pending:
            end = after_bodies(line, i + 1, pending)
            found.append((line[i:end], False))
            pending, i = [], end
        elif ch == "#" and (not found or found[-1][0][-1:] in _BREAKS):
            end = line.find("\n", i)
            end = len(line) if end < 0 else end
            found.append((line[i:end], False))
            i = end
        elif ch in _BREAKS:
            j = i + 1
            while j < len(line) and line[j] in "|&" and ch in "|&" and j - i < 2:
                j += 1
            found.append((line[i:j], False))
            i = j
        else:
            end = _word_end(line, i)
            found.append((line[i:end], True))
            i = end
    return found


def _word_end(line: str, i: int) -> int:
    """Where the word starting at ``i`` ends: quotes, escapes and ``$( )``/``${ }``/backticks
    are part of it."""
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
        elif ch == "'":
            end = line.find("'", i + 1)
            i = len(line) if end < 0 else end + 1
        elif ch == '"':
            i = _double_end(line, i + 1)
        elif ch == "`":
            end = line.find("`", i + 1)
            i = len(line) if end < 0 else end + 1
        elif ch == "$" and line[i + 1 : i + 2] in ("(", "{"):
            i = _balanced(line, i + 1)
        elif ch in _BREAKS:
            return i
        else:
            i += 1
    return len(line)


def _double_end(line: str, i: int) -> int:
    while i < len(line):
        if line[i] == "\\":
            i += 2
        elif line[i] == '"':
            return i + 1
        elif line[i] == "$" and line[i + 1 : i + 2] in ("(", "{"):
            i = _balanced(line, i + 1)
        else:
            i += 1
    return len(line)


def _balanced(line: str, i: int) -> int:
    """The end of the bracketed part opening at ``i`` (quotes inside skipped)."""
    opening = line[i]
    closing = ")" if opening == "(" else "}"
    depth = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'" and opening == "(":
            end = line.find("'", i + 1)
            i = len(line) if end < 0 else end + 1
            continue
        if ch == '"':
            i = _double_end(line, i + 1)
            continue
        depth += (ch == opening) - (ch == closing)
        i += 1
        if depth == 0:
            return i
    return len(line)


def braces(text: str, budget: int = 64) -> list[str] | None:
    """``text`` after brace expansion (comma lists and sequences ``{a..e}``, ``{1..9..2}``, as
    bash does it first: quotes and ``${`` protect braces); None for a ``..`` that is no
    sequence bash makes here or more than ``budget`` words."""
    found = _brace_at(text)
    if found is None:
        return [text]
    start, commas, end = found
    if not commas and ".." in text[start:end]:
        items = sequence(text[start + 1 : end], budget)
        if items is None:
            return None
        out: list[str] = []
        for item in items:
            expanded = braces(text[:start] + item + text[end + 1 :], budget)
            if expanded is None or len(out) + len(expanded) > budget:
                return None
            out.extend(expanded)
        return out
    if not commas:  # {x}
        rest = braces(text[end + 1 :], budget)
        return None if rest is None else [text[: end + 1] + r for r in rest]
    bounds = [start, *commas, end]
    out = []
    for a, b in itertools.pairwise(bounds):
        expanded = braces(text[:start] + text[a + 1 : b] + text[end + 1 :], budget)
        if expanded is None or len(out) + len(expanded) > budget:
            return None
        out.extend(expanded)
    return out


def _brace_at(text: str) -> tuple[int, list[int], int] | None:
    """The first unquoted ``{`` with its matching ``}``, and its top-level commas."""
    if "{" not in text:
        return None  # the words of a line with a brace elsewhere: no scan
    i, depth, start, commas = 0, 0, -1, []
    quote = ""
    while i < len(text):
        ch = text[i]
        if ch == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            quote = "" if ch == quote[-1] else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "$" and text[i + 1 : i + 2] in ("(", "{"):
            i = _balanced(text, i + 1)
            continue
        elif ch == "`":
            close = text.find("`", i + 1)
            i = len(text) if close < 0 else close + 1
            continue
        elif ch == "{":
            depth += 1
            start = i if depth == 1 else start
        elif ch == "," and depth == 1:
            commas.append(i)
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                return start, commas, i
        i += 1
    return None


_SEQUENCE = lazy_pattern(r"^(?:([+-]?\d+)\.\.([+-]?\d+)|([A-Za-z])\.\.([A-Za-z]))"
                         r"(?:\.\.([+-]?\d+))?$")


def sequence(inner: str, budget: int) -> list[str] | None:
    """The words of bash's sequence expression ``{inner}`` (``1..10``, ``01..10`` zero-padded,
    ``z..a``, ``a..z..2``); None when ``inner`` is none bash makes (it then stays as written:
    not known here) or it has more than ``budget`` words."""
    found = _SEQUENCE.match(inner)
    if found is None:
        return None
    first, last, char_first, char_last, step_text = found.groups()
    step = abs(int(step_text or "1")) or 1
    if first is None:
        low, high = ord(char_first), ord(char_last)
    else:
        low, high = int(first), int(last)
    count = abs(high - low) // step + 1
    if count > budget:
        return None
    numbers = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
    if first is None:  # between Z and a lie [\]^_` (bash quotes them): not spelt out here
        letters = [chr(n) for n in numbers]
        return letters if all(c.isalpha() for c in letters) else None
    width = max(len(first), len(last)) if _padded(first) or _padded(last) else 0
    return [f"{n:0{width}d}" if width else str(n) for n in numbers]


def _padded(number: str) -> bool:
    """Bash pads a sequence to the widest bound when a bound starts with a zero (``01``)."""
    return len(number.lstrip("+-")) > 1 and number.lstrip("+-").startswith("0")
