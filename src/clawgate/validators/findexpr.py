"""Whether a ``find`` expression acts only on what its name tests match.

``find . -name dist -delete`` deletes only what is named ``dist``; ``find . ! -name dist
-delete``, ``find . -name dist -prune -o -delete`` and ``find . -name dist -delete , -delete``
delete everything else too. The name tests bound an action only where the action runs after
one of them held: earlier in the same conjunction (``-a``, or side by side), or in an
enclosing one. An alternative (``-o``) runs when what precedes it failed, a negated test
holds for every other name, and ``,`` runs what follows it whatever came before.

The expression is parsed as find parses it: ``,`` binds loosest, then ``-o``, then ``-a``,
then ``!``; parentheses group. One that does not parse bounds nothing (the caller asks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from clawgate.records import record

NAME_TESTS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"})
DELETING = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir"})
PRINTING = frozenset({"-print", "-print0", "-printf", "-fprint", "-fprint0", "-fprintf",
                      "-ls", "-fls"})
_COMMANDS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_TWO = frozenset({"-fprintf"})
_NONE = frozenset({
    "-delete", "-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-empty",
    "-executable", "-readable", "-writable", "-nouser", "-nogroup", "-depth", "-d",
    "-mount", "-xdev", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race",
    "-daystart", "-follow", "-nowarn", "-warn", "-help", "--help", "-version", "--version",
    "-L", "-P", "-H"})
_MAX_DEPTH = 64  # nested parentheses and negations read; deeper bounds nothing


@record(frozen=True, slots=True)
class _Node:
    kind: str  # "test", "action", "and", "or", "not", "comma"
    named: bool = False  # a test: a positive name test
    children: tuple[_Node, ...] = ()


class _Unreadable(Exception):
    """The expression does not parse as find would read it."""


class _Parser:
    def __init__(self, words: Sequence[str], actions: frozenset[str],
                 selects: Callable[[Sequence[str]], bool] | None = None) -> None:
        self.words = words
        self.at = 0
        self.actions = actions
        self.selects = selects  # an -exec that bounds actions, in place of the name tests

    def peek(self) -> str | None:
        return self.words[self.at] if self.at < len(self.words) else None

    def comma(self, depth: int) -> _Node:
        parts = [self.alternatives(depth)]
        while self.peek() == ",":
            self.at += 1
            parts.append(self.alternatives(depth))
        return parts[0] if len(parts) == 1 else _Node("comma", children=tuple(parts))

    def alternatives(self, depth: int) -> _Node:
        parts = [self.conjunction(depth)]
        while self.peek() in ("-o", "-or"):
            self.at += 1
            parts.append(self.conjunction(depth))
        return parts[0] if len(parts) == 1 else _Node("or", children=tuple(parts))

    def conjunction(self, depth: int) -> _Node:
        parts = [self.unary(depth)]
        while (word := self.peek()) is not None and word not in (",", "-o", "-or", ")"):
            if word in ("-a", "-and"):
                self.at += 1
            parts.append(self.unary(depth))
        return parts[0] if len(parts) == 1 else _Node("and", children=tuple(parts))

    def unary(self, depth: int) -> _Node:
        if depth > _MAX_DEPTH:
            raise _Unreadable
        word = self.peek()
        if word is None:
            raise _Unreadable
        self.at += 1
        if word in ("!", "-not"):
            return _Node("not", children=(self.unary(depth + 1),))
        if word == "(":
            inner = self.comma(depth + 1)
            if self.peek() != ")":
                raise _Unreadable
            self.at += 1
            return inner
        return self.primary(word)

    def primary(self, word: str) -> _Node:
        if word in _COMMANDS:
            begin = self.at
            while (part := self.peek()) is not None:
                self.at += 1
                if part == ";" and self.selects is not None and word in ("-exec", "-execdir") \
                        and self.selects(self.words[begin:self.at - 1]):
                    return _Node("test", named=True)
                if part == ";" or (part == "+" and self.words[self.at - 2] == "{}"):
                    return _Node("action") if word in self.actions else _Node("test")
            raise _Unreadable  # an -exec never closed: find refuses the line
        if not word.startswith("-"):
            raise _Unreadable
        arity = 0 if word in _NONE else 2 if word in _TWO else 1
        if self.at + arity > len(self.words):
            raise _Unreadable
        self.at += arity
        if word in self.actions:
            return _Node("action")
        return _Node("test", named=self.selects is None and word in NAME_TESTS)


def _holds_named(node: _Node) -> bool:
    """``node`` being true means a name test matched."""
    if node.kind == "test":
        return node.named
    if node.kind == "and":
        return any(_holds_named(c) for c in node.children)
    if node.kind == "or":
        return all(_holds_named(c) for c in node.children)
    return node.kind == "comma" and _holds_named(node.children[-1])


def _bounded(node: _Node, named: bool) -> bool:
    """Every action in ``node`` runs only after a name test held (``named``: one enclosing
    ``node`` already did)."""
    if node.kind == "action":
        return named
    if node.kind == "and":
        for child in node.children:
            if not _bounded(child, named):
                return False
            named = named or _holds_named(child)
        return True
    return all(_bounded(c, named) for c in node.children)


def _has_action(node: _Node) -> bool:
    return node.kind == "action" or any(_has_action(c) for c in node.children)


def acts_only_on_named(expression: Sequence[str], actions: frozenset[str]) -> bool:
    """Whether every action of ``actions`` in ``expression`` (find's words after its start
    points) runs only on what a name test matched; where it has none of them, whether what
    find prints by default (the whole expression true) is. False where it does not parse."""
    return _acts_only_on(_Parser(expression, actions))


def acts_only_on_selected(expression: Sequence[str], actions: frozenset[str],
                          selects: Callable[[Sequence[str]], bool]) -> bool:
    """Whether every action of ``actions`` in ``expression`` runs only on what an ``-exec``
    (or ``-execdir``) test ``selects`` accepts held for (``-exec grep -q MARK {} ;``): those
    bound the actions in place of the name tests."""
    return _acts_only_on(_Parser(expression, actions, selects))


def _acts_only_on(parser: _Parser) -> bool:
    expression = parser.words
    if not expression:
        return False
    try:
        tree = parser.comma(0)
    except _Unreadable:
        return False
    if parser.at != len(expression):
        return False  # a stray ')'
    if not _has_action(tree):
        return _holds_named(tree)
    return _bounded(tree, False)


def expression_of(arguments: Sequence[str]) -> list[str]:
    """find's expression: its arguments after the global options (``-L``, ``-D opts``,
    ``-O3``) and the start points."""
    at = 0
    while at < len(arguments) and (arguments[at] in ("-L", "-P", "-H", "-D")
                                   or arguments[at].startswith("-O")):
        at += 2 if arguments[at] == "-D" else 1
    while at < len(arguments) and not arguments[at].startswith(("-", "(", "!", ",")):
        at += 1
    return list(arguments[at:])
