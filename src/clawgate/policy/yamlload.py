"""Reading a manifest: size bound, YAML bombs, duplicate keys, and the line of every key.

PyYAML builds aliases as shared objects, so a "billion laughs" file parses quickly and blows up
later, in whatever walks the data. We compose the node graph first, count the nodes it expands
to (memoised, so the count itself is linear) and refuse anything past ``MAX_NODES``. Every
mapping key and sequence item gets its line, so that errors can say ``file:line: key: ...``.
"""

from __future__ import annotations

import os
from typing import Any

from clawgate.errors import PolicyError

MAX_BYTES = 1 << 20  # manifests larger than 1 MiB are refused
MAX_NODES = 100_000  # nodes after alias expansion

Path = tuple[str | int, ...]
Lines = dict[Path, int]


def read_manifest(path: str | os.PathLike[str]) -> tuple[Any, Lines]:
    """The parsed document of ``path`` and the line of every key and item in it."""
    name = os.fspath(path)
    return parse_manifest(read_text(name), name)


def read_text(name: str) -> str:
    """A manifest file's text: at most ``MAX_BYTES``, UTF-8. Raises PolicyError."""
    try:
        with open(name, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise PolicyError(name, None, f"cannot read: {exc.strerror or exc}") from exc
    if len(raw) > MAX_BYTES:
        raise PolicyError(name, None, f"larger than {MAX_BYTES} bytes; refused")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PolicyError(name, None, f"not UTF-8 (byte {exc.start})") from exc
    return text


def parse_manifest(text: str, name: str = "<string>") -> tuple[Any, Lines]:
    """Parse YAML ``text`` safely; raise PolicyError naming ``name`` and the line."""
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        _check_size(node, name)
        lines: Lines = {}
        _walk(node, (), lines, name)
        return loader.construct_document(node), lines
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise PolicyError(name, line, f"invalid YAML: {exc.problem or exc.context}") from exc
    except yaml.YAMLError as exc:
        raise PolicyError(name, None, f"invalid YAML: {exc}") from exc
    except RecursionError as exc:
        raise PolicyError(name, None, "YAML nested too deeply; refused") from exc
    finally:
        loader.dispose()


def _check_size(root: Any, name: str) -> None:
    """Refuse graphs that expand past MAX_NODES or refer to themselves."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: Any) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise PolicyError(name, node.start_mark.line + 1, "a YAML alias refers to itself")
        active.add(key)
        total = 1 + sum(size(child) for child in _children(node))
        active.discard(key)
        if total > MAX_NODES:
            raise PolicyError(name, node.start_mark.line + 1,
                              f"YAML aliases expand past {MAX_NODES} nodes; refused")
        sizes[key] = total
        return total

    size(root)


def _children(node: Any) -> list[Any]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _walk(node: Any, path: Path, lines: Lines, name: str) -> None:
    import yaml

    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else repr(key_node)
            if key == "<<":
                raise PolicyError(name, key_node.start_mark.line + 1,
                                  "YAML merge keys (<<) are not supported; write the keys out")
            if key in seen:
                raise PolicyError(name, key_node.start_mark.line + 1, f"{key}: duplicate key")
            seen.add(key)
            lines[(*path, key)] = key_node.start_mark.line + 1
            _walk(value_node, (*path, key), lines, name)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), lines, name)


def line_of(lines: Lines, loc: Path) -> int | None:
    """The line of the longest prefix of ``loc`` that the document has."""
    for end in range(len(loc), -1, -1):
        found = lines.get(tuple(loc[:end]))
        if found is not None:
            return found
    return None
