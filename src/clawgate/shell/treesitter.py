"""tree-sitter-bash into the command model: every simple command, wherever it is nested."""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING

from clawgate.lazyre import lazy_pattern
from clawgate.records import field, record, replace
from clawgate.shell import model as m
from clawgate.shell.bodyblanks import blank_led_masked, unread_expansions, wrapped
from clawgate.shell.nameless import missing_name, only_missing_names, placeholder, prefix_tree
from clawgate.shell.operandtext import literal_hashes
from clawgate.shell.timekeyword import keyword_dropped, leading_assignments
from clawgate.shell.words import text_of, word_of

if TYPE_CHECKING:
    import re
    from typing import Any

    from tree_sitter import Language, Node, Parser, Tree

MAX_DEPTH = 150  # syntax-tree levels walked; deeper lines are flagged, never trusted

_NESTING_TAGS = {
    "subshell": "subshell",
    "command_substitution": "command_substitution",
    "process_substitution": "process_substitution",
    "function_definition": "function",
    "while_statement": "loop",
    "for_statement": "loop",
    "c_style_for_statement": "loop",
    "if_statement": "if",
    "case_statement": "case",
    "heredoc_body": "heredoc",
    "arithmetic_expansion": "arithmetic",
}
_DECLARATIONS = frozenset({"declaration_command", "unset_command"})
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_HEREDOC_PARTS = frozenset({"heredoc_start", "heredoc_body", "heredoc_end"})
_UNREDIRECTABLE = frozenset({"list", "pipeline"})  # no redirection applies to them whole
# Leaves an expansion's operand may be read as, text and all (``${x#$(id)}``: a regex).
_OPERAND_LEAVES = frozenset({"regex", "word"})
_OPERAND_PREFIX = b": "
# The node kinds ``_Walker.walk`` reads otherwise than by walking their children: any other
# goes straight to them, past the tests of each kind.
_READ_APART = frozenset({"command", "redirected_statement", "pipeline", *_DECLARATIONS,
                         "variable_assignment", "variable_assignments", "test_command",
                         "comment", *_OPERAND_LEAVES, "heredoc_body", "command_substitution"})
_WORD_ENDS = frozenset(b" \t;&|<>()")


@cache
def _backquoted_escapes() -> re.Pattern[bytes]:
    """What a backslash escapes inside backquotes: it is removed before the body is read."""
    import re

    return re.compile(rb"\\([$`\\])")
_PLAIN_WORD = lazy_pattern(r"[A-Za-z0-9_./:=,@%+-]+")


@cache
def language() -> Language:
    """The tree-sitter-bash grammar (loaded once)."""
    import tree_sitter_bash
    from tree_sitter import Language

    return Language(tree_sitter_bash.language())


@cache
def _threads() -> Any:
    """Per-thread storage: a tree-sitter Parser is not safe to share between threads."""
    import threading

    return threading.local()


# tree-sitter-bash 0.25 crashes (reads out of bounds, now and then) on a brace followed by a
# code point beyond the Basic Multilingual Plane (seen from U+20000 up, most often from
# U+E0000: tags, private use). Every such character (four bytes in UTF-8) is handed to it as
# U+FFFD and "_": the same bytes long, so every offset holds, and word characters as it is to
# bash (not ASCII letters: a body line starting with one could look like a here-document's
# delimiter). Words are still read from the line itself.
_CRASHING_CHARS = rb"[\xf0-\xf4][\x80-\xbf]{3}"
_MASK = "\ufffd_".encode()


KEPT_TREES = 4  # trees kept per thread, newest first
KEPT_MAX_BYTES = 1 << 16  # but only the newest when longer than this


def tree_of(src: bytes) -> Tree:
    """tree-sitter's tree of ``src`` (UTF-8), with the characters it crashes on masked.

    The parse, the parser differential's walk by statement and its subshell bodies and the
    count of statement lines ask for the tree of the same line in turn, with the trees of a
    payload or a resolved reading read between them: this thread's last few trees are kept
    and handed out again for the same bytes (nothing edits a tree)."""
    local = _threads()
    kept: list[tuple[bytes, Tree]] | None = getattr(local, "kept", None)
    if kept is None:
        kept = local.kept = []
    for known, found in kept:
        if known == src:
            return found
    key = src
    top = max(src) if src else 0
    if top >= 0xF0:
        import re  # rare: compiled (and cached by re) only for such lines

        src = re.sub(_CRASHING_CHARS, _MASK, src)
    tree = parser().parse(src)
    if tree.root_node.has_error and b"$" in src:
        tree = _dollar_masked(src) or tree
    if tree.root_node.has_error and (b"%" in src or b"@" in src or b"?" in src):
        tree = _name_masked(src) or tree
    # the newest tree is kept whatever its size (as before); older ones only when small
    kept[:] = [(key, tree), *(e for e in kept[: KEPT_TREES - 1] if len(e[0]) <= KEPT_MAX_BYTES)]
    return tree


def raw_tree(src: bytes) -> Tree:
    """tree-sitter's tree of ``src`` as it stands (no masking, no second reading): the text of
    a substitution or operand read apart. A line is read again in other spellings (a shape,
    without zsh qualifiers) whose backquoted parts are the same bytes: this thread's last few
    such trees are kept and handed out again (nothing edits a tree)."""
    local = _threads()
    kept: list[tuple[bytes, Tree]] | None = getattr(local, "raw", None)
    if kept is None:
        kept = local.raw = []
    for known, found in kept:
        if known == src:
            return found
    tree = parser().parse(src)
    if len(src) <= KEPT_MAX_BYTES:
        kept[:] = [(src, tree), *kept[: KEPT_TREES - 1]]
    return tree


# tree-sitter-bash reads a command name that starts with a name and goes on with "%", "@" or
# "?" (``1%``, ``x@y``, ``a?b``) as a variable name cut short, an error that its recovery
# resolves by dropping or merging the commands around it. bash runs such a word as a program.
# A line that does not parse is read again with the mark as "_" (the same bytes long), kept
# only where that reading has no error; words are still read from the line (``a?b`` is a glob).
_NAME_THEN_MARK = rb"(?<![\w${])[A-Za-z0-9_]+[%@?]"


