"""What an MCP tool's arguments would touch, read from their keys and values.

An MCP server's tools are opaque to clawgate, so their arguments are read the way a careful
reviewer would: keys that carry commands (``command``, ``cmd``, ``script``, ``shell``; with an
``args`` list beside a command, or alone, as one argv), keys that carry paths (``path``,
``file``, ``file_path``, ``filename``, ``directory``, ``dir``, ``cwd``) and URLs (``url``,
``uri``, ``href``, and any string that starts with ``http://`` or ``https://``). Nested objects
and lists are searched too, to a bounded depth; a deeper value is refused rather than skipped.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from clawgate.integrations.calls import BadInput, Call, Kind

COMMAND_KEYS = frozenset({"command", "cmd", "script", "shell"})
PATH_KEYS = frozenset({"path", "file", "file_path", "filename", "directory", "dir", "cwd"})
URL_KEYS = frozenset({"url", "uri", "href"})
MAX_DEPTH = 16


@dataclass
class _Found:
    commands: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)


def mcp_call(tool: str, args: Mapping[str, Any], agent_tool: str = "") -> Call:
    """The Call for an MCP tool named ``tool`` (``<server>__<tool>`` in the policy)."""
    found = _Found()
    _walk(args, found, 0)
    return Call(tool, args, commands=tuple(dict.fromkeys(found.commands)),
                reads=tuple(dict.fromkeys(found.paths)), urls=tuple(dict.fromkeys(found.urls)),
                kind=Kind.TOOL, agent_tool=agent_tool or tool)


def _walk(value: Any, found: _Found, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise BadInput(f"arguments nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, Mapping):
        _mapping(value, found, depth)
    elif isinstance(value, list | tuple):
        for item in value:
            _walk(item, found, depth + 1)
    elif isinstance(value, str) and _is_web(value):
        found.urls.append(value)


def _mapping(args: Mapping[str, Any], found: _Found, depth: int) -> None:
    argv = args.get("args")
    argv_list = list(argv) if isinstance(argv, list) and all(
        isinstance(a, str) for a in argv) else None
    has_command = False
    for key, value in args.items():
        name = str(key).lower()
        if name in COMMAND_KEYS and isinstance(value, str | list):
            line = _line(value, argv_list)
            if line is not None:
                found.commands.append(line)
                has_command = True
                continue
        if name in PATH_KEYS and isinstance(value, str):
            found.paths.append(value)
            continue
        if name in URL_KEYS and isinstance(value, str):
            _url_or_path(value, found)
            continue
        _walk(value, found, depth + 1)
    if argv_list and not has_command:
        found.commands.append(shlex.join(argv_list))


def _line(value: str | list[Any], argv: list[str] | None) -> str | None:
    """A command string (with ``args`` appended as words), or an argv list, as one line."""
    if isinstance(value, str):
        return shlex.join([value, *argv]) if argv else value
    if value and all(isinstance(v, str) for v in value):
        return shlex.join(value)
    return None


def _url_or_path(value: str, found: _Found) -> None:
    """``file:`` URIs are paths; web URLs are checked; other schemes name the server's own
    resources (``repo://...``) and carry nothing clawgate can check."""
    scheme = urlsplit(value).scheme.lower()
    if scheme == "file":
        found.paths.append(unquote(urlsplit(value).path) or "/")
    elif scheme in ("http", "https") or not scheme or _is_web(value):
        found.urls.append(value)


def _is_web(value: str) -> bool:
    head = value[:8].lower()
    return head.startswith(("http://", "https://"))
