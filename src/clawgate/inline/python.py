"""Inline Python read from its syntax tree (``ast``): the processes it starts and with what,
the files it writes, deletes or reads, the text it evaluates, the network and the environment.

Names are followed through imports (``import subprocess as sp``, ``from os import system``),
``__import__('os')`` and ``getattr(os, 'system')``; values through literal strings, f-strings,
concatenation, ``os.path.join``, ``pathlib`` paths and simple assignments earlier in the code.
What cannot be followed is reported as only known at run time, never as harmless.
"""

from __future__ import annotations

import ast
import shlex

from clawgate.inline import pytables as t
from clawgate.inline.effects import Effects, action, line, word
from clawgate.inline.pycalls import hidden, judge_call
from clawgate.inline.pyloops import bind_entries

MAX_DEPTH = 8  # names followed through assignments, nested expressions
MAX_ACTIONS = 64  # distinct commands checked per piece of code; more is itself a reason to ask
UNKNOWN = '"$INLINE_VALUE"'  # a part of a payload only known at run time


def analyse(code: str, argv: tuple[str | None, ...] = ()) -> Effects:
    """What ``code`` does, run with ``sys.argv`` = ``argv`` (None: an argument only known at
    run time); ``syntax_error`` when it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Effects(syntax_error=True)
    reader = _Reader(tree, argv)
    reader.visit(tree)
    return reader.effects()


class _Reader(ast.NodeVisitor):
    def __init__(self, tree: ast.Module, argv: tuple[str | None, ...] = ()) -> None:
        self.argv_given = argv
        self.aliases: dict[str, str] = {}
        self.star: list[str] = []
        self.values: dict[str, ast.expr] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
            self._learn(node)
        self.entries: dict[str, str] = {}  # loop names bound to a folder's entries
        for node in ast.walk(tree):  # with every alias known: loops over a folder's entries
            if isinstance(node, (ast.For, ast.comprehension)):
                bind_entries(self, node.target, node.iter)
        self.commands: list[str] = []
        self.opaque: list[str] = []
        self.reads: list[str] = []
        self.flags: set[str] = set()

    def _learn(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for name in node.names:
                self.aliases[name.asname or name.name.split(".")[0]] = (
                    name.name if name.asname else name.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module:
            for name in node.names:
                if name.name == "*":
                    self.star.append(node.module)
                else:
                    self.aliases[name.asname or name.name] = f"{node.module}.{name.name}"
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            self.values[node.targets[0].id] = node.value

    def effects(self) -> Effects:
        f = self.flags
        commands = tuple(dict.fromkeys(self.commands))
        if len(commands) > MAX_ACTIONS:
            commands = commands[:MAX_ACTIONS]
            self.opaque.append("does more than is read here")
        return Effects(commands, tuple(dict.fromkeys(self.opaque)),
                       tuple(dict.fromkeys(self.reads)), "spawns" in f, "dup" in f,
                       "network" in f, "privilege" in f, "native" in f, "decoded" in f,
                       "evaluates" in f, "env" in f)

    # names and values

    def dotted(self, node: ast.AST, depth: int = 0) -> str | None:
        if depth > MAX_DEPTH:
            return None
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            value = self.values.get(node.id)
            if value is not None and isinstance(value, (ast.Attribute, ast.Call, ast.Name)):
                found = self.dotted(value, depth + 1)
                if found is not None:
                    return found
            for module in self.star:
                if _known(f"{module}.{node.id}"):
                    return f"{module}.{node.id}"
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value, depth + 1)
            return f"{base}.{node.attr}" if base is not None else None
        if isinstance(node, ast.Call):
            name = self.dotted(node.func, depth + 1)
            if name in t.IMPORTERS and node.args:
                return self.text(node.args[0], depth + 1)
            if name == "getattr" and len(node.args) >= 2:
                base, attr = self.dotted(node.args[0], depth + 1), self.text(node.args[1])
                return f"{base}.{attr}" if base and attr else None
        return None

    def text(self, node: ast.AST, depth: int = 0) -> str | None:
        """The string ``node`` evaluates to, when it can be known by reading."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bytes):
                return node.value.decode("latin-1")
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr):
            parts = [self.text(v.value if isinstance(v, ast.FormattedValue) else v, depth + 1)
                     for v in node.values]
            return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Div)):
            left, right = self.text(node.left, depth + 1), self.text(node.right, depth + 1)
            if left is None or right is None:
                return None
            return left + right if isinstance(node.op, ast.Add) else _join(left, right)
        if isinstance(node, ast.Name):
            value = self.values.get(node.id)
            return self.text(value, depth + 1) if value is not None else None
        if isinstance(node, ast.Subscript) and self.dotted(node.value) == "sys.argv":
            index = node.slice.value if isinstance(node.slice, ast.Constant) else None
            given = self.argv_given
            return given[index] if isinstance(index, int) and 0 <= index < len(given) else None
        if isinstance(node, ast.Subscript) and self.dotted(node.value) == "os.environ":
            return "~" if self.text(node.slice) == "HOME" else None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call) and (
                self.dotted(node.value.func) in ("glob.glob", "glob.iglob")) and node.value.args:
            return self.text(node.value.args[0], depth + 1)  # one of the files it matches
        if isinstance(node, ast.Call):
            return self._call_text(node, depth)
        return None

    def _call_text(self, node: ast.Call, depth: int) -> str | None:
        if isinstance(node.func, ast.Attribute) and not isinstance(node.func.value, ast.Name):
            found = self._method_text(node, node.func, depth)
            if found is not None:
                return found
        name = self.dotted(node.func) or ""
        args = [self.text(a, depth + 1) for a in node.args]
        if name in t.HOME_CALLS and (not args or args == ["~"]):
            return "~"
        if name in ("os.getenv", "os.environ.get") and args[:1] == ["HOME"]:
            return "~"
        if name in ("os.getcwd", "pathlib.Path.cwd", "Path.cwd"):
            return "."
        if None in args:
            return None
        if name in t.PATH_MAKERS or name in ("os.path.join", "posixpath.join"):
            out = "" if name in ("os.path.join", "posixpath.join") or args else "."
            for arg in args:
                out = _join(out, arg or "") if out else arg or ""
            return out
        if name in ("str", "os.path.expanduser", "os.path.abspath", "os.path.normpath",
                    "os.fspath") and len(args) == 1:
            return args[0]
        return None

    def _method_text(self, node: ast.Call, func: ast.Attribute, depth: int) -> str | None:
        """``"".join([...])``, ``p.joinpath(...)``, ``p.expanduser()`` of known values."""
        if func.attr == "join" and len(node.args) == 1:
            sep = self.text(func.value, depth + 1)
            items = self.argv(node.args[0], depth + 1)
            return sep.join(items) if sep is not None and items is not None else None
        if func.attr in ("expanduser", "resolve", "absolute") and not node.args:
            return self.text(func.value, depth + 1)
        if func.attr == "joinpath":
            base = self.text(func.value, depth + 1)
            args = [self.text(a, depth + 1) for a in node.args]
            if base is None or None in args:
                return None
            return _join(base, "/".join(a or "" for a in args))
        return None

    def argv(self, node: ast.AST, depth: int = 0) -> list[str] | None:
        if isinstance(node, ast.Name) and depth <= MAX_DEPTH:
            value = self.values.get(node.id)
            return self.argv(value, depth + 1) if value is not None else None
        if not isinstance(node, (ast.List, ast.Tuple)):
            return None
        items = [self.text(e, depth + 1) for e in node.elts]
        return None if any(i is None for i in items) else [i or "" for i in items]

    # what calls do

    def visit_Call(self, node: ast.Call) -> None:
        name = self.dotted(node.func)
        if name is None and isinstance(node.func, ast.Attribute):
            name = f"?.{node.func.attr}"  # a method of something made here: (a / b).unlink()
        if name is not None:
            judge_call(self, node, name)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        self._iterates_environ(node.iter)
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._iterates_environ(node.iter)
        self.generic_visit(node)

    def _iterates_environ(self, node: ast.expr) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        if self.dotted(node) == "os.environ":
            self.flags.add("env")

    def act(self, verb: str, path: ast.AST | None, other: str | None = None) -> None:
        """A file action on ``path``; a target only known at run time is opaque (reads of
        such files say nothing)."""
        target = self.text(path) if path is not None else None
        if target is not None:
            self.commands.append(action(verb, target, other))
            if verb == "read":
                self.reads.append(word(target))
        elif verb != "read" and not _descriptor(path):
            self.opaque.append(f"{_VERBS.get(verb, verb)} a file named only at run time")

    def run(self, argv: list[str] | None, what: str, node: ast.AST | None = None) -> None:
        self.flags.add("spawns")
        if argv:
            self.commands.append(line(argv))
        else:
            self._unknown_payload(node, what)

    def run_line(self, node: ast.AST | None, what: str) -> None:
        self.flags.add("spawns")
        found = self.text(node) if node is not None else None
        if found is not None:
            self.commands.append(found)
        else:
            self._unknown_payload(node, what)

    def _unknown_payload(self, node: ast.AST | None, what: str) -> None:
        """A payload only known at run time (ASK); one decoded or fetched was hidden on purpose.
        Its known parts are checked with the rest standing as a word known only at run time
        (``os.system(f"rm -rf /{x}")`` is checked as ``rm -rf /"$INLINE_VALUE"``)."""
        if node is not None and hidden(self, node, 0):
            self.flags.add("decoded")
        self.opaque.append(f"{what} runs a command only known at run time")
        if isinstance(node, (ast.List, ast.Tuple)):
            parts = [self._template(e, quote=True) for e in node.elts]
            self.commands.append(" ".join(parts))
        elif isinstance(node, (ast.JoinedStr, ast.BinOp)):
            self.commands.append(self._template(node, quote=False))

    def _template(self, node: ast.AST, *, quote: bool, depth: int = 0) -> str:
        """``node`` as shell text, what is known written out (quoted as one word when
        ``quote``), the rest as ``UNKNOWN``."""
        known = self.text(node)
        if known is not None:
            return shlex.quote(known) if quote else known
        if depth > MAX_DEPTH:
            return UNKNOWN
        if isinstance(node, ast.JoinedStr):
            return "".join(self._template(v.value if isinstance(v, ast.FormattedValue) else v,
                                          quote=quote, depth=depth + 1) for v in node.values)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self._template(node.left, quote=quote, depth=depth + 1) + self._template(
                node.right, quote=quote, depth=depth + 1)
        return UNKNOWN


_VERBS = {"write": "writes", "append": "appends to", "delete": "deletes", "rmtree": "deletes",
          "move": "moves", "copy": "copies to", "chmod": "changes the mode of"}


def _join(left: str, right: str) -> str:
    if right.startswith("/"):
        return right
    return left.rstrip("/") + "/" + right if left else right


def _descriptor(node: ast.AST | None) -> bool:
    """A file descriptor rather than a path (``open(1, 'w')``, ``open(f.fileno())``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
        node.func.attr == "fileno")


def _known(name: str) -> bool:
    return (name in t.LINE_CALLS or name in t.ARGS_CALLS or name in t.EXEC_CALLS
            or name in t.ONE_PATH or name in t.TWO_PATHS or name in t.OPAQUE_SPAWNS
            or name in t.PRIVILEGE or name.startswith(t.NETWORK_PREFIXES))