def _name_masked(src: bytes) -> Tree | None:
    import re

    masked = re.sub(_NAME_THEN_MARK, lambda found: found[0][:-1] + b"_", src)
    tree = parser().parse(masked) if masked != src else None
    return tree if tree is not None and not tree.root_node.has_error else None


# tree-sitter-bash takes a "$" that starts no expansion for the start of one, and fails on
# what follows: a non-ASCII character (``$é``), or punctuation (``$/``, ``$%``) in a word or at
# the start of a here-document's body. Then it loses the command or the here-document (its
# body is read as commands, or the whole line is one error). bash reads such a "$" as itself.
# A line that does not parse is read again with it masked, the same bytes long: before
# punctuation the "$" is "_" (a literal, as to bash); before a non-ASCII character (a name to
# zsh, whose names may be non-ASCII) the character is "_"s, so that "$é" is the variable
# "$__": an unknown value, the stricter reading. Words are still read from the line.
_DOLLAR_NON_ASCII = rb"\$[\xc2-\xf4][\x80-\xbf]{0,3}"
_DOLLAR_LITERAL = rb"\$(?=[%+,./:=\]}^~)&;|<>])"


def _dollar_masked(src: bytes) -> Tree | None:
    import re

    masked = re.sub(_DOLLAR_LITERAL, b"_", src)
    if max(src) >= 0x80:
        masked = re.sub(_DOLLAR_NON_ASCII, lambda found: b"$" + b"_" * (len(found[0]) - 1),
                        masked)
    return parser().parse(masked) if masked != src else None


def parser() -> Parser:
    """This thread's parser (``Guard.acall`` and the MCP proxy check from worker threads)."""
    local = _threads()
    found: Parser | None = getattr(local, "parser", None)
    if found is None:
        from tree_sitter import Parser

        found = local.parser = Parser(language())
    return found


@record()
class _Cmd:
    start: int
    text: str
    words: list[m.Word] = field(default_factory=list)
    assignments: list[m.Assignment] = field(default_factory=list)
    redirects: list[m.Redirect] = field(default_factory=list)
    nesting: tuple[str, ...] = ()
    background: bool = False
    pipeline: tuple[str, ...] = ()
    stage: int = 0
    after_pipe: bool = False  # the command is itself a stage after a pipe (not inside one)

    def program_at(self, after_pipe: bool) -> str:
        """The program bash runs, the command standing after a pipe or not."""
        words = self.run_words(after_pipe)
        first = words[0].value if words else None
        return "" if first is None else first.rsplit("/", 1)[-1]

    def run_words(self, after_pipe: bool) -> tuple[m.Word, ...]:
        """The words bash runs: without a ``time`` keyword where one starts a pipeline (any
        command but one standing after a pipe: ``ls | { time x; }`` times ``x``, ``ls | time
        x`` runs the program ``time``)."""
        words = tuple(self.words)
        if after_pipe or self.assignments or not words or words[0].text != "time":
            return words
        return keyword_dropped(words)


