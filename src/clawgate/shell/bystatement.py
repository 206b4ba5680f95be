"""The parser differential one statement at a time, for a line bashlex cannot take whole.

bashlex has no opinion on a line holding a construct it does not implement (``$(( ))``,
``[[ ]]``, some here-documents): asked about the whole line, that one part would hide every
other part's disagreement. Each top-level statement is asked alone instead, and a compound one
that bashlex cannot take (a subshell, a group, a list, a loop) is split into its statements in
turn, so that wrapping a line in ``( … )`` or ``{ …; }`` hides nothing either.
"""

from __future__ import annotations

from collections.abc import Callable

from clawgate.lazyre import lazy_pattern
from clawgate.shell import model as m
from clawgate.shell.differential import (
    CommandView,
    Disagreement,
    GaveUp,
    Rejected,
    Unavailable,
    bashlex_view,
    compare,
)
from clawgate.shell.quoting import HEREDOC, after_bodies

_SPLIT = frozenset({"program", "subshell", "compound_statement", "list", "pipeline",
                    "negated_command", "redirected_statement", "if_statement", "elif_clause",
                    "else_clause", "while_statement", "for_statement", "do_group",
                    "function_definition", "case_statement", "case_item"})
_SKIP = frozenset({"comment", "heredoc_body", "heredoc_start", "heredoc_end"})
_UNREADABLE = lazy_pattern(r"\(\(|\[\[")  # arithmetic and [[ ]]: bashlex implements neither
MAX_ASKED = 64  # statements asked about in one line (bashlex costs ~0.2 ms a statement)


def compare_by_statement(parsed: m.ParsedLine,
                         needs: Callable[[str], bool]) -> Disagreement | None:
    """``compare`` over the statements bashlex can read, or None when it reads none (GaveUp
    when it runs out of time on one). Only
    statements for which ``needs(text)`` is true are asked about (the others read alike). On a
    line tree-sitter cannot parse cleanly, only the statements it parsed cleanly are compared:
    a broken part does not switch the comparison off for the rest."""
    from clawgate.shell.treesitter import parser

    source = parsed.source
    src = source.encode("utf-8", "surrogateescape")
    chars = _Chars(src, len(src) == len(source))
    views: list[CommandView] = []
    covered: list[tuple[int, int]] = []
    tree = parser().parse(src)  # held while its nodes are walked: they do not keep it alive
    pending = [tree.root_node]
    asked = 0
    while pending and asked < MAX_ASKED:
        node = pending.pop()
        for child in node.named_children:
            if child.type in _SKIP:
                continue
            if child.has_error:
                if child.type in _SPLIT:
                    pending.append(child)
                continue
            start = chars.at(child.start_byte)
            end = _with_bodies(source, start, chars.at(child.end_byte))
            text = source[start:end]
            if not needs(text):
                continue
            if child.type in _SPLIT and _UNREADABLE.search(text):
                pending.append(child)  # bashlex would refuse it: ask about its parts
                continue
            asked += 1
            try:
                view = bashlex_view(text)
            except GaveUp:
                raise  # no second opinion where one was needed: the caller asks
            except (Unavailable, Rejected):
                if child.type in _SPLIT:
                    pending.append(child)
                continue
            views.extend((offset + start, words) for offset, words in view)
            covered.append((start, end))
    return compare(parsed, views, within=covered) if covered else None


def _with_bodies(source: str, start: int, end: int) -> int:
    """Where a statement ends with the bodies of its here-documents, which tree-sitter leaves
    out of a statement inside a list or a pipeline (bashlex refuses it without them)."""
    found = [d for d in HEREDOC.finditer(source, start, end)
             if source[d.start() - 1 : d.start()] != "<"]
    newline = source.find("\n", end)
    if not found or newline < 0 or "\n" in source[found[-1].end() : end]:
        return end  # no here-document, or its body is in the statement already
    delimiters = [d.group(2) for d in found]
    return max(end, after_bodies(source, newline + 1, delimiters))


class _Chars:
    """Byte offsets to character offsets (the same on an ASCII line)."""

    def __init__(self, src: bytes, ascii_only: bool) -> None:
        self.src = src
        self.ascii_only = ascii_only

    def at(self, byte: int) -> int:
        if self.ascii_only:
            return byte
        return len(self.src[:byte].decode("utf-8", "surrogateescape"))


def rejected_by_statement(parsed: m.ParsedLine) -> bool:
    """Some statement tree-sitter cannot parse is rejected by bashlex too, asked on its own:
    for a line bashlex has no opinion on as a whole (``(( ))`` or ``[[ ]]`` elsewhere in it),
    so that such a part cannot soften "neither parser accepts it" for the rest."""
    from clawgate.shell.treesitter import parser

    source = parsed.source
    src = source.encode("utf-8", "surrogateescape")
    chars = _Chars(src, len(src) == len(source))
    tree = parser().parse(src)  # held while its nodes are walked: they do not keep it alive
    pending = [tree.root_node]
    asked = 0
    while pending and asked < MAX_ASKED:
        node = pending.pop()
        for child in node.named_children:
            if child.type in _SKIP or not child.has_error:
                continue
            start = chars.at(child.start_byte)
            text = source[start:_with_bodies(source, start, chars.at(child.end_byte))]
            if child.type in _SPLIT and _UNREADABLE.search(text):
                pending.append(child)
                continue
            asked += 1
            try:
                bashlex_view(text)
            except Rejected:
                return True
            except GaveUp:
                return False
            except Unavailable:
                if child.type in _SPLIT:
                    pending.append(child)
    return False
