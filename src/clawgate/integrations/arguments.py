"""What an MCP tool's arguments would touch, read by meaning (see ``meaning.py``).

An MCP server's tools are opaque to clawgate, so each argument is read by what it means: the
tool's input schema (``format: uri``, a description such as "Path to the file"), the argument's
name (``path``, ``paths``, ``filePath``, ``source``, ``destination``, ``target``, ``cwd``,
``url``, ``endpoint``, ``command``, ``cmd``, ``script`` ...) and the value itself (a URL with a
scheme, a path that is absolute or starts with ``~`` or climbs with ``..``, one word naming a
protected path; an object's keys are read by the same shape), recursively into
nested objects and lists (their schemas followed), to a bounded depth; a deeper value is refused
rather than skipped. Glob patterns (``glob``, ``include``, ``pattern`` ...) are checked at every
root they can expand to (``globs.py``).

What a command holds is checked as what it will run: a string as the shell line it is; a
list of strings as the line it becomes (``shlex.join``) *and* each element on its own (a server
may hand one to a shell); anything else under ``command``, ``cmd``, ``script`` or ``shell`` (a
number, null, an object; a bool under ``shell`` is a flag) is refused. A path or URL holds a
string or a list of them, each checked; a number, null or bool under ``path``, ``file``,
``url`` ... is refused. Refusals raise ``BadInput`` (CG-ADAPT-001): never forwarded unchecked.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from clawgate.integrations.calls import BadInput, Call, Kind
from clawgate.integrations.globs import glob_roots
from clawgate.integrations.meaning import (
    STRICT_NAMES,
    Meaning,
    items_schema,
    meaning_of,
    name_meaning,
    normal,
    property_schema,
    value_meaning,
)

WEB_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})

ARGV_KEY = "args"
MAX_DEPTH = 16


@dataclass
class _Found:
    commands: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Where:
    schema: Mapping[str, Any] | None  # the schema of the value being read, when known
    root: Mapping[str, Any] | None  # the whole input schema, for $ref
    depth: int

    def deeper(self, schema: Mapping[str, Any] | None) -> _Where:
        return _Where(schema, self.root, self.depth + 1)


def mcp_call(tool: str, args: Mapping[str, Any], agent_tool: str = "",
             schema: Mapping[str, Any] | None = None, read_only: bool = False) -> Call:
    """The Call for an MCP tool named ``tool`` (``<server>__<tool>`` in the policy), read with
    its input ``schema`` when known. Its paths may be written (protected paths ask) unless
    the server declares the tool ``read_only``."""
    found = _Found()
    _walk(args, found, _Where(schema, schema, 0))
    return Call(tool, args, commands=tuple(dict.fromkeys(found.commands)),
                reads=tuple(dict.fromkeys(found.paths)), urls=tuple(dict.fromkeys(found.urls)),
                kind=Kind.TOOL, agent_tool=agent_tool or tool, opaque_paths=not read_only)


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


def _walk(value: Any, found: _Found, where: _Where) -> None:
    if where.depth > MAX_DEPTH:
        raise BadInput(f"arguments nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, Mapping):
        _mapping(value, found, where)
    elif isinstance(value, list | tuple):
        items = items_schema(where.schema, where.root)
        for item in value:
            _walk(item, found, where.deeper(items))
    elif isinstance(value, str):
        _by_shape(value, found)


def _by_shape(value: str, found: _Found) -> None:
    """A string whose own shape says what it is: a URL with a scheme, or a path."""
    shape = value_meaning(value)
    if shape is Meaning.URL:
        _url_or_path(value, found)
    elif shape is Meaning.PATH:
        _path(value, found)


def _mapping(args: Mapping[str, Any], found: _Found, where: _Where) -> None:
    keys = {str(k).lower() for k in args}
    beside = ARGV_KEY in keys and any(name_meaning(k) is Meaning.COMMAND for k in keys)
    for key, value in args.items():
        name = str(key)
        if value_meaning(name) is not Meaning.NONE:  # {"files": {"CLAUDE.md": "..."}}
            _by_shape(name, found)
        sub = property_schema(where.schema, name, where.root)
        meaning = meaning_of(name, sub)
        if normal(name) == "shell" and isinstance(value, bool):
            continue  # `shell: true` says how to run the command beside it
        if name.lower() == ARGV_KEY and beside:
            continue  # read with the command it belongs to
        if name.lower() == ARGV_KEY and _strings(value) and value:
            found.commands.extend([shlex.join(value), *value])
        elif meaning is not Meaning.NONE and _meant(name, meaning, value, args, found):
            continue
        else:
            _walk(value, found, where.deeper(sub))


def _meant(key: str, meaning: Meaning, value: Any, args: Mapping[str, Any],
           found: _Found) -> bool:
    """Read ``value`` as ``meaning``; False when it is data to search instead (anything but
    a string or a list of strings, under a name that is not strictly a path, URL or
    command). Under a strict name (``path``, ``url``, ``command`` ...) it is refused."""
    strict = normal(key) in STRICT_NAMES
    strings = isinstance(value, str) or (_strings(value) and bool(value))
    if meaning is Meaning.COMMAND and (strings or strict):
        found.commands.extend(command_lines(key, value, args.get(ARGV_KEY)))
        return True
    if strings or _strings(value):
        for item in path_values(key, value):
            _as(meaning, item, found)
        return True
    if strict:
        path_values(key, value)  # raises BadInput: not a string or a list of strings
    return False


def _as(meaning: Meaning, item: str, found: _Found) -> None:
    if value_meaning(item) is Meaning.URL or meaning is Meaning.URL:
        _url_or_path(item, found)
    elif meaning is Meaning.GLOB:
        found.paths.extend(glob_roots(item.strip()))
    else:
        _path(item, found)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _path(value: str, found: _Found) -> None:
    """A path, and its stripped spelling too (a server may strip the spaces around it)."""
    found.paths.append(value)
    if value.strip() != value and value.strip():
        found.paths.append(value.strip())


def _url_or_path(value: str, found: _Found) -> None:
    """``file:`` URIs are paths; web URLs are checked (spaces around them and the scheme's
    case do not matter); other schemes name the server's own resources (``repo://...``) and
    carry nothing clawgate can check."""
    stripped = value.strip()
    parts = urlsplit(stripped)
    scheme = parts.scheme.lower()
    if scheme == "file":
        found.paths.append(unquote(parts.path) or "/")
    elif scheme in WEB_SCHEMES or not scheme:
        found.urls.append(stripped)


def with_unknown(call: Call, known: Collection[str], place: Callable[[str], str]) -> Call:
    """``call`` with the arguments outside ``known`` (the keys the agent documents for the
    tool) read by meaning, as an MCP tool's are: the commands, paths (made absolute by
    ``place``) and URLs in them join the call's checks, and their names are kept, for the
    gate to ask a person about (an argument clawgate does not know may change what runs)."""
    unknown = tuple(sorted(str(k) for k in call.args if str(k) not in known))
    if not unknown:
        return call
    found = _Found()
    _walk({k: call.args[k] for k in call.args if str(k) in unknown}, found, _Where(None, None, 0))
    paths = tuple(place(p) for p in found.paths)
    return dataclasses.replace(
        call, commands=tuple(dict.fromkeys((*call.commands, *found.commands))),
        reads=tuple(dict.fromkeys((*call.reads, *paths))),
        writes=tuple(dict.fromkeys((*call.writes, *paths))) if call.writes else call.writes,
        urls=tuple(dict.fromkeys((*call.urls, *found.urls))), unknown_keys=unknown)


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