class _Walker:
    def __init__(self, src: bytes, shape: bytes | None = None) -> None:
        self.src = src
        self.shape = shape  # what tree-sitter parsed in place of ``src``, when not ``src``
        self.out: list[_Cmd] = []
        self.comments: list[str] = []
        self.has_error = False
        self.too_deep = False
        self.descriptors: dict[int, int] = {}  # a ``0`` read as a word: its offset, its fd
        self.nameless: set[int] = set()  # where a command of prefixes alone has its MISSING name

    def walk(self, node: Node, nesting: tuple[str, ...], depth: int,
             redirects: tuple[m.Redirect, ...] = (), background: bool = False) -> None:
        if depth > MAX_DEPTH:
            self.too_deep = True
            return
        kind = node.type
        if kind == "ERROR" or node.is_missing:
            self.has_error = True
        tag = _NESTING_TAGS.get(kind)
        inner = (*nesting, tag) if tag else nesting
        if kind not in _READ_APART:  # most nodes: no test below is about their kind
            self.children(node, inner, depth, redirects, background)
        elif kind in _OPERAND_LEAVES and _in_operand(node):
            self.operand(node, nesting, depth)
        elif kind == "command" and placeholder(node, self.src, self.shape):
            self.prefix_only(node, nesting, depth, redirects, background)
        elif kind == "command":
            self.command(node, nesting, depth, redirects, background)
        elif kind == "redirected_statement":
            self.redirected(node, nesting, depth, redirects, background)
        elif kind == "pipeline":
            self.pipeline(list(node.named_children), nesting, depth, redirects, background)
        elif kind in _DECLARATIONS:
            self.declaration(node, nesting, depth, redirects, background)
        elif kind in ("variable_assignment", "variable_assignments"):
            self.assignment_only(node, nesting, depth, redirects, background)
        elif kind == "test_command":
            self.emit(node, nesting, [_test_or_glob(node, self.src)], [], list(redirects),
                      background)
            self.children(node, inner, depth)
        elif kind == "comment" and _glued_to_assignment(node):
            self.after_glued(node, nesting, depth)
        elif kind == "comment":
            self.comments.append(text_of(node, self.src))
        elif kind == "heredoc_body" and _expands(node, self.src):
            if self.body_blanks_masked(node, nesting, depth):
                return
            if b"`" in self.src[node.start_byte:node.end_byte]:
                self.body_backquotes(node, inner, depth)
            self.children(node, inner, depth, redirects, background)
        elif kind == "command_substitution" and self.src[node.start_byte] == 96 and \
                len(_backquote_spans(self.src, node.start_byte, node.end_byte)) > 1:
            self.backquotes_apart(node, inner, depth)
        elif kind == "command_substitution" and self.src[node.start_byte] == 96 and \
                _backquoted_escapes().search(self.src, node.start_byte, node.end_byte):
            self.backquoted(node, inner, depth)
        else:
            self.children(node, inner, depth, redirects, background)

    def operand(self, node: Node, nesting: tuple[str, ...], depth: int) -> None:
        """tree-sitter-bash reads the operand of ``${x#…}``, ``${x%…}``, ``${x^…}``,
        ``${x,…}`` and ``${x/…/…}`` as one leaf, and a ``${x:-`…`}`` default too: the
        substitutions in it, which bash runs when it expands the word, are read from its
        text as the words of a command of their own, at its place in the line (a ``#`` in
        it is a plain character to bash: ``operandtext.py``)."""
        text = self.src[node.start_byte:node.end_byte]
        if b"$(" not in text and b"`" not in text and b"<(" not in text and b">(" not in text:
            return
        sub = _Walker(_OPERAND_PREFIX + literal_hashes(text))  # no comment starts in it
        tree = raw_tree(sub.src)
        sub.walk(tree.root_node, nesting, depth + 1)
        self.has_error = self.has_error or sub.has_error or tree.root_node.has_error
        self.too_deep = self.too_deep or sub.too_deep
        shift = node.start_byte - len(_OPERAND_PREFIX)
        for cmd in sub.out:
            if cmd.start >= len(_OPERAND_PREFIX):  # not the ``:`` that carries the words
                cmd.start += shift
                self.out.append(cmd)

    def body_backquotes(self, node: Node, nesting: tuple[str, ...], depth: int) -> None:
        """tree-sitter-bash reads ``$( )`` in the body of a here-document whose delimiter is
        not quoted, but not backquotes (a body line ``see `rm -rf ~` now``), which bash runs.
        Each is read as the commands of a line of its own, at its place in the body."""
        start, end = node.start_byte, node.end_byte
        for opening, closing in _backquote_spans(self.src, start, end):
            body = self.src[opening + 1:closing]
            self._read_apart(_backquoted_escapes().sub(rb"\1", body), opening + 1, len(body),
                             (*nesting, "command_substitution"), depth)

    def body_blanks_masked(self, node: Node, nesting: tuple[str, ...], depth: int) -> bool:
        """tree-sitter-bash reads no substitution that starts a body line after blanks (``  $(rm
        -rf ~)``, the tabs of a ``<<-`` body), nor any in the body of a delimiter that starts
        with ``$`` (``<<$X``: bash takes it literally and expands the body): bash runs them. A
        body with such a line, or with expansions read as plain text, is read again with those
        blanks as newlines (the same bytes long, the same substitutions), as the body of a
        here-document of its own; False when there is none."""
        start = self.src.rfind(b"\n", 0, node.start_byte) + 1
        body = self.src[start:node.end_byte]
        masked = blank_led_masked(body)
        if masked is None and unread_expansions(body, [c.type for c in node.named_children]):
            masked = body
        if masked is None:
            return False
        head, tail = wrapped(masked)
        sub = _Walker(head + masked + tail)
        tree = raw_tree(sub.src)
        sub.walk(tree.root_node, nesting, depth + 1)
        self.has_error = self.has_error or sub.has_error or tree.root_node.has_error
        self.too_deep = self.too_deep or sub.too_deep
        for cmd in sub.out:
            if cmd.start >= len(head):  # not the ``:`` that carries the body
                cmd.start += start - len(head)
                self.out.append(cmd)
        return True

    def after_glued(self, node: Node, nesting: tuple[str, ...], depth: int) -> None:
        """``a=(1)#x sudo rm -rf /``: tree-sitter-bash takes a ``#`` right after an array
        assignment's ``)`` for a comment; to bash it is inside the word, and the line goes on
        after the word: read from there as a line of its own."""
        text = self.src[node.start_byte:node.end_byte]
        cut = next((i for i, ch in enumerate(text) if ch in _WORD_ENDS), len(text))
        rest = text[cut:]
        if rest[:1] in (b" ", b"\t"):
            self._read_apart(rest, node.start_byte + cut, len(rest), nesting, depth)
        elif rest:  # an operator follows the word: it joins the next command to it
            self._read_apart(b":" + rest, node.start_byte + cut - 1, len(rest) + 1, nesting,
                             depth, skip_first=True)

    def _read_apart(self, text: bytes, at: int, length: int, nesting: tuple[str, ...],
                    depth: int, skip_first: bool = False) -> None:
        """The commands of ``text`` read as a line, placed at ``at`` (within ``length``);
        ``skip_first``: without the command at its start (a ``:`` put there to carry it)."""
        sub = _Walker(text)
        tree = raw_tree(text)
        sub.walk(tree.root_node, nesting, depth + 1)
        self.has_error = self.has_error or sub.has_error or tree.root_node.has_error
        self.too_deep = self.too_deep or sub.too_deep
        for cmd in sub.out:
            if skip_first and cmd.start == 0:
                continue
            cmd.start = at + min(cmd.start, length)
            self.out.append(cmd)
        self.comments.extend(sub.comments)

    def backquoted(self, node: Node, nesting: tuple[str, ...], depth: int) -> None:
        """Inside backquotes a backslash before a dollar, a backquote or a backslash is removed
        before the text is read as commands (``echo`` of a nested, escaped ``id`` runs ``id``;
        tree-sitter-bash reads the escaped backquotes as a word): the body is read again so, as
        the commands of a line of their own, at the substitution's place."""
        body = self.src[node.start_byte + 1:node.end_byte - 1]
        self._read_apart(_backquoted_escapes().sub(rb"\1", body), node.start_byte + 1,
                         len(body), nesting, depth)

    def backquotes_apart(self, node: Node, nesting: tuple[str, ...], depth: int) -> None:
        """A backquote ends at the next one that is not escaped: tree-sitter-bash reads
        ``ls``id`` and `` `ls` `id` `` as one substitution holding an empty one (running
        ``lsid``); bash runs ``ls``, then ``id``. Each substitution's body is read apart."""
        for opening, closing in _backquote_spans(self.src, node.start_byte, node.end_byte):
            body = self.src[opening + 1:closing]
            self._read_apart(_backquoted_escapes().sub(rb"\1", body), opening + 1, len(body),
                             nesting, depth)

    def children(self, node: Node, nesting: tuple[str, ...], depth: int,
                 redirects: tuple[m.Redirect, ...] = (), background: bool = False) -> None:
        kids = node.children
        for i, child in enumerate(kids):
            if not child.is_named:
                if child.type == "ERROR" or child.is_missing:
                    self.has_error = True
                continue
            bg = background or (i + 1 < len(kids) and kids[i + 1].type == "&")
            self.walk(child, nesting, depth + 1, redirects, bg)

    def emit(self, node: Node, nesting: tuple[str, ...], words: list[m.Word],
             assignments: list[m.Assignment], redirects: list[m.Redirect],
             background: bool) -> _Cmd:
        cmd = _Cmd(node.start_byte, text_of(node, self.src), words, assignments, redirects,
                   nesting, background)
        self.out.append(cmd)
        return cmd

    def command(self, node: Node, nesting: tuple[str, ...], depth: int,
                redirects: tuple[m.Redirect, ...], background: bool) -> None:
        words: list[m.Word] = []
        assignments: list[m.Assignment] = []
        own: list[m.Redirect] = []
        word_end = -1
        assigned_to = -1  # where the last assignment ends
        for child in node.children:
            if not child.is_named and child.type != "$":
                continue
            if child.type in ("number", "command_name") and child.end_byte > child.start_byte \
                    and child.start_byte in self.descriptors:
                continue  # a redirection's descriptor (``_with_descriptor``)
            if child.type == "$":  # ``-r$"f"``: a word tree-sitter-bash ends with a bare $
                word = _dollar_word(child, self.src)
                if words and child.start_byte == word_end:
                    words[-1] = joined(words[-1], word)
                else:
                    words.append(word)
                word_end = child.end_byte
                continue
            if child.type == "variable_assignment" and (
                    words or valid_assignment(child, self.src)):
                # (``1x=rm -rf ~``: no name bash can assign: a word, the command's name)
                assignments.append(self.assignment(child))
                assigned_to = child.end_byte
            elif child.type == "command_name" and missing_name(child):
                self.nameless.add(child.start_byte)  # ``x=1 >f``: no name, no error
            elif child.type == "command_name" and child.start_byte == assigned_to:
                # ``a=(1)x sudo …``: bash reads the word glued to an array assignment as part
                # of it; the command's name is the word after it
                pass
            elif child.type == "command_name":
                words.extend(word_of(c, self.src) for c in child.named_children[:1])
                # ``who`echo am`i``: the grammar can end the name before a backquote glued to
                # it; what follows with no blank is the same word to bash
                word_end = child.end_byte
                continue
            elif child.type in _REDIRECTS:
                redirect = self.redirect(child)
                if (child.type == "herestring_redirect" and redirect.fd is None and words
                        and child.start_byte == word_end and words[-1].text.isdigit()):
                    # ``0<<<'…'``: the grammar reads the descriptor as a word before it
                    redirect = replace(redirect, fd=int(words.pop().text))
                own.append(redirect)
            elif child.type == "command_substitution" and self.src[child.start_byte] == 96 \
                    and child.start_byte != word_end:
                words.extend(_backquoted_words(child, self.src))
                word_end = child.end_byte
                continue
            elif child.type != "comment":
                word = word_of(child, self.src)
                if words and child.start_byte == word_end:
                    words[-1] = joined(words[-1], word)  # one word the grammar cut in two
                else:
                    words.append(word)
                word_end = child.end_byte
                continue
            word_end = -1
        self.emit(node, nesting, words, assignments, [*redirects, *own], background)
        self.parts(node, nesting, depth)

    def prefix_only(self, node: Node, nesting: tuple[str, ...], depth: int,
                    redirects: tuple[m.Redirect, ...], background: bool) -> None:
        """A command of assignments and redirections alone, which tree-sitter parsed as a
        placeholder (``nameless.py``): its text is read apart, at its place."""
        start = node.start_byte
        sub = _Walker(self.src[start:node.end_byte])
        tree = prefix_tree(sub.src)
        sub.walk(tree.root_node, nesting, depth + 1, redirects, background)
        self.has_error = self.has_error or sub.has_error or (tree.root_node.has_error and not (
            sub.nameless and only_missing_names(tree.root_node, sub.nameless)))
        self.too_deep = self.too_deep or sub.too_deep
        for cmd in sub.out:
            cmd.start += start
            self.out.append(cmd)
        self.comments.extend(sub.comments)

    def assignment(self, node: Node) -> m.Assignment:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        word = word_of(value, self.src) if value is not None else m.Word("", "")
        return m.Assignment(text_of(name, self.src) if name else "", word)

    def assignment_only(self, node: Node, nesting: tuple[str, ...], depth: int,
                        redirects: tuple[m.Redirect, ...], background: bool) -> None:
        nodes = [node] if node.type == "variable_assignment" else node.named_children
        nodes = [n for n in nodes if n.type == "variable_assignment"]
        # the first word that is no assignment to bash (``5a=b``: not a name) is the command's
        # name, and the words after it its arguments
        cut = next((i for i, n in enumerate(nodes) if not valid_assignment(n, self.src)),
                   len(nodes))
        found = [self.assignment(n) for n in nodes[:cut]]
        words = [word_of(n, self.src) for n in nodes[cut:]]
        self.emit(node, nesting, words, found, list(redirects), background)
        self.children(node, nesting, depth)

    def declaration(self, node: Node, nesting: tuple[str, ...], depth: int,
                    redirects: tuple[m.Redirect, ...], background: bool) -> None:
        keyword = node.children[0] if node.children else node
        words = [word_of(keyword, self.src)]
        words.extend(word_of(c, self.src) for c in node.named_children if c.type != "comment")
        self.emit(node, nesting, words, [], list(redirects), background)
        self.parts(node, nesting, depth)

    def parts(self, node: Node, nesting: tuple[str, ...], depth: int) -> None:
        """Walk the words of a command for the commands nested in them, not the command again."""
        for child in node.named_children:
            if child.start_byte in self.nameless and missing_name(child):
                continue
            target = child.named_children if child.type == "variable_assignment" else [child]
            for part in target:
                self.walk(part, nesting, depth + 1)

    def redirected(self, node: Node, nesting: tuple[str, ...], depth: int,
                   redirects: tuple[m.Redirect, ...], background: bool) -> None:
        body = node.child_by_field_name("body")
        own: list[m.Redirect] = []
        followers: list[Node] = []
        bodies: list[Node] = []
        words_after_heredoc = False
        after_heredoc: list[Node] = []
        after_target: list[Node] = []
        for child in node.named_children:
            if child.type not in _REDIRECTS:
                continue
            own.append(self._with_descriptor(self.redirect(child), body, child))
            if child.type != "heredoc_redirect":
                bodies.append(child)
                # tree-sitter-bash hangs the words after a redirection's target on it as
                # more targets (``rm 2>/dev/null -rf ~``); bash takes them as arguments
                after_target += child.children_by_field_name("destination")[1:]
                continue
            arguments = _same_line(child, child.children_by_field_name("argument"), self.src)
            words_after_heredoc = words_after_heredoc or bool(arguments)
            # tree-sitter-bash hangs what follows a here-document's start inside it.
            for part in child.named_children:
                if part.type in _REDIRECTS:
                    own.append(self.redirect(part))
                    bodies.append(part)
                elif part.type == "heredoc_body":
                    bodies.append(part)
                elif part in arguments:
                    after_heredoc.append(part)
                elif part.type not in _HEREDOC_PARTS and not _body_line(child, part, self.src):
                    followers.append(part)
                elif part.type not in _HEREDOC_PARTS and own[-1].heredoc_expands:
                    # a body line tree-sitter-bash read as words (``\\$(cmd)``): the
                    # substitutions in it run
                    bodies.append(part)
        if words_after_heredoc and (body is None or body.type != "command"):
            self.has_error = True  # ``>out <<EOF cat``: a name tree-sitter would drop
        if body is not None and body.type in _UNREDIRECTABLE and not followers:
            start = len(self.out)
            self._redirect_last(body, own, nesting, depth, redirects, background)
            if after_target:  # ``a && rm 2>/dev/null -rf ~``: the last command's arguments
                self._append_to_last(body, start, after_target)
            for part in bodies:  # the commands nested in them
                self.walk(part, nesting, depth + 1)
            return
        stages = [body] if body is not None else []
        if followers and followers[0].type == "pipeline":
            stages += list(followers.pop(0).named_children)
        start = len(self.out)
        self._stages(node, stages, not followers, nesting, depth, (*redirects, *own),
                     background)
        if body is not None and body.type == "command" and start < len(self.out):
            self._recover_gap(node, body, self.out[start])
            # ``cat <<EOF arg``: words after a here-document's start are the command's
            self.out[start].words.extend(word_of(w, self.src) for w in after_heredoc)
            if after_target:
                self._append(self.out[start], after_target)
        elif after_target:
            self._append_to_last(body, start, after_target)
        for part in [*after_heredoc, *bodies]:  # the commands nested in them
            self.walk(part, nesting, depth + 1)
        for follower in followers:
            self.walk(follower, nesting, depth + 1, (), background)

    def _stages(self, node: Node, stages: list[Node], alone: bool, nesting: tuple[str, ...],
                depth: int, redirects: tuple[m.Redirect, ...], background: bool) -> None:
        """The pipeline a redirected statement redirects; with none (``alone``: nothing
        follows either), a command of the redirections alone, which bash performs
        (``> ~/.bash_history`` truncates the file)."""
        if stages:
            self.pipeline(stages, nesting, depth, redirects, background, first_redirects=True)
        elif alone:
            self.emit(node, nesting, [], [], list(redirects), background)

    def _with_descriptor(self, redirect: m.Redirect, body: Node | None, node: Node
                         ) -> m.Redirect:
        """tree-sitter-bash takes the descriptor ``0`` glued to a redirection (``cat 0<f``,
        ``eval x 0<&1``) for the command's last word; bash, for the descriptor. It is taken
        off the words (``command`` skips it) and put on the redirection."""
        if redirect.fd is not None or body is None or node.type != "file_redirect":
            return redirect
        last = body
        while last.named_children:
            last = last.named_children[-1]
        text = self.src[last.start_byte:last.end_byte]
        if last.type != "number" or last.end_byte != node.start_byte or not text.isdigit():
            return redirect
        self.descriptors[last.start_byte] = int(text)
        return replace(redirect, fd=int(text))

    def _redirect_last(self, body: Node, own: list[m.Redirect], nesting: tuple[str, ...],
                       depth: int, redirects: tuple[m.Redirect, ...], background: bool) -> None:
        """tree-sitter-bash hangs the redirections after the last command of a pipeline or an
        ``&&``/``||`` list on the whole of it (``a | b > x``, ``a || b 2>/dev/null``); bash
        has no such redirection: they are the last command's (``a | (b > x)``)."""
        last = body
        while last.type in _UNREDIRECTABLE and last.named_children:
            last = last.named_children[-1]
        start = len(self.out)
        self.walk(body, nesting, depth + 1, redirects, background)
        for cmd in self.out[start:]:
            if last.start_byte <= cmd.start < last.end_byte:
                cmd.redirects = [*cmd.redirects, *own]

    def _append_to_last(self, body: Node | None, start: int, nodes: list[Node]) -> None:
        """``a && rm 2>/dev/null -rf ~``: the grammar hangs the redirection on the list, bash
        on its last command, whose arguments the words are."""
        last = _last_command(body)
        cmd = next((c for c in self.out[start:] if last is not None
                    and c.start == last.start_byte), None)
        if cmd is None:
            self.has_error = True  # ``{ ls; } >x y``: words after a group's redirection
        else:
            self._append(cmd, nodes)

    def _append(self, cmd: _Cmd, nodes: list[Node]) -> None:
        """Words the grammar hung on a redirection, put back at the end of their command (its
        text then runs to the last of them, redirection included)."""
        ordered = sorted(nodes, key=_start)
        cmd.words.extend(word_of(w, self.src) for w in ordered)
        cmd.text = self.src[cmd.start : ordered[-1].end_byte].decode("utf-8", "surrogateescape")

    def _recover_gap(self, node: Node, body: Node, cmd: _Cmd) -> None:
        """tree-sitter-bash drops a lone word between a command and its here-document
        (``python3 - <<EOF``): put plain words it skipped back at the end of the command."""
        first = next((c for c in node.named_children if c.type in _REDIRECTS), None)
        if first is None or first.start_byte <= body.end_byte:
            return
        gap = self.src[body.end_byte : first.start_byte].decode("utf-8", "surrogateescape")
        if gap.strip() and all(_PLAIN_WORD.fullmatch(w) for w in gap.split()):
            cmd.words.extend(m.Word(w, w) for w in gap.split())
        elif gap.strip():
            self.has_error = True  # something else was skipped: do not trust the line

    def redirect(self, node: Node) -> m.Redirect:
        fd_node = node.child_by_field_name("descriptor")
        fd_text = text_of(fd_node, self.src) if fd_node is not None else ""
        fd = int(fd_text) if fd_text.isdigit() else None  # error recovery can hand us '-u3'
        if fd_node is not None and fd is None:
            self.has_error = True
        ops = [c.type for c in node.children if not c.is_named]
        if node.type == "heredoc_redirect":
            start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
            body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
            delim = text_of(start, self.src) if start is not None else ""
            return m.Redirect(
                ops[0] if ops else "<<", m.Word(delim, delim), fd,
                heredoc=self._heredoc_text(node, start, body),
                heredoc_expands=not any(q in delim for q in "'\"\\"),
            )
        dest = node.child_by_field_name("destination")
        if dest is None:
            named = [c for c in node.named_children if c is not fd_node]
            dest = named[-1] if named else None
        target = word_of(dest, self.src) if dest is not None else None
        op = "<<<" if node.type == "herestring_redirect" else (ops[0] if ops else ">")
        return m.Redirect(op, target, fd)

    def _heredoc_text(self, node: Node, start: Node | None, body: Node | None) -> str:
        """The body of a here-document. tree-sitter-bash reads a body whose first line starts
        with a backslash (``\\rm -rf ~``) as words after the start and leaves the body node
        empty or short: the lines between the start's line and the end delimiter are the
        body, as bash reads them."""
        text = text_of(body, self.src) if body is not None else ""
        end = next((c for c in node.named_children if c.type == "heredoc_end"), None)
        if start is None or end is None:
            return text
        newline = self.src.find(b"\n", start.end_byte, end.start_byte)
        if newline < 0:
            return text
        stray = any(c.end_byte > newline and c.type not in _HEREDOC_PARTS
                    for c in node.named_children)  # body lines read as words
        if not stray:
            return text
        return self.src[newline + 1 : end.start_byte].decode("utf-8", "surrogateescape")

    def pipeline(self, stages: list[Node], nesting: tuple[str, ...], depth: int,
                 redirects: tuple[m.Redirect, ...], background: bool,
                 first_redirects: bool = False) -> None:
        groups: list[list[_Cmd]] = []
        for i, stage in enumerate(stages):
            start = len(self.out)
            given = redirects if (i == 0 or not first_redirects) else ()
            self.walk(stage, nesting, depth + 1, given, background)
            groups.append(self.out[start:])
        if len(groups) < 2:
            return
        names = tuple(next((c.program_at(i > 0 and c.start == stages[i].start_byte)
                            for c in g if c.nesting == nesting), "")
                      for i, g in enumerate(groups))
        for i, group in enumerate(groups):
            for cmd in group:
                if not cmd.pipeline:  # the innermost pipeline wins
                    cmd.pipeline, cmd.stage = names, i
                    cmd.after_pipe = i > 0 and cmd.start == stages[i].start_byte


