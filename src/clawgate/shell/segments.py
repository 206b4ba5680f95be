"""The second opinion asked line by line: bashlex reads only the lines of a script that need it.

bashlex is pure Python (about 5 µs a character), and a line break alone makes a script need a
second opinion. When every line break of a script ends a command at the top level, though, each
physical line is a command list of its own, and reads in bashlex as it would inside the whole
script: then bashlex is asked only about the runs of lines that need a second opinion, and the
other lines keep tree-sitter's reading (as a one-line script of plain words does).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from clawgate.shell import differential
from clawgate.shell import model as m
from clawgate.shell.differential import CommandView

# Words that open or close compound commands, which may span lines.
_RESERVED = frozenset("if then else elif fi case esac for select while until do done in "
                      "function time coproc".split())
_TOKENS = re.compile(r"[^\s;&|()<>]+")
_OPEN = frozenset("({[")
_CLOSE = frozenset(")}]")
_COMMENT_STARTS = frozenset(" \t\n;&|()<>")
# ``$(tty)`` or ``${HOME}`` inside double quotes: nothing inside that quotes or nests.
_SIMPLE_SUBSTITUTION = re.compile(r"""\$\([^()"'`\\\n${}]*\)|\$\{[^()"'`\\\n${}]*\}""")
_CONTINUES = ("|", "&&", "||", "|&")  # a line ending or starting so goes on across the break


def separate_lines(line: str) -> list[tuple[int, int]] | None:
    """Character spans of the physical lines of ``line`` when every line break in it ends a
    command at the top level (outside quotes, brackets, substitutions, here-documents and
    compound commands, and not after a pipe or ``&&``); None when that is not certain."""
    if "\n" not in line or "<<" in line or not _RESERVED.isdisjoint(_TOKENS.findall(line)):
        return None
    breaks = _top_level_breaks(line)
    if breaks is None:
        return None
    spans, start = [], 0
    for end in [*breaks, len(line)]:
        text = line[start:end].strip()
        if text.endswith(_CONTINUES) or text.startswith(_CONTINUES):
            return None
        spans.append((start, end))
        start = end + 1
    return spans


def _top_level_breaks(line: str) -> list[int] | None:
    """Offsets of the line breaks outside every quote and bracket; None when one is inside, or
    when quoting nests in a way this scan does not follow (substitutions in double quotes)."""
    breaks: list[int] = []
    depth, quote, backtick, i = 0, "", False, 0
    while i < len(line):
        ch = line[i]
        if quote in ("'", "$'"):
            if quote == "$'" and ch == "\\":
                i += 1
            elif ch == "'":
                quote = ""
        elif ch == "\\":
            if line.startswith("\n", i + 1):
                return None
            i += 1
        elif quote == '"':
            if ch == '"':
                quote = ""
            elif ch == "`" or (ch == "$" and line.startswith(("$(", "${"), i)):
                found = _SIMPLE_SUBSTITUTION.match(line, i)
                if found is None:
                    return None  # quotes may nest inside: not followed here
                i = found.end()
                continue
            elif ch == "\n":
                return None
        elif ch == "\n":
            if depth or backtick:
                return None
            breaks.append(i)
        elif ch == "#" and (i == 0 or line[i - 1] in _COMMENT_STARTS):
            end = line.find("\n", i)
            i = len(line) if end < 0 else end
            continue
        elif ch in "'\"":
            quote = "$'" if ch == "'" and i and line[i - 1] == "$" else ch
        elif ch == "`":
            backtick = not backtick
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(depth - 1, 0)
        i += 1
    return None if quote else breaks


def bashlex_view_by_lines(parsed: m.ParsedLine,
                          needs: Callable[[str], bool]) -> list[CommandView]:
    """bashlex's reading of ``parsed``, asked only about the runs of lines that ``needs`` a
    second opinion when the lines stand apart (``separate_lines``); tree-sitter's reading of
    the other lines. The whole line goes to bashlex otherwise. Raises as ``bashlex_view``."""
    source = parsed.source
    spans = separate_lines(source)
    if spans is None:
        return differential.bashlex_view(source)
    if len(source) > differential.MAX_BASHLEX_CHARS or "((" in source:
        return differential.bashlex_view(source)  # no opinion, as for the whole line
    mine = differential.tree_view(parsed)
    found: list[CommandView] = []
    run: list[tuple[int, int]] = []
    for span in [*spans, (len(source) + 1, len(source) + 1)]:  # a sentinel ends the last run
        if span[0] <= len(source) and needs(source[span[0]:span[1]]):
            run.append(span)
            continue
        if run:
            start, end = run[0][0], run[-1][1]
            found += [(start + offset, words)
                      for offset, words in differential.bashlex_view(source[start:end])]
            run = []
        found += [view for view in mine if span[0] <= view[0] < span[1]]
    return found
