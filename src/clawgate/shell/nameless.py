"""Simple commands of assignments and redirections alone (``x=1 >f``), read as bash reads them.

Bash runs such a command as it stands: it makes the assignments, opens the redirections, and
runs no program. Its newline ends it, as it ends every simple command. tree-sitter-bash wants a
name after a prefix that holds a redirection: alone, it reads a MISSING name (an error: the
line does not parse); with a line after it, it crosses the newline and takes that line's words
as the command's name and arguments (``x=1 >f`` then ``rm -rf ~`` read as one command, ``x=1
>f rm -rf ~``; ``x=1 >f`` then ``true`` as ``x=1 >f true``).

``cut`` gives a text of the same length for tree-sitter to parse in place of the line: each
such prefix that tree-sitter runs on past its newline is written as a placeholder command, ``:``
and ``_`` over the prefix's bytes, which ends at the newline as bash's command does and stands
where it stood (in a pipeline, a list, a group, a function). The walker reads each placeholder
from the line itself, apart (``prefix_tree``): the assignments and redirections of a command
with no words, their substitutions included. A prefix alone that an operator follows (``x=1
>f | cat``, ``x=1 >f && ls``), which tree-sitter cannot end and reads as an error, is written
so too. ``missing_name`` tells the walker which MISSING names are such commands (``x=1 >f`` at
the end of a line): read the same way, an error no longer.

Bash never reads a simple command across an unquoted newline (continuations are joined before
any reading; a here-document's body is inside its redirection, and a prefix holding one is left
as it is), so a placeholder only ends a command where bash ends it.
"""

from __future__ import annotations

from functools import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_sitter import Node, Query, Tree

MAX_NODES = 20_000  # nodes looked at per line; a larger tree is left as it is
MAX_ROUNDS = 4  # readings of the line, each writing the prefixes the last one showed
PLACEHOLDER = ord(":")  # the first byte of a placeholder; "_" over the rest
_PREFIX = frozenset({"variable_assignment", "file_redirect", "herestring_redirect"})
# What may follow such a prefix that tree-sitter cannot place (only an operator: a word there
# would be the command's name to bash)
_OPERATORS = frozenset({b"|", b"|&", b"||", b"&&", b"&", b";"})


def cut(line: str) -> str | None:
    """``line`` with each prefix that tree-sitter reads on past its newline written as a
    placeholder (the same length: every offset holds), or None when there is none."""
    from clawgate.shell.treesitter import tree_of

    src = line.encode("utf-8", "surrogateescape")
    shape = src
    for _ in range(MAX_ROUNDS):  # a prefix nested in what follows one shows in the next round
        root = tree_of(shape).root_node
        if b"\n" not in shape and not root.has_error:
            break
        spans = _spans(root, shape)
        if not spans:
            break
        written = bytearray(shape)
        for start, end in spans:
            written[start:end] = b":" + b"_" * (end - start - 1)
        shape = bytes(written)
    return None if shape == src else shape.decode("utf-8", "surrogateescape")


def placeholder(node: Node, src: bytes, shape: bytes | None) -> bool:
    """``node`` is a command ``cut`` wrote as a placeholder (``shape`` is what tree-sitter
    parsed, ``src`` the line)."""
    start = node.start_byte
    return (shape is not None and node.type == "command" and shape[start] == PLACEHOLDER
            and src[start] != PLACEHOLDER)


def prefix_tree(text: bytes) -> Tree:
    """tree-sitter's tree of a placeholder's text: the prefix alone (its name is MISSING)."""
    from clawgate.shell.treesitter import parser

    return parser().parse(text)


def missing_name(node: Node) -> bool:
    """``node`` is a ``command_name`` tree-sitter made up (MISSING) for a command that holds an
    assignment or a redirection and no word: bash's command of those alone."""
    if node.type != "command_name" or node.end_byte != node.start_byte:
        return False
    if not node.children or not all(c.is_missing for c in node.children):
        return False
    command = node.parent
    if command is None or command.type != "command":
        return False
    others = [c for c in command.named_children if c.type != "comment" and c != node]
    return bool(others) and all(c.type in _PREFIX for c in others)


def only_missing_names(root: Node, nameless: set[int]) -> bool:
    """Every error in the tree of ``root`` is the MISSING name of a command of prefixes alone
    (at the offsets in ``nameless``, as the walker found them)."""
    pending = [root]
    seen = 0
    while pending:
        node = pending.pop()
        seen += 1
        if seen > MAX_NODES or node.type == "ERROR":
            return False
        if node.is_missing:
            parent = node.parent
            if parent is None or parent.start_byte not in nameless or not missing_name(parent):
                return False
            continue
        pending.extend(c for c in node.children if c.has_error)
    return True


def _spans(root: Node, src: bytes) -> list[tuple[int, int]]:
    """The (start, end) of each prefix to write as a placeholder, outermost only. The
    ``command`` nodes are found by a query (in C: a line's tree can hold thousands of nodes);
    only those over more than one line, or holding an error, are looked into."""
    from tree_sitter import QueryCursor

    cursor = QueryCursor(_commands(), match_limit=MAX_NODES)
    found: list[tuple[int, int]] = []
    for node in cursor.captures(root).get("c", []):
        if node.has_error or node.start_point[0] != node.end_point[0]:
            span = _prefix_span(node, src)
            if span is not None:
                found.append(span)
    outermost: list[tuple[int, int]] = []
    for span in sorted(found):
        if not outermost or span[0] >= outermost[-1][1]:
            outermost.append(span)
    return outermost


@cache
def _commands() -> Query:
    from tree_sitter import Query

    from clawgate.shell.treesitter import language

    return Query(language(), "(command) @c")


def _prefix_span(node: Node, src: bytes) -> tuple[int, int] | None:
    """Where the prefix of the command ``node`` lies, when tree-sitter read its parts on past
    a newline after assignments and redirections alone."""
    last_end = -1  # where the last part (not a comment) ends
    for child in node.children:
        if child.type == "comment":
            continue
        if last_end >= 0 and (b"\n" in src[last_end:child.start_byte] or (
                child.type == "ERROR" and src[child.start_byte:child.end_byte] in _OPERATORS)):
            return node.start_byte, last_end  # ``x=1 >f | cat``: an operator it cannot place
        if child.type not in _PREFIX or _holds_heredoc(child):
            return None  # a name came first, or a here-document's body starts at the newline
        last_end = child.end_byte
    return None


def _holds_heredoc(node: Node) -> bool:
    return node.type == "heredoc_redirect" or any(_holds_heredoc(c)
                                                  for c in node.named_children)
