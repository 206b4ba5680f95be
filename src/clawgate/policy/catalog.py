"""The built-in tool names, their groups and the four profiles (plain data, no pydantic).

Groups (documented in ``policies/default.yaml``):

- ``group:fs``          read_file, write_file, edit_file, list_directory, glob, grep
- ``group:runtime``     exec_shell, spawn
- ``group:web``         web_fetch, web_search
- ``group:memory``      memory_read, memory_write
- ``group:messaging``   message
- ``group:sessions``    session tools (listing, history, sending to other sessions); no built-in
                        tool yet, custom tools join it with ``groups: [group:sessions]``
- ``group:ui``          browser and canvas tools; no built-in tool yet
- ``group:automation``  scheduled jobs and gateway control; no built-in tool yet
- ``mcp``               every MCP tool (named ``<server>__<tool>``)
- ``mcp:<server>``      the MCP tools of one server

Profiles: ``full`` (everything), ``coding`` (fs, runtime, web, memory), ``messaging``
(messaging, memory, web_search), ``minimal`` (read_file, list_directory).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase

BUILTIN_GROUPS: dict[str, tuple[str, ...]] = {
    "group:fs": ("read_file", "write_file", "edit_file", "list_directory", "glob", "grep"),
    "group:runtime": ("exec_shell", "spawn"),
    "group:web": ("web_fetch", "web_search"),
    "group:memory": ("memory_read", "memory_write"),
    "group:messaging": ("message",),
    "group:sessions": (),
    "group:ui": (),
    "group:automation": (),
}
BUILTIN_TOOLS: tuple[str, ...] = tuple(sorted({t for ts in BUILTIN_GROUPS.values() for t in ts}))
PROFILES: dict[str, tuple[str, ...]] = {
    "full": ("*",),
    "coding": ("group:fs", "group:runtime", "group:web", "group:memory"),
    "messaging": ("group:messaging", "group:memory", "web_search"),
    "minimal": ("read_file", "list_directory"),
}
MCP_SEPARATOR = "__"
GLOB_CHARS = frozenset("*?[")


def is_group(entry: str) -> bool:
    return entry.startswith("group:")


def is_glob(entry: str) -> bool:
    return any(c in GLOB_CHARS for c in entry)


def is_mcp_tool(name: str) -> bool:
    server, sep, tool = name.partition(MCP_SEPARATOR)
    return bool(sep and server and tool)


class Groups:
    """Built-in groups plus a policy's own definitions (``tools.groups``) and custom tools'
    memberships. Definitions may name other groups; cycles are refused at load."""

    def __init__(self, defined: Mapping[str, Iterable[str]] | None = None,
                 members: Mapping[str, Iterable[str]] | None = None) -> None:
        self._defs: dict[str, tuple[str, ...]] = dict(BUILTIN_GROUPS)
        for name, entries in (defined or {}).items():
            self._defs[name] = tuple(entries)
        for group, tools in (members or {}).items():
            self._defs[group] = (*self._defs.get(group, ()), *tools)

    def known(self, group: str) -> bool:
        return group in self._defs

    def names(self) -> list[str]:
        return sorted(self._defs)

    def expand(self, entries: Iterable[str], universe: Iterable[str]) -> set[str]:
        """The tool names of ``universe`` that ``entries`` name (names, groups, globs, mcp)."""
        pool = sorted(set(universe))
        found: set[str] = set()
        for entry in entries:
            found |= self._expand_one(entry, pool, ())
        return found

    def _expand_one(self, entry: str, pool: list[str], seen: tuple[str, ...]) -> set[str]:
        if entry == "mcp":
            return {n for n in pool if is_mcp_tool(n)}
        if entry.startswith("mcp:"):
            prefix = entry[4:] + MCP_SEPARATOR
            return {n for n in pool if n.startswith(prefix) and is_mcp_tool(n)}
        if is_group(entry):
            if entry in seen:
                raise ValueError(f"group cycle: {' -> '.join((*seen, entry))}")
            out: set[str] = set()
            for inner in self._defs.get(entry, ()):
                out |= self._expand_one(inner, pool, (*seen, entry))
            return out
        if is_glob(entry):
            return {n for n in pool if fnmatchcase(n, entry)}
        return {entry} & set(pool)

    def cycle(self) -> tuple[str, str] | None:
        """The first group found in a cycle of definitions and the cycle, or None."""
        for name in self._defs:
            try:
                self._expand_one(name, [], ())
            except ValueError as exc:
                return name, str(exc)
        return None

    def profile(self, name: str, universe: Iterable[str]) -> set[str]:
        return self.expand(PROFILES[name], universe)
