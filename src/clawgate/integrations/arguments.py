"""What an MCP tool's arguments would touch, read from their keys and values.

An MCP server's tools are opaque to clawgate, so their arguments are read the way a careful
reviewer would: keys that carry commands (``command``, ``cmd``, ``script``, ``shell``; with an
``args`` list beside a command, or alone, as one argv), keys that carry paths (``path``,
``file``, ``file_path``, ``filename``, ``directory``, ``dir``, ``cwd``) and URLs (``url``,
``uri``, ``href``, and any string that starts with ``http://`` or ``https://``). Nested objects
and lists are searched too, to a bounded depth; a deeper value is refused rather than skipped.

What a command key holds is checked as what it will run: a string as the shell line it is; a
list of strings as the line it becomes (``shlex.join``) *and* each element on its own (a server
may hand one to a shell); anything else (a number, null, an object, a bool: ``shell: true`` is
a flag, not a command) is refused. A path or URL key holds a string or a list of them, each
checked; anything else is refused. Refusals raise ``BadInput`` (CG-ADAPT-001): never forwarded
unchecked.
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
ARGV_KEY = "args"
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


def command_lines(key: str, value: Any, argv: Any = None) -> list[str]:
    """The shell lines to check for ``value`` under a command key (``argv``: an ``args``
    value beside it, a list of words or a string appended to the line). Raises BadInput."""
    if isinstance(value, str):
        words = _argv(argv)
        if words is None:
            return [value] if argv is None else [f"{value} {argv}"]
        return [f"{value} {shlex.join(words)}", *words] if words else [value]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        words = [*value, *(_argv(argv) or ())]
        return [shlex.join(words), *words]
    raise BadInput(f"{key!r} must be a command line (a string) or an argv (a non-empty list "
                   f"of strings), not {_kind(value)}")


def path_values(key: str, value: Any) -> list[str]:
    """The paths (or URLs) under ``key``: a string or a list of strings. Raises BadInput."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise BadInput(f"{key!r} must be a string or a list of strings, not {_kind(value)}")


def _argv(argv: Any) -> list[str] | None:
    """``args`` beside a command: a list of words, a string (None: appended as text)."""
    if argv is None or isinstance(argv, str):
        return None
    if isinstance(argv, list) and all(isinstance(a, str) for a in argv):
        return list(argv)
    raise BadInput(f"{ARGV_KEY!r} beside a command must be a list of strings or a string, "
                   f"not {_kind(argv)}")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "an empty list" if not value else "a list holding a non-string"
    names = {bool: "a bool", int: "a number", float: "a number", dict: "an object"}
    return names.get(type(value), type(value).__name__)


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
    keys = {str(k).lower() for k in args}
    beside = ARGV_KEY in keys and bool(keys & COMMAND_KEYS)
    for key, value in args.items():
        name = str(key).lower()
        if name == "shell" and isinstance(value, bool):
            continue  # `shell: true` says how to run the command beside it
        if name in COMMAND_KEYS:
            found.commands.extend(command_lines(str(key), value, args.get(ARGV_KEY)))
        elif name in PATH_KEYS:
            found.paths.extend(path_values(str(key), value))
        elif name in URL_KEYS:
            for item in path_values(str(key), value):
                _url_or_path(item, found)
        elif name == ARGV_KEY and beside:
            continue  # read with the command it belongs to
        elif name == ARGV_KEY and isinstance(value, list) and value and all(
                isinstance(a, str) for a in value):
            found.commands.extend([shlex.join(value), *value])
        else:
            _walk(value, found, depth + 1)


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


def commands_of(args: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """The lines to check for an agent's shell tool (its command under ``key``)."""
    if args.get(key) is None:
        raise BadInput(f"missing {key!r}")
    return tuple(dict.fromkeys(command_lines(key, args[key])))


def paths_of(args: Mapping[str, Any], *keys: str, required: bool = True) -> tuple[str, ...]:
    """Every path under any of ``keys`` (an agent may spell one argument several ways: each
    spelling present is checked, not only the first)."""
    found = [p for k in keys if k in args for p in path_values(k, args[k])]
    if required and not found:
        raise BadInput(f"missing {' or '.join(repr(k) for k in keys)}")
    return tuple(dict.fromkeys(found))


def one_path(args: Mapping[str, Any], *keys: str) -> str | None:
    """The one directory (or file) named by any of ``keys``, or None: two different values
    under two spellings are refused (which one the agent uses is not for clawgate to guess)."""
    found = paths_of(args, *keys, required=False)
    if len(found) > 1:
        raise BadInput(f"{' and '.join(repr(k) for k in keys if k in args)} name different "
                       "paths, or a list of them where one is expected")
    return found[0] if found else None
