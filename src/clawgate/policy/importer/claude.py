"""Claude Code permissions: ``permissions.allow/ask/deny`` in settings.json (or one rule a line).

- ``Bash``/``Bash(*)``: every command (a deny also takes ``exec_shell`` away);
  ``Bash(npm run test:*)``, ``Bash(git diff *)`` and ``Bash(ls*)`` are prefixes,
  ``Bash(git status)`` is exact. A ``*`` inside the pattern may span words: kept only when the
  words after it are flags (clawgate matches flags anywhere), else dropped.
- ``Read``/``Edit``/``Write``/``Glob``/``Grep``/``LS``(path): a deny is a forbidden path (which
  clawgate refuses to read and to write); an allow inside the workspace is what workspace
  containment already does; an allow outside it, an ask, and patterns clawgate cannot express
  as one directory (``**/.env``, ``*.key``) are dropped.
- ``WebFetch(domain:host)``: allow joins ``web.allowed_domains`` (then other hosts are refused,
  where Claude Code would ask), deny ``web.blocked_domains``.
- ``mcp__server`` and ``mcp__server__tool``: the tool policy's ``mcp:server`` and
  ``server__tool``; bare tool names (``WebSearch``) likewise, as the hook names them.

Claude Code's deny beats ask beats allow, as clawgate's strictest rule wins. What no rule names
is left to clawgate's checks (Claude Code would ask).
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from clawgate.lazyre import lazy_pattern
from clawgate.policy.importer.common import Imported, ImportFailure, line_at

RULE = lazy_pattern(r"^(?P<tool>[A-Za-z_][A-Za-z0-9_-]*)(?:\((?P<spec>.*)\))?$", re.DOTALL)
TOOLS = {"Bash": ["exec_shell"], "Read": ["read_file"], "Edit": ["edit_file", "write_file"],
         "MultiEdit": ["edit_file"], "Write": ["write_file"], "NotebookEdit": ["edit_file"],
         "NotebookRead": ["read_file"], "Glob": ["glob"], "Grep": ["grep"],
         "LS": ["list_directory"], "WebFetch": ["web_fetch"], "WebSearch": ["web_search"]}
PATH_TOOLS = frozenset({"Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "NotebookRead",
                        "Glob", "Grep", "LS"})
PARAM = lazy_pattern(r"^(?:command|description|timeout|run_in_background|file_path|"
                     r"notebook_path|path|pattern|glob|url|prompt|query):(?!\*$)")
LISTS = ("deny", "ask", "allow")
INERT_KEYS = frozenset({"disableBypassPermissionsMode"})


def from_claude(text: str) -> Imported:
    out = Imported("claude")
    if text.lstrip()[:1] in ("{", "["):
        for line, entry, decision in _settings(text, out):
            _entry(out, line, entry, decision)
    else:
        for number, raw in enumerate(text.splitlines(), 1):
            entry = raw.strip()
            if entry and not entry.startswith("#"):
                if RULE.match(entry) is None:
                    raise ImportFailure(number, f"{entry[:60]!r} is not a Claude Code "
                                                "permission rule such as Bash(git status)")
                _entry(out, number, entry, "allow")
    if not out.seen:
        raise ImportFailure(1, "no permission rules (permissions.allow/ask/deny) to import")
    return out


def _settings(text: str, out: Imported) -> list[tuple[int, str, str]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFailure(exc.lineno, f"not valid JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise ImportFailure(1, "a Claude Code settings file is a JSON object")
    permissions = data.get("permissions", {})
    if not isinstance(permissions, dict):
        raise ImportFailure(_key_line(text, "permissions"), "'permissions' must be an object")
    found: list[tuple[int, str, str]] = []
    for key, value in permissions.items():
        line = _key_line(text, key)
        if key in LISTS:
            found.extend(_list(text, key, value, line))
        else:
            _other_key(out, line, key, value)
    return found


def _list(text: str, key: str, value: Any, line: int) -> list[tuple[int, str, str]]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ImportFailure(line, f"permissions.{key} must be a list of strings")
    start = text.find(f'"{key}"')
    found = []
    for entry in value:
        at = text.find(json.dumps(entry)[1:-1], start)
        found.append((line_at(text, at) if at >= 0 else line, entry, key))
        start = at if at >= 0 else start
    return found


def _other_key(out: Imported, line: int, key: str, value: Any) -> None:
    if key in INERT_KEYS or (key == "defaultMode" and value == "default") or (
            key == "additionalDirectories" and value == []):
        return
    out.seen += 1
    out.drop(line, f"permissions.{key}: {json.dumps(value)}",
             "not a permission rule; clawgate has no equivalent setting")


def _key_line(text: str, key: str) -> int:
    at = text.find(f'"{key}"')
    return line_at(text, at) if at >= 0 else 1


def _entry(out: Imported, line: int, entry: str, decision: str) -> None:
    out.seen += 1
    found = RULE.match(entry.strip())
    if found is None:
        out.drop(line, entry, "not a Claude Code permission rule")
        return
    tool, spec = found.group("tool"), found.group("spec")
    if tool.startswith("mcp__"):
        _mcp(out, line, entry, decision, tool, spec)
    elif tool not in TOOLS:
        out.drop(line, entry, f"clawgate does not know the Claude Code tool {tool!r}")
    elif spec is not None and PARAM.match(spec.strip()):
        out.drop(line, entry, "a Tool(parameter:value) rule; clawgate does not match tool "
                              "parameters one by one")
    elif spec is None or spec.strip() in ("", "*"):
        if tool == "Bash":
            out.whole_shell(line, entry, decision, f"imported from Claude Code: {entry}")
        else:
            out.tool(line, entry, decision, TOOLS[tool])
    elif tool == "Bash":
        _bash(out, line, entry, decision, spec.strip())
    elif tool in PATH_TOOLS:
        _path(out, line, entry, decision, spec.strip())
    elif tool == "WebFetch" and spec.startswith("domain:"):
        _domain(out, line, entry, decision, spec.removeprefix("domain:").strip())
    else:
        out.drop(line, entry, f"clawgate cannot express a {tool} rule for {spec!r}")


def _mcp(out: Imported, line: int, entry: str, decision: str, tool: str,
         spec: str | None) -> None:
    server, _, name = tool[5:].partition("__")
    if spec is not None or not server:
        out.drop(line, entry, "an MCP rule names a server or one of its tools, nothing more")
        return
    out.tool(line, entry, decision, [f"mcp:{server}" if name in ("", "*") else
                                     f"{server}__{name}"])


def _bash(out: Imported, line: int, entry: str, decision: str, spec: str) -> None:
    prefix = spec.endswith((":*", " *"))
    body = spec[:-2].rstrip() if prefix else spec
    if any(c in body for c in "?["):
        out.drop(line, entry, "? and [ are literal in Claude Code; clawgate reads them as globs")
        return
    try:
        words = shlex.split(body)
    except ValueError as exc:
        out.drop(line, entry, f"cannot split into words: {exc}")
        return
    if body.endswith("*") and not body.endswith(" *") and words and words[-1] != "*":
        prefix = True  # `ls*`: the last word is a glob, later words are free
    while "*" in words[1:] and all(w.startswith("-") for w in words[words.index("*") + 1:]):
        words.remove("*")  # flags after `*` may be anywhere in clawgate too
        prefix = True
    if not words or "*" in words[1:] or any("*" in w for w in words[:-1]):
        out.drop(line, entry, "a * inside the pattern may span several words; clawgate rules "
                              "match word by word")
        return
    example = None if "*" in body else {"match": [body]}
    out.shell(line, entry, list(words), decision, f"imported from Claude Code: {entry}",
              exact=not prefix, examples=example)


def _path(out: Imported, line: int, entry: str, decision: str, spec: str) -> None:
    if decision == "ask":
        out.drop(line, entry, "clawgate cannot ask before a path is used")
        return
    if spec.startswith("/") and not spec.startswith("//"):
        out.drop(line, entry, "a path relative to the settings file; write it as ./path "
                              "(workspace) or //absolute")
        return
    path = spec[1:] if spec.startswith("//") else spec.removeprefix("./")
    trimmed = "" if path == "**" else path.removesuffix("/**")  # a whole directory
    base = trimmed.rstrip("/") or ("/" if path.startswith("/") else ".")
    if any(c in base for c in "*?[{"):
        out.drop(line, entry, "clawgate forbids whole directories or files, not glob patterns")
    elif decision == "deny":
        out.forbidden.append(base)
        out.note(line, entry, "a forbidden path: clawgate refuses both reading and writing it")
    elif base.startswith(("/", "~")) or ".." in base.split("/"):
        out.drop(line, entry, "clawgate allows no path outside the workspace")
    else:
        out.note(line, entry, "kept: inside the workspace, clawgate allows it already")


def _domain(out: Imported, line: int, entry: str, decision: str, host: str) -> None:
    if decision == "ask" or not host or any(c in host for c in "*?/ "):
        out.drop(line, entry, "clawgate can only allow or block plain domain names")
        return
    (out.allowed_domains if decision == "allow" else out.blocked_domains).append(host.lower())
