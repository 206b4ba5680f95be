"""Loops over a folder's entries in inline Python: what the loop's names stand for.

``for p in Path.home().iterdir()``, ``os.listdir(d)``, ``os.scandir(d)``, ``os.walk(d)``: the
names stand for every entry of the folder, judged as the folder itself (an action on every
entry reaches all of it: ``shutil.rmtree(p)`` in such a loop is ``rm -rf d``).
``glob.glob('d/*.log')``, ``Path(d).glob(p)``: for the entries that match, judged as the
pattern's path. A name bound to entries and iterated again (``for f in fs`` of an
``os.walk`` triple) stands for the same folder.
"""

from __future__ import annotations

import ast
from typing import Protocol


class _Reading(Protocol):
    values: dict[str, ast.expr]
    entries: dict[str, str]

    def text(self, node: ast.AST, depth: int = 0) -> str | None: ...

    def dotted(self, node: ast.AST, depth: int = 0) -> str | None: ...


def bind_entries(reader: _Reading, target: ast.expr, iterable: ast.expr) -> None:
    """Give the loop's names (``target``) the folder ``iterable`` lists, when it is known."""
    folder = listed(reader, iterable)
    if folder is None:
        return
    names = target.elts if isinstance(target, ast.Tuple) else [target]
    for name in names:
        if isinstance(name, ast.Name) and name.id not in reader.values:
            reader.values[name.id] = ast.Constant(value=folder)
            reader.entries[name.id] = folder


def listed(reader: _Reading, node: ast.expr) -> str | None:
    """The folder (or pattern) whose entries ``node`` lists, when its name is known."""
    if isinstance(node, ast.Name) and node.id in reader.entries:
        return reader.entries[node.id]
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = reader.dotted(func) or ""
    if name in ("os.listdir", "os.scandir", "os.walk"):
        return reader.text(node.args[0]) if node.args else "."
    if name in ("glob.glob", "glob.iglob"):
        return reader.text(node.args[0]) if node.args else None  # the entries matching
    if isinstance(func, ast.Attribute) and func.attr == "iterdir":
        return reader.text(func.value)
    if isinstance(func, ast.Attribute) and func.attr in ("glob", "rglob") and node.args:
        folder, pattern = reader.text(func.value), reader.text(node.args[0])
        return None if folder is None or pattern is None else f"{folder}/{pattern}"
    return None