def _in_operand(node: Node) -> bool:
    """``node`` is a parameter operator's operand or a part of it (``${x:-a#`id`}``: a
    concatenation whose parts tree-sitter-bash reads as plain leaves)."""
    parent = node.parent
    if parent is not None and parent.type == "concatenation":
        parent = parent.parent
    return parent is not None and parent.type == "expansion"


def _test_or_glob(node: Node, src: bytes) -> m.Word:
    """The word a ``test_command`` stands for: ``[[`` for a test. tree-sitter-bash reads
    ``[x]`` too as a test, where bash sees no ``[`` word (none stands alone: a blank must
    follow it) but a glob, the program it runs (``[Install]``, ``echo; [rm]``)."""
    text = src[node.start_byte:node.end_byte]
    if text[:1] != b"[" or text[1:2] in (b"[", b" ", b"\t", b"\n", b""):
        return m.Word("[[", "[[")
    word = text.decode("utf-8", "surrogateescape")
    if b"$" in text or b"`" in text:  # a substitution in it: its value is known at run time
        return m.Word(word, None, expansions=frozenset({m.GLOB, m.COMMAND}))
    return m.Word(word, word, expansions=frozenset({m.GLOB}))


def _glued_to_assignment(comment: Node) -> bool:
    """``comment`` starts right where an assignment ends (``a=(1)#x``, ``local a=(1)#x``,
    ``ls && a=(1)#x``)."""
    before = comment.prev_sibling
    while before is not None and before.end_byte == comment.start_byte and (
            before.type != "variable_assignment" and before.named_children):
        before = before.named_children[-1]  # the last of a list, a pipeline, a declaration
    return (before is not None and before.type == "variable_assignment"
            and before.end_byte == comment.start_byte)


