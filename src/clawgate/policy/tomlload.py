"""Reading the ``[tool.clawgate]`` table of a ``pyproject.toml`` as a manifest.

``tomllib`` gives no positions, so the line map is rebuilt from the text: each table header
``[tool.clawgate.a.b]`` gives the line of ``(a, b)`` and each ``key =`` under a header the line
of ``(..., key)``. Errors about deeper values point at the nearest of these.
"""

from __future__ import annotations

import os
import re
from typing import Any

from clawgate.errors import PolicyError
from clawgate.policy.yamlload import Lines, read_text

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*(\"[^\"]*\"|[A-Za-z0-9_-]+)\s*=")
PREFIX = ("tool", "clawgate")


def read_pyproject(path: str | os.PathLike[str]) -> tuple[Any, Lines]:
    """The ``[tool.clawgate]`` table of ``path`` and a line for each key found."""
    import tomllib

    name = os.fspath(path)
    text = read_text(name)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        raise PolicyError(name, int(line.group(1)) if line else None,
                          f"invalid TOML: {exc}") from exc
    table = document.get("tool", {}).get("clawgate")
    if table is None:
        raise PolicyError(name, None, "no [tool.clawgate] table")
    return table, _lines(text)


def _lines(text: str) -> Lines:
    lines: Lines = {}
    current: tuple[str, ...] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(raw)
        if header is not None:
            parts = tuple(p.strip().strip('"') for p in header.group(1).split("."))
            current = parts[2:] if parts[:2] == PREFIX else None
            if current is not None:
                lines.setdefault(current, number)
            continue
        key = _KEY.match(raw)
        if key is not None and current is not None:
            lines.setdefault((*current, key.group(1).strip('"')), number)
    return lines
