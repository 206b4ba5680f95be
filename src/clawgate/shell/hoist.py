"""Here-documents written before the command name (``<<EOF cat >out``), read as bash reads them.

Bash takes redirections anywhere in a simple command. tree-sitter-bash reads ``<in cmd``,
``>out cmd``, ``2>&1 cmd`` and ``<<<text cmd`` but not a here-document ahead of the command
name: ``<<EOF cat`` becomes an error, its body becomes commands, and ``>out <<EOF cat`` loses
``cat`` altogether. Such a simple command is written again with its parts in bash's own order
of effect: assignments, then words, then redirections, each kind in the order written (the
order that matters to bash: words are expanded, and redirections made, one after another).
The line keeps its length (the rest keeps every offset), and it is only ever used when
tree-sitter then reads it cleanly and bashlex, reading the line as written, agrees with that
reading (CG-DIFF-001 insists on it). Anything this small lexer does not follow (substitutions,
quotes over lines, a keyword for a name) is left as it was: an error, never ALLOW.
"""

from __future__ import annotations

import re  # this module is imported only for the rare line that needs it

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_sitter import Node

MAX_ROUNDS = 4  # statements mended per line, one reading each
MAX_NODES = 20_000  # nodes looked at per reading; a larger tree is left as it is

_OPERATOR = re.compile(rb"[0-9]*(?:<<<|<<-|<<|<>|<&|<|>>|>\||>&|>|&>>|&>)")
_HEREDOC = re.compile(rb"[0-9]*<<-?\Z")
_ASSIGNMENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*\+?=")
_BRACED = re.compile(rb"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_ENDS = frozenset(b" \t\n;&|()<>")
_KEYWORDS = frozenset(b"if then else elif fi case esac for select while until do done in "
                      b"function time coproc { } ! [[ ]]".split())
_ARGUMENT_BODIES = frozenset({"redirected_statement", "variable_assignment",
                              "variable_assignments"})


def reordered(line: str) -> str | None:
    """``line`` with every here-document-first simple command written command name first, or
    None when there is none or one cannot be written again."""
    from clawgate.shell.treesitter import tree_of

    src = line.encode("utf-8", "surrogateescape")
    changed = False
    for _ in range(MAX_ROUNDS):
        starts = misplaced(tree_of(src).root_node, src)
        if not starts:
            break
        done = -1  # where the last command written again ends: later starts inside it go
        for start in starts:
            if start < done:
                continue
            mended = _reorder(src, start)
            if mended is None:
                return None
            src, done = mended
            changed = True
    return src.decode("utf-8", "surrogateescape") if changed else None


def misplaced(root: Node, src: bytes) -> list[int]:
    """Where simple commands start whose here-document tree-sitter read before a name: a lone
    ``<`` error (``<<EOF cat``: it read ``<`` and ``<EOF``), a redirection holding one
    (``2<<EOF cat``) or made of it alone (a quote in the body reads ``<`` with no word), or
    a here-document with words after it and no command before it (``>out <<EOF cat``)."""
    found: set[int] = set()
    stack, seen = [root], 0
    while stack and seen < MAX_NODES:
        node = stack.pop()
        seen += 1
        kind = node.type
        if kind == "ERROR" and src[node.start_byte : node.end_byte] == b"<":
            found.add(node.start_byte)
        elif kind == "file_redirect" and node.parent is not None and (
                src[node.start_byte : node.end_byte] == b"<" or any(
                    c.type == "ERROR" and src[c.start_byte : c.end_byte] == b"<"
                    for c in node.children)):
            found.add(node.parent.start_byte)  # ``<`` with no word: ``<<'X' cat``
        elif kind == "heredoc_redirect" and node.parent is not None:
            body = node.parent.child_by_field_name("body")
            if node.children_by_field_name("argument") and (
                    body is None or body.type in _ARGUMENT_BODIES):
                found.add(node.parent.start_byte)
        stack.extend(node.children)
    if stack:
        return []  # too large to look at whole: leave the line unread
    return sorted(found)


def _reorder(src: bytes, start: int) -> tuple[bytes, int] | None:
    """The simple command at ``start`` written as assignments, words, redirections, and where
    it ends; None when no here-document comes before its name, or it is beyond this lexer."""
    assignments: list[bytes] = []
    words: list[bytes] = []
    redirects: list[bytes] = []
    i, end, heredoc = start, start, False
    while True:
        while i < len(src) and src[i] in b" \t":
            i += 1
        if i >= len(src) or src[i] in b"\n;|)#" or (src[i] == 0x26 and not
                                                     src.startswith(b"&>", i)):
            break
        op = _OPERATOR.match(src, i)
        if op is not None:
            heredoc = heredoc or (not words and _HEREDOC.match(op.group()) is not None)
            j = op.end()
            while j < len(src) and src[j] in b" \t":
                j += 1
            token_end = _word_end(src, j)
            if token_end is None:
                return None
            redirects.append(src[i:token_end])
        else:
            token_end = _word_end(src, i)
            if token_end is None:
                return None
            token = src[i:token_end]
            if not words and _ASSIGNMENT.match(token):
                if redirects:
                    return None  # bash: an assignment still; bashlex: a word. Left as it is
                assignments.append(token)
            else:
                words.append(token)
        i = end = token_end
    if not heredoc or not words or words[0] in _KEYWORDS:
        return None  # no here-document before the name: nothing tree-sitter misreads
    joined = b" ".join([*assignments, *words, *redirects])
    if len(joined) > end - start:
        return None
    return src[:start] + joined.ljust(end - start) + src[end:], end


def _word_end(src: bytes, i: int) -> int | None:
    """The end of the shell word at ``i``: plain characters, quotes closed on the same line,
    backslash escapes, ``$NAME`` and ``${NAME}``; None for anything else (substitutions,
    expansions with operators) or an empty word."""
    start = i
    while i < len(src) and src[i] not in _ENDS:
        ch = src[i]
        if ch == 0x27:  # '
            close = src.find(b"'", i + 1)
            if close < 0 or b"\n" in src[i:close]:
                return None
            i = close + 1
        elif ch == 0x22:  # "
            quote_end = _double_quote_end(src, i + 1)
            if quote_end is None:
                return None
            i = quote_end + 1
        elif ch == 0x5C:  # backslash
            if i + 1 >= len(src) or src[i + 1] == 0x0A:
                return None
            i += 2
        elif ch == 0x60 or src.startswith(b"$(", i):  # substitutions
            return None
        elif ch == 0x24 and src.startswith(b"${", i):
            braced = _BRACED.match(src, i)
            if braced is None:
                return None
            i = braced.end()
        else:
            i += 1
    return i if i > start else None


def _double_quote_end(src: bytes, i: int) -> int | None:
    while i < len(src):
        ch = src[i]
        if ch == 0x22:
            return i
        if ch in (0x0A, 0x60) or (ch == 0x24 and src[i + 1 : i + 2] in (b"(", b"{")):
            return None
        i += 2 if ch == 0x5C else 1
    return None
