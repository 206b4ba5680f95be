"""The parser differential one statement at a time, for a line bashlex cannot take whole.

bashlex has no opinion on a line holding a construct it does not implement (``$(( ))``,
``[[ ]]``, some here-documents): asked about the whole line, that one part would hide every
other part's disagreement. Each top-level statement is asked alone instead, and a compound one
that bashlex cannot take (a subshell, a group, a list, a loop) is split into its statements in
turn, so that wrapping a line in ``( … )`` or ``{ …; }`` hides nothing either. Where
tree-sitter's error recovery does not see the subshell that a broken statement ends with (it
closes it early, at a ``case`` pattern's ``)``, or makes one error of the whole), the subshell's
body is read again as a line of its own: what it would be without the ``( … )`` around it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from clawgate.lazyre import lazy_pattern
from clawgate.shell import model as m
from clawgate.shell import parse
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
MAX_BODIES = 4  # subshell bodies read again as lines of their own, per line
MAX_DEPTH = 2  # and within those, bodies of bodies
_OPENER_PARENTS = frozenset({"subshell", "ERROR"})
# Words bash reads as keywords wherever a command may start: never a command's name to bash.
_KEYWORDS = frozenset("if then else elif fi case esac for select while until do done in "
                      "function time coproc".split())


# Parts of a compound command that are words, not statements: a loop's variable and the
# words it runs over, the word a ``case`` tests and its patterns (by tree-sitter's field names).
_WORD_FIELDS = frozenset({"variable", "value"})
_WORD_PARENTS = frozenset({"for_statement", "case_statement", "case_item"})
_SUBSTITUTION = lazy_pattern(r"\$\(|`|[<>]\(")
_AS_WORD = ": "  # bashlex is asked about a word as the operand of ``:``


class _Statement:
    """One statement of the walk: its node and its text (with its here-document bodies).
    ``word``: a word of a compound command (``for f in WORDS``), not a statement."""

    __slots__ = ("end", "node", "start", "text", "word")

    def __init__(self, node: Node, start: int, end: int, text: str, word: bool = False) -> None:
        self.node, self.start, self.end, self.text = node, start, end, text
        self.word = word

    def asked(self) -> str | None:
        """The text bashlex is asked about: the statement, or a word as ``: WORD`` when it
        holds a substitution (whose commands are compared; a bare word holds none)."""
        if not self.word:
            return self.text
        return _AS_WORD + self.text if _SUBSTITUTION.search(self.text) else None

    def view(self, text: str) -> list[CommandView]:
        """bashlex's commands of the statement, placed in the line; a word's ``:`` left out."""
        shift = self.start - (len(_AS_WORD) if self.word else 0)
        return [(offset + shift, words) for offset, words in bashlex_view(text)
                if not (self.word and offset == 0)]


class _Walk:
    """The statements of a line, outermost first. ``split`` queues a compound statement's
    parts, walked after the current level; ``dropped`` is set where tree-sitter left text of a
    statement list out of every statement (``((1)); \\ ls`` reads as ``ls``)."""

    def __init__(self, parsed: m.ParsedLine) -> None:
        from clawgate.shell.treesitter import tree_of

        self.source = parsed.source
        # what tree-sitter parsed: a keyword the reading blanked in it (``time`` or ``coproc``
        # before a compound command, ``prefixed.py``) is no text it left out
        self.parsed_text = parsed.shape or parsed.source
        src = self.source.encode("utf-8", "surrogateescape")
        self.chars = _Chars(src, len(src) == len(self.source))
        shape = src if parsed.shape is None else parsed.shape.encode("utf-8", "surrogateescape")
        self.tree = tree_of(shape)  # held while its nodes are walked: they need it alive
        self.pending = [self.tree.root_node]
        self.asked = 0
        self.dropped: Disagreement | None = None

    def __iter__(self) -> Iterator[_Statement]:
        while self.pending and self.asked < MAX_ASKED:
            node = self.pending.pop()
            # where the text between siblings starts (the line's start for the line itself)
            after = 0 if node.parent is None else self.chars.at(node.start_byte)
            words = node.type in _WORD_PARENTS
            for index, child in enumerate(node.children):
                if not child.is_named:
                    continue
                start = self.chars.at(child.start_byte)
                end = _with_bodies(self.source, start, self.chars.at(child.end_byte))
                if node.type in _LISTS and self.dropped is None:
                    self._look_between(after, start)
                after = max(after, end)
                if child.type not in _SKIP:
                    word = words and node.field_name_for_child(index) in _WORD_FIELDS
                    yield _Statement(child, start, end, self.source[start:end], word)

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
        between = self.parsed_text[after:start].replace("\\\n", "")  # continuations join lines
        if between.strip(_BETWEEN):
            self.dropped = Disagreement(after, f"tree-sitter leaves {between.strip()!r} out of "
                                               "every command")


def compare_by_statement(parsed: m.ParsedLine, needs: Callable[[str], bool],
                         depth: int = 0) -> Disagreement | None:
    """``compare`` over the statements bashlex can read, or None when it reads none (GaveUp
    when it runs out of time on one). Only statements for which ``needs(text)`` is true are
    asked about (the others read alike). On a line tree-sitter cannot parse cleanly, only the
    statements it parsed cleanly are compared: a broken part does not switch the comparison off
    for the rest. Text of a statement list that tree-sitter puts in no statement is itself a
    disagreement, and so is a command tree-sitter names with a keyword that bashlex rejects
    alone (``_keyword_command``); so is one in a subshell's body read as a line of its own
    (``subshell_bodies``)."""
    walk = _Walk(parsed)
    views: list[CommandView] = []
    covered: list[tuple[int, int]] = []
    misread: Disagreement | None = None
    for statement in walk:
        if statement.node.has_error and not statement.word:
            walk.split(statement)
            continue
        text = statement.asked()
        if text is None or not needs(statement.text):
            continue
        if _UNREADABLE.search(statement.text) and walk.split(statement):
            continue  # bashlex would refuse it: ask about its parts
        walk.asked += 1
        try:
            view = statement.view(text)
        except GaveUp:
            raise  # no second opinion where one was needed: the caller asks
        except Rejected:
            misread = misread or _keyword_command(statement)
            walk.split(statement)
            continue
        except Unavailable:
            walk.split(statement)
            continue
        views.extend(view)
        covered.append((statement.start, statement.end))
    if walk.dropped is not None or misread is not None:
        return walk.dropped or misread
    found = compare(parsed, views, within=covered) if covered else None
    if found is None and depth < MAX_DEPTH:
        for offset, body in subshell_bodies(parsed):
            inner = compare_line(parse(body), needs, depth + 1)
            if inner is not None:
                return Disagreement(offset + inner.offset, inner.detail)
    return found


def _keyword_command(statement: _Statement) -> Disagreement | None:
    """A simple command tree-sitter names with a keyword (``fi``, ``then :``, ``if x`` cut
    from its ``then``), which bashlex rejects alone: bash never runs a command of that name,
    so tree-sitter has cut a compound command where bash does not (``! if a & b; then :; fi``
    read as ``! if a``, ``b``, ``then :``, ``fi``)."""
    node = statement.node
    name = node.child_by_field_name("name") if node.type == "command" else None
    if name is None or statement.text[: name.end_byte - node.start_byte] not in _KEYWORDS:
        return None
    return Disagreement(statement.start, "tree-sitter reads the keyword "
                        f"{statement.text.split()[0]!r} as a command")


def compare_line(parsed: m.ParsedLine, needs: Callable[[str], bool],
                 depth: int = 0) -> Disagreement | None:
    """The parser differential on a whole line: bashlex asked about the line (its lines
    apart where they stand apart), or statement by statement where tree-sitter cannot parse
    it or bashlex cannot take it whole. Raises GaveUp where bashlex runs out of time."""
    from clawgate.shell.segments import bashlex_view_by_lines

    if not needs(parsed.source):
        return None
    if parsed.has_error:  # compare the statements tree-sitter did parse
        return compare_by_statement(parsed, needs, depth)
    try:
        return compare(parsed, bashlex_view_by_lines(parsed, needs))
    except GaveUp:
        raise  # it loops on this text: asking again part by part would loop again
    except (Unavailable, Rejected):
        # bashlex has no opinion on the whole line: ask it about each statement, so that
        # one part it cannot read does not hide another part's disagreement.
        return compare_by_statement(parsed, needs, depth)


def subshell_bodies(parsed: m.ParsedLine) -> list[tuple[int, str]]:
    """(offset, text) of the subshells a top-level statement that tree-sitter cannot parse
    opens and ends with: from each ``(`` that opens one to the statement's last ``)``, where
    tree-sitter's own subshell ends elsewhere or is not there. ``a | ( ! case $x in a|b) :;;
    esac )`` is such a line: tree-sitter closes the subshell at ``b)``, and its broken
    statements are not those of the body alone."""
    walk = _Walk(parsed)
    found: list[tuple[int, str]] = []
    for statement in walk:  # the top level only: nothing is split
        text = statement.text.rstrip()
        if not statement.node.has_error or not text.endswith(")"):
            continue
        close = statement.start + len(text) - 1
        for opener in _openers(statement.node):
            start = walk.chars.at(opener.start_byte) + 1
            parent = opener.parent
            own_end = walk.chars.at(parent.end_byte) - 1 if parent is not None else -1
            if start < close and (parent is None or parent.type != "subshell"
                                  or own_end != close):
                found.append((start, parsed.source[start:close]))
            if len(found) >= MAX_BODIES:
                return found
    return found


def _openers(node: Node) -> Iterator[Node]:
    """The ``(`` tokens under ``node`` that open a subshell (or may: in an error)."""
    stack = [node]
    while stack:
        current = stack.pop()
        for child in reversed(current.children):
            if child.type == "(" and current.type in _OPENER_PARENTS:
                yield child
            elif child.child_count:
                stack.append(child)


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


def rejected(parsed: m.ParsedLine, depth: int = 0) -> bool:
    """bashlex rejects the line, or, where it has no opinion on the whole, a statement of it
    that tree-sitter cannot parse (``rejected_by_statement``)."""
    try:
        bashlex_view(parsed.source)
    except Rejected:
        return True
    except GaveUp:
        return False
    except Unavailable:  # no opinion on the whole: ask about the broken parts
        return rejected_by_statement(parsed, depth)
    return False


def rejected_by_statement(parsed: m.ParsedLine, depth: int = 0) -> bool:
    """Some statement tree-sitter cannot parse is rejected by bashlex too, asked on its own:
    for a line bashlex has no opinion on as a whole (``(( ))`` or ``[[ ]]`` elsewhere in it),
    so that such a part cannot soften "neither parser accepts it" for the rest. A subshell's
    body that tree-sitter does not see whole is asked about as a line of its own."""
    walk = _Walk(parsed)
    for statement in walk:
        text = statement.asked()
        if not statement.node.has_error or text is None:
            continue
        if _UNREADABLE.search(statement.text) and walk.split(statement):
            continue
        walk.asked += 1
        try:
            bashlex_view(text)
        except Rejected:
            return True
        except GaveUp:
            return False
        except Unavailable:
            walk.split(statement)
    if depth >= MAX_DEPTH:
        return False
    for _, body in subshell_bodies(parsed):
        inner = parse(body)
        if inner.has_error and rejected(inner, depth + 1):
            return True
    return False