def _expands(body: Node, src: bytes) -> bool:
    """The here-document of ``body`` has an unquoted delimiter: its body is expanded."""
    parent = body.parent
    start = next((c for c in parent.named_children if c.type == "heredoc_start"), None) if (
        parent is not None) else None
    return start is not None and not any(q in text_of(start, src) for q in "'\"\\")


def _backquote_spans(src: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """The (opening, closing) offsets of each backquoted substitution in ``src[start:end]``,
    a backslash escaping the character after it; an unclosed one runs to ``end``."""
    spans: list[tuple[int, int]] = []
    opening = -1
    i = start
    while i < end:
        ch = src[i]
        if ch == 92:  # a backslash
            i += 2
            continue
        if ch == 96:  # a backquote
            if opening < 0:
                opening = i
            else:
                spans.append((opening, i))
                opening = -1
        i += 1
    if opening >= 0:
        spans.append((opening, end))
    return spans


def _backquoted_words(node: Node, src: bytes) -> list[m.Word]:
    """The words of a backquoted substitution tree-sitter-bash read as one: bash ends each at
    the next unescaped backquote, so `` `a` `b` `` is two words (split at the blanks between
    the substitutions), each known only at run time."""
    spans = _backquote_spans(src, node.start_byte, node.end_byte)
    if len(spans) < 2:
        return [word_of(node, src)]
    pieces: list[tuple[int, int]] = []
    start = node.start_byte
    for (_, closing), (opening, _) in pairwise(spans):
        gap = src[closing + 1:opening]
        if gap and not gap.strip(b" \t"):  # blanks only between two substitutions
            pieces.append((start, closing + 1))
            start = opening
    pieces.append((start, node.end_byte))
    return [m.Word(src[a:b].decode("utf-8", "surrogateescape"), None,
                   expansions=frozenset({m.COMMAND})) for a, b in pieces]


def _dollar_word(token: Node, src: bytes) -> m.Word:
    """The text of a ``$`` token tree-sitter-bash hands out with the word before it
    (``-r$``): before a double-quoted string right after it, the ``$`` of a ``$"…"``, which
    bash drops (``-r$"f"`` is ``-rf``); else a literal ``$``."""
    text = text_of(token, src)
    after = token.next_sibling
    if after is not None and after.type == "concatenation" and after.children:
        after = after.children[0]  # ``$"-"$"rf"``: the string begins a concatenation
    if after is not None and after.type == "string" and after.start_byte == token.end_byte:
        return m.Word(text, text[:-1], False, frozenset({m.LOCALE}))
    return m.Word(text, text)


def _body_line(heredoc: Node, part: Node, src: bytes) -> bool:
    """``part`` lies past the line of the here-document's start: a body line tree-sitter-bash
    read as words (a first line starting with a backslash), not the command's."""
    start = next((c for c in heredoc.named_children if c.type == "heredoc_start"), None)
    if start is None:
        return False
    newline = src.find(b"\n", start.end_byte)
    return 0 <= newline <= part.start_byte


def _same_line(heredoc: Node, parts: list[Node], src: bytes) -> list[Node]:
    """The words after a here-document's start on its own line (``cat <<EOF arg``)."""
    return [p for p in parts if not _body_line(heredoc, p, src)]


def joined(first: m.Word, second: m.Word) -> m.Word:
    """Two argument nodes with nothing between them are one shell word. tree-sitter-bash cuts
    ``/x/$A/y/$A/z`` after a bare ``$`` (``/x/$A/y/$`` and ``A/z``); bash reads one word, with
    the second ``$A`` expanded, so a ``$`` at the cut that a name follows is an expansion."""
    expansions = first.expansions | second.expansions
    value = None if first.value is None or second.value is None else first.value + second.value
    if first.text.endswith("$") and (second.text[:1].isalnum() or second.text[:1] in "_{"):
        value = None
        expansions |= {m.VARIABLE}
    return m.Word(first.text + second.text, value, first.quoted or second.quoted, expansions)


def parse_tree(line: str) -> m.ParsedLine:
    """Every simple command of ``line`` as tree-sitter-bash reads it. Two forms bash reads and
    tree-sitter cannot are written again in a spelling it reads, with the same meaning and
    length: a here-document before a command's name (``hoist.py``) and escaped parentheses in
    ``[ … ]`` (``testparens.py``). The line read is then that one, and ``written`` keeps the
    line as given (the parser differential asks bashlex about it)."""
    reshaped = _shaped(line)
    if reshaped is not None:
        read = _read(line, reshaped)
        if not read.has_error:
            return _with_prefixes_read(line, read, reshaped)
    parsed = _read(line)
    if "<<" in line:  # a body line tree-sitter takes for its end (``EOF # note``), error or not
        from clawgate.shell.quoting import delimiter_lookalikes, substitution_ends

        shape = delimiter_lookalikes(line) if parsed.has_error or not substitution_ends(
            line) else None
        again = _read(line, shape) if shape is not None else None
        if again is not None and not again.has_error:
            return replace(again, shape=shape)
    if parsed.has_error and ("<<" in line or "\\(" in line or "\\)" in line):
        text = _mended(line)
        again = _read(text) if text is not None else None
        if again is not None and not again.has_error:
            return replace(again, written=line)
    if parsed.has_error and "@" in line:
        return _without_mid_word_at(line) or _with_prefixes_read(line, parsed, None)
    return _with_prefixes_read(line, parsed, None)


# The names of the simple commands tree-sitter makes of a compound command after ``!`` or
# ``time`` (``reserved.py``): its keywords, and ``time`` or ``!`` themselves.
_MISNAMED = frozenset({"for", "while", "until", "if", "case", "select", "coproc", "function",
                       "do", "done", "then", "elif", "else", "fi", "esac", "{", "}", "!", "time"})


def _with_prefixes_read(line: str, parsed: m.ParsedLine, shape: str | None) -> m.ParsedLine:
    """``parsed`` (read from ``shape`` when given), or, where tree-sitter named a command after
    a keyword and the line holds ``!`` or ``time``, its reading with the ``!`` and ``time``
    before compound commands blanked (``reserved.py``) when that one is clean and names no
    command after a keyword."""
    if ("!" in line or "time" in line) and any(c.program in _MISNAMED for c in parsed.commands):
        from clawgate.shell.reserved import KEYWORDS, blanked

        blank = blanked(shape or line)
        again = _read(line, blank) if blank is not None else None
        if again is not None and not again.has_error and not any(
                c.program in KEYWORDS for c in again.commands):
            return replace(again, shape=blank)
    return parsed if shape is None else replace(parsed, shape=shape)


def _shaped(line: str) -> str | None:
    """A text of the same length for tree-sitter to parse in place of ``line``, where it
    would read a form otherwise than bash: ``coproc`` before a compound command
    (``prefixed.py``), an escaped character starting a line or an escaped blank starting a
    word (``linestart.py``), a comment in backquotes standing as a word
    (``backquotecomments.py``), a command of assignments and redirections alone that tree-sitter
    would run on into the next line or cannot end before an operator (``nameless.py``). None
    if none."""
    shape = line
    if "coproc" in shape:
        from clawgate.shell import prefixed

        shape = prefixed.masked(shape) or shape
    if "\n\\" in shape:
        from clawgate.shell import linestart

        shape = linestart.masked(shape) or shape
    if ("\\ " in shape or "\\\t" in shape) and "<<" not in shape:
        from clawgate.shell import linestart

        shape = linestart.blank_starts(shape) or shape
    if "`" in shape and "#" in shape:
        from clawgate.shell import backquotecomments

        shape = backquotecomments.masked(shape) or shape
    if "=" in shape or "<" in shape or ">" in shape:
        from clawgate.shell import nameless

        shape = nameless.cut(shape) or shape
    return None if shape == line else shape


# An ``@`` inside a plain word (``poetry@build``, the name ``pipx install --suffix=@build``
# gives): tree-sitter-bash fails on such a word where a command's name stands when the line
# needs its full parse (``poetry@build --version | grep $(poetry version --short)``). To bash it
# is a literal there; only ``${x@Q}`` gives it a meaning, and that reads alike with ``_``.
# (Not where a ``=`` follows in the word: ``a@b=1 x`` is a command to bash, not an assignment.)
_MID_WORD_AT = lazy_pattern(r"(?<=[A-Za-z0-9_])@(?=[A-Za-z0-9_.-])(?![^\s=]*=)")


def _without_mid_word_at(line: str) -> m.ParsedLine | None:
    """The line's reading with such ``@`` handed to tree-sitter as ``_`` (the same length:
    every offset holds) and every word read from the line itself, when that parses cleanly."""
    masked = _MID_WORD_AT.sub("_", line)
    if masked == line:
        return None
    again = _parse_tree(line, line, shape=masked)
    return None if again.has_error else replace(again, shape=masked)


def _mended(line: str) -> str | None:
    text = line
    if "[" in line and ("\\(" in line or "\\)" in line):
        from clawgate.shell.testparens import unescaped

        text = unescaped(line) or line
    if "<<" in text:
        from clawgate.shell.hoist import reordered

        text = reordered(text) or text
    return None if text == line else text


def _read(line: str, shape: str | None = None) -> m.ParsedLine:
    """tree-sitter's reading of ``line``. It can join the lines before a here-document that
    ends the input (``ls | ls | ls | ls``, ``rm -rf /``, ``cat <<EOF`` read as ``ls rm -rf /
    cat``), not when a statement follows: such a line is read again with ``:`` after it, and
    that ``:`` dropped. ``shape``: a text of the same length for tree-sitter to parse in its
    place (``delimiter_lookalikes``); the words are read from ``line``."""
    parsed = _parse_tree(line, line, shape)
    if "<<" in line and any(_spans_lines(c) for c in parsed.commands):
        again = _parse_tree(line + "\n:", line, None if shape is None else shape + "\n:")
        if not again.has_error and not any(_spans_lines(c) for c in again.commands):
            return again
    return parsed


def _spans_lines(cmd: m.SimpleCommand) -> bool:
    """A newline between two words of a simple command: never bash's reading."""
    position = 0
    for word in cmd.words:
        found = cmd.text.find(word.text, position)
        if found < 0:
            return False
        if position and "\n" in cmd.text[position:found]:
            return True
        position = found + len(word.text)
    return False


def _parse_tree(text: str, line: str, shape: str | None = None) -> m.ParsedLine:
    """``shape``: a text of the same length for tree-sitter to parse in place of ``text``;
    the words are read from ``text``."""
    src = text.encode("utf-8", "surrogateescape")
    limit = len(line.encode("utf-8", "surrogateescape"))
    parsed = None if shape is None else shape.encode("utf-8", "surrogateescape")
    tree = tree_of(src if parsed is None else parsed)
    walker = _Walker(src, parsed)
    walker.walk(tree.root_node, (), 0)
    cmds = sorted((c for c in walker.out if c.start < limit), key=lambda c: c.start)
    commands = tuple(
        m.SimpleCommand(
            text=c.text, words=words, assignments=(*c.assignments, *assigned),
            redirects=tuple(c.redirects), pipeline=c.pipeline, stage=c.stage,
            nesting=c.nesting, background=c.background, offset=c.start,
        )
        for c in cmds
        for assigned, words in (leading_assignments(c.run_words(c.after_pipe))
                                if c.words and c.words[0].text == "time" else
                                ((), tuple(c.words)),)
    )
    has_error = walker.has_error or (tree.root_node.has_error and not (
        walker.nameless and only_missing_names(tree.root_node, walker.nameless)))
    return m.ParsedLine(line, commands, has_error, walker.too_deep, tuple(walker.comments))


def with_depth(cmd: m.SimpleCommand, depth: int) -> m.SimpleCommand:
    return replace(cmd, depth=depth)


def _start(node: Node) -> int:
    return node.start_byte


def _last_command(node: Node | None) -> Node | None:
    """The simple command a list or pipeline ends with, or a negated one holds (``! grep
    &>/dev/null x``: bash's ``!`` applies to the pipeline, the words are grep's); None when it
    ends otherwise."""
    while node is not None and node.type in ("list", "pipeline", "negated_command"):
        node = node.named_children[-1] if node.named_children else None
    return node if node is not None and node.type == "command" else None


# What bash assigns: a name (letters, digits, underscores, not starting with a digit),
# optionally subscripted; any other text before ``=`` makes the word a plain word.
_ASSIGNABLE = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*(?:\[.*\])?", re.S)


def valid_assignment(node: Node, src: bytes) -> bool:
    """Whether a ``variable_assignment`` node is one to bash (``a=1``, ``a[i]+=x``), not a
    word tree-sitter-bash reads as one (``5a=b``, ``a@b=c``)."""
    name = node.child_by_field_name("name")
    return name is not None and _ASSIGNABLE.fullmatch(text_of(name, src)) is not None
