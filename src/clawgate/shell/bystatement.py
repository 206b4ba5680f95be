"""The parser differential one statement at a time, for a line bashlex cannot take whole.

bashlex has no opinion on a line holding a construct it does not implement (``$(( ))``,
``[[ ]]``, some here-documents): asked about the whole line, that one part would hide every
other part's disagreement. Each top-level statement is asked alone instead, and a compound one
that bashlex cannot take (a subshell, a group, a list, a loop) is split into its statements in
turn, so that wrapping a line in ``( … )`` or ``{ …; }`` hides nothing either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_sitter import Node

_SPLIT = frozenset({"program", "subshell", "compound_statement", "list", "pipeline",
                    "negated_command", "redirected_statement", "if_statement", "elif_clause",
                    "else_clause", "while_statement", "for_statement", "do_group",
                    "function_definition", "case_statement", "case_item"})
_SKIP = frozenset({"comment", "heredoc_body", "heredoc_start", "heredoc_end"})
_UNREADABLE = lazy_pattern(r"\(\(|\[\[")  # arithmetic and [[ ]]: bashlex implements neither
# Statement lists, and what may stand between their statements outside of every statement.
_LISTS = frozenset({"program", "list", "pipeline", "compound_statement", "subshell"})
_BETWEEN = " \t\n;&|(){}!"
MAX_ASKED = 64  # statements asked about in one line (bashlex costs ~0.2 ms a statement)


class _Statement:
    """One statement of the walk: its node and its text (with its here-document bodies)."""

    __slots__ = ("end", "node", "start", "text")

    def __init__(self, node: Node, start: int, end: int, text: str) -> None:
        self.node, self.start, self.end, self.text = node, start, end, text


class _Walk:
    """The statements of a line, outermost first. ``split`` queues a compound statement's
    parts, walked after the current level; ``dropped`` is set where tree-sitter left text of a
    statement list out of every statement (``((1)); \\ ls`` reads as ``ls``)."""

    def __init__(self, parsed: m.ParsedLine) -> None:
        from clawgate.shell.treesitter import tree_of

        self.source = parsed.source
        src = self.source.encode("utf-8", "surrogateescape")
        self.chars = _Chars(src, len(src) == len(self.source))
        self.tree = tree_of(src)  # held while its nodes are walked: they need it alive
        self.pending = [self.tree.root_node]
        self.asked = 0
        self.dropped: Disagreement | None = None

    def __iter__(self) -> Iterator[_Statement]:
        while self.pending and self.asked < MAX_ASKED:
            node = self.pending.pop()
            # where the text between siblings starts (the line's start for the line itself)
            after = 0 if node.parent is None else self.chars.at(node.start_byte)
            for child in node.named_children:
                start = self.chars.at(child.start_byte)
                end = _with_bodies(self.source, start, self.chars.at(child.end_byte))
                if node.type in _LISTS and self.dropped is None:
                    self._look_between(after, start)
                after = max(after, end)
                if child.type not in _SKIP:
                    yield _Statement(child, start, end, self.source[start:end])

    def split(self, statement: _Statement) -> bool:
        """Queue ``statement``'s parts; False when it has none to ask about. tree-sitter reads
        ``(( … ))`` as a compound statement of expressions: those are no commands."""
        node = statement.node
        if node.type in _SPLIT and not (node.type == "compound_statement"
                                        and statement.text.startswith("((")):
            self.pending.append(node)
            return True
        return False

    def _look_between(self, after: int, start: int) -> None:
        between = self.source[after:start].replace("\\\n", "")  # continuations join lines
        if between.strip(_BETWEEN):
            self.dropped = Disagreement(after, f"tree-sitter leaves {between.strip()!r} out of "
                                               "every command")


def compare_by_statement(parsed: m.ParsedLine,
                         needs: Callable[[str], bool]) -> Disagreement | None:
    """``compare`` over the statements bashlex can read, or None when it reads none (GaveUp
    when it runs out of time on one). Only statements for which ``needs(text)`` is true are
    asked about (the others read alike). On a line tree-sitter cannot parse cleanly, only the
    statements it parsed cleanly are compared: a broken part does not switch the comparison off
    for the rest. Text of a statement list that tree-sitter puts in no statement is itself a
    disagreement."""
    walk = _Walk(parsed)
    views: list[CommandView] = []
    covered: list[tuple[int, int]] = []
    for statement in walk:
        if statement.node.has_error:
            walk.split(statement)
            continue
        if not needs(statement.text):
            continue
        if _UNREADABLE.search(statement.text) and walk.split(statement):
            continue  # bashlex would refuse it: ask about its parts
        walk.asked += 1
        try:
            view = bashlex_view(statement.text)
        except GaveUp:
            raise  # no second opinion where one was needed: the caller asks
        except (Unavailable, Rejected):
            walk.split(statement)
            continue
        views.extend((offset + statement.start, words) for offset, words in view)
        covered.append((statement.start, statement.end))
    if walk.dropped is not None:
        return walk.dropped
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
    walk = _Walk(parsed)
    for statement in walk:
        if not statement.node.has_error:
            continue
        if _UNREADABLE.search(statement.text) and walk.split(statement):
            continue
        walk.asked += 1
        try:
            bashlex_view(statement.text)
        except Rejected:
            return True
        except GaveUp:
            return False
        except Unavailable:
            walk.split(statement)
    return False
