"""The second opinion asked line by line: bashlex reads only the lines of a script that need it.

bashlex is pure Python (about 5 µs a character), and a line break alone makes a script need a
second opinion. When every line break of a script ends a command at the top level, though, each
physical line is a command list of its own, and reads in bashlex as it would inside the whole
script: then bashlex is asked only about the lines that need a second opinion (from the first
to the last of them), and the other lines keep tree-sitter's reading (as a one-line script of
plain words does).
"""

from __future__ import annotations

from collections.abc import Callable

from clawgate.lazyre import lazy_pattern
from clawgate.shell import differential
from clawgate.shell import model as m
from clawgate.shell.differential import CommandView
from clawgate.shell.quoting import HEREDOC, after_bodies

# Words that open or close compound commands, which may span lines.
_RESERVED = frozenset("if then else elif fi case esac for select while until do done in "
                      "function time coproc".split())
_TOKENS = lazy_pattern(r"[^\s;&|()<>]+")
_OPEN = frozenset("({[")
_CLOSE = frozenset(")}]")
_COMMENT_STARTS = frozenset(" \t\n;&|()<>")
_WORD_ENDS = _COMMENT_STARTS
# ``$(tty)`` or ``${HOME}`` inside double quotes: nothing inside that quotes or nests.
_SIMPLE_SUBSTITUTION = lazy_pattern(r"""\$\([^()"'`\\\n${}]*\)|\$\{[^()"'`\\\n${}]*\}""")
_CONTINUES = ("|", "&&", "||", "|&")  # a line ending or starting so goes on across the break
# Runs of characters that ``_Scan`` steps over one by one without a change, by the quote it is in.
_QUIET = {"": lazy_pattern(r"[^\\\n<#'\"`({\[)}\]]+"), "'": lazy_pattern(r"[^']+"),
          "$'": lazy_pattern(r"[^\\']+"), '"': lazy_pattern(r'[^\\`$\n"]+')}


def separate_lines(line: str) -> list[tuple[int, int]] | None:
    """Character spans of the physical lines of ``line`` when every line break in it ends a
    command at the top level (outside quotes, brackets, substitutions, here-documents and
    compound commands, and not after a pipe or ``&&``); None when that is not certain."""
    if "\n" not in line or not _RESERVED.isdisjoint(_TOKENS.findall(line)):
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
    when quoting nests in a way this scan does not follow (substitutions in double quotes).
    Here-document bodies belong to the line that opens them."""
    scan = _Scan(line)
    size = len(line)
    try:
        while scan.i < size:
            # A run of characters that change nothing in the current quoting is passed over
            # in one step; the others are taken one at a time.
            quiet = _QUIET[scan.quote].match(line, scan.i)
            if quiet is not None:
                scan.i = quiet.end()
            else:
                scan.i = scan.quoted() if scan.quote else scan.unquoted()
    except _Unsure:
        return None
    return None if scan.quote else scan.breaks


class _Unsure(Exception):
    """The scan cannot tell whether a line break ends a command."""


class _Scan:
    """Where the scan of a line stands: quoting, brackets, here-documents still to read."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.i = 0
        self.quote = ""  # ', $' or "
        self.depth = 0  # open ( { [
        self.backtick = False
        self.start = 0  # where the current physical line starts
        self.pending: list[str] = []  # here-document delimiters, bodies at the next break
        self.breaks: list[int] = []

    def quoted(self) -> int:
        """One step inside quotes; the index to go on from."""
        line, i, ch = self.line, self.i, self.line[self.i]
        if self.quote != '"':
            if self.quote == "$'" and ch == "\\":
                return i + 2
            self.quote = "" if ch == "'" else self.quote
            return i + 1
        if ch == "\\":
            return i + 2
        if ch == "`" or (ch == "$" and line.startswith(("$(", "${"), i)):
            found = _SIMPLE_SUBSTITUTION.match(line, i)
            if found is None:
                raise _Unsure  # quotes may nest inside: not followed here
            return found.end()
        if ch == "\n":
            raise _Unsure
        self.quote = "" if ch == '"' else self.quote
        return i + 1

    def unquoted(self) -> int:
        """One step outside quotes; the index to go on from."""
        line, i, ch = self.line, self.i, self.line[self.i]
        if ch == "\\":
            if line.startswith("\n", i + 1):
                raise _Unsure
            return i + 2
        if ch == "\n":
            return self.line_break()
        if line.startswith("<<", i):
            return self.here_document()
        if ch == "#" and (i == 0 or line[i - 1] in _COMMENT_STARTS):
            end = line.find("\n", i)
            return len(line) if end < 0 else end
        if ch in "'\"":
            self.quote = "$'" if ch == "'" and i and line[i - 1] == "$" else ch
        elif ch == "`":
            self.backtick = not self.backtick
        elif ch in _OPEN:
            self.depth += 1
        elif ch in _CLOSE:
            self.depth = max(self.depth - 1, 0)
        return i + 1

    def line_break(self) -> int:
        if self.depth or self.backtick:
            raise _Unsure
        i = self.i
        if self.pending:  # the bodies follow; the command ends where they do
            if self.line[self.start:i].rstrip().endswith(_CONTINUES):
                raise _Unsure
            i = after_bodies(self.line, i + 1, self.pending) - 1
            self.pending = []
            if self.line[i] != "\n":
                return len(self.line)  # the last body runs to the end
        self.breaks.append(i)
        self.start = i + 1
        return i + 1

    def here_document(self) -> int:
        if self.line.startswith("<<<", self.i):
            return self.i + 3  # a here-string: one word
        found = HEREDOC.match(self.line, self.i)
        if found is None or self.depth or self.backtick or (
                found.end() < len(self.line) and self.line[found.end()] not in _WORD_ENDS):
            raise _Unsure  # a delimiter written in pieces (<<E"OF"): not followed here
        self.pending.append(found.group(2))
        return found.end()


def bashlex_view_by_lines(parsed: m.ParsedLine,
                          needs: Callable[[str], bool]) -> list[CommandView]:
    """bashlex's reading of ``parsed`` where it is needed, tree-sitter's elsewhere: when the
    lines stand apart (``separate_lines``), bashlex is asked once, about the lines from the
    first to the last that ``needs`` a second opinion (one call, so one deadline, as for the
    whole line); the whole line goes to bashlex otherwise. Raises as ``bashlex_view``."""
    source = parsed.source
    spans = separate_lines(source)
    if spans is None or len(source) > differential.MAX_BASHLEX_CHARS or "((" in source:
        return differential.bashlex_view(source)  # which also says when it has no opinion
    mine = differential.tree_view(parsed)
    asked = [span for span in spans if needs(source[span[0]:span[1]])]
    if not asked:
        return mine
    start, end = asked[0][0], asked[-1][1]
    theirs = [(start + offset, words)
              for offset, words in differential.bashlex_view(source[start:end])]
    return [*(v for v in mine if v[0] < start), *theirs, *(v for v in mine if v[0] >= end)]
