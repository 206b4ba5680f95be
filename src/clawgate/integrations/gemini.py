"""Gemini CLI's BeforeTool hook: the same policy for Gemini's tools.

``run_shell_command`` goes through the command checker (in its ``dir_path``); the file tools
(``read_file``, ``write_file``, ``replace``, ``glob``, ``search_file_content``/``grep``,
``list_directory``, ``read_many_files``) through workspace containment; ``save_memory``, which
appends to ``~/.gemini/GEMINI.md`` (instructions every later session reads), as a write to a
protected path (``memory_write`` in the tool policy); ``web_fetch`` through
the URL rules for every URL in its prompt; MCP tools (``mcp__<server>__<tool>``, older
``<server>__<tool>``) through the tool policy and the MCP argument checks.

Gemini CLI hooks cannot ask a person, so an ASK is answered ``deny`` with a reason saying a
person must approve, unless ``--approver terminal`` is given (then clawgate asks on the
terminal, and allow-always answers are remembered for the workspace). An argument Gemini CLI
does not document for its tool (``ARGUMENTS``) is read by meaning and makes the call ASK. The
answer::

    {"decision": "allow" | "deny", "reason": "<rule and why>"}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clawgate.decision import Decision, Outcome
from clawgate.guard import CallContext
from clawgate.integrations.arguments import (
    commands_of,
    mcp_call,
    one_path,
    paths_of,
)
from clawgate.integrations.calls import BadInput, Call, Kind, text, texts
from clawgate.integrations.gate import Gate, reason_text
from clawgate.integrations.globs import glob_roots
from clawgate.integrations.hooks import Payload, at, documented, mcp_name
from clawgate.integrations.webaddr import prompt_urls

EVENT = "BeforeTool"
GREP_TOOLS = frozenset({"search_file_content", "grep", "grep_search"})
PASSIVE = frozenset({"write_todos"})
# Where ``save_memory`` appends what it is told: the global context file every later session
# reads as instructions.
MEMORY_FILE = "~/.gemini/GEMINI.md"
_EDITED = "modified_by_user ai_proposed_content"  # set by Gemini CLI when a person edits
_SEARCH = "pattern dir_path path include case_sensitive respect_git_ignore " \
          "respect_gemini_ignore file_filtering_options"
# The arguments Gemini CLI documents for each tool it has (old and new spellings): any other
# is an unknown key.
ARGUMENTS: dict[str, frozenset[str]] = {name: frozenset(keys.split()) for name, keys in {
    "run_shell_command": "command description dir_path directory is_background",
    "read_file": "file_path absolute_path path offset limit",
    "write_file": f"file_path absolute_path content {_EDITED}",
    "replace": f"file_path absolute_path old_string new_string expected_replacements "
               f"instruction {_EDITED}",
    "list_directory": "dir_path path ignore file_filtering_options respect_git_ignore",
    "glob": _SEARCH, "search_file_content": _SEARCH, "grep": _SEARCH, "grep_search": _SEARCH,
    "read_many_files": "paths include exclude recursive useDefaultExcludes "
                       "file_filtering_options respect_git_ignore",
    "web_fetch": "prompt url", "google_web_search": "query", "save_memory": "fact",
}.items()}
NO_APPROVER_HINT = "Gemini CLI hooks cannot ask; run the hook with --approver terminal to be asked"


class Gemini:
    """The adapter ``policy hook gemini`` runs."""

    event = EVENT

    def to_call(self, payload: Payload) -> Call:
        return documented(self._call(payload), payload, ARGUMENTS)

    def _call(self, payload: Payload) -> Call:
        name, args, cwd = payload.tool_name, payload.tool_input, payload.cwd
        if name == "run_shell_command":
            where = one_path(args, "dir_path", "directory")
            here = at(cwd, where) if where else cwd
            return Call("exec_shell", args, commands=commands_of(args, "command"), cwd=here,
                        reads=(here,) if where else (), agent_tool=name)
        simple = _file_call(name, args, cwd)
        if simple is not None:
            return simple
        if name == "web_fetch":
            return _web_fetch(args)
        if name == "save_memory":  # governed as memory_write; its file steers every session
            text(args, "fact")
            return Call("memory_write", args, own_files=(MEMORY_FILE,), agent_tool=name)
        if name == "google_web_search":
            text(args, "query")
            return Call("web_search", args, agent_tool=name)
        policy_name = _mcp_tool(name, payload.raw.get("mcp_context"))
        if policy_name is not None:
            return mcp_call(policy_name, args, agent_tool=name)
        kind = Kind.PASSIVE if name in PASSIVE else Kind.UNKNOWN
        return Call(name, args, kind=kind, agent_tool=name)

    def finish(self, gate: Gate, call: Call, ctx: CallContext, decision: Decision) -> Decision:
        return gate.settle(call, ctx, decision, hint=NO_APPROVER_HINT if gate.approver is None
                           else None)

    def render(self, decision: Decision) -> dict[str, Any]:
        verdict = "allow" if decision.outcome is Outcome.ALLOW else "deny"
        return {"decision": verdict, "reason": reason_text(decision)}


def _file_call(name: str, args: Mapping[str, Any], cwd: str) -> Call | None:
    if name == "read_file":
        paths = paths_of(args, "file_path", "absolute_path", "path")
        return Call("read_file", args, reads=tuple(at(cwd, p) for p in paths), agent_tool=name)
    if name in ("write_file", "replace"):
        tool = "write_file" if name == "write_file" else "edit_file"
        paths = paths_of(args, "file_path", "absolute_path")
        return Call(tool, args, writes=tuple(at(cwd, p) for p in paths), agent_tool=name)
    if name == "list_directory":
        paths = paths_of(args, "dir_path", "path")
        return Call("list_directory", args, reads=tuple(at(cwd, p) for p in paths),
                    agent_tool=name)
    if name == "glob" or name in GREP_TOOLS:
        base = at(cwd, one_path(args, "dir_path", "path") or ".")
        patterns = texts(args, "include")
        if name == "glob":
            patterns = (str(text(args, "pattern")), *patterns)
        found = [base, *(at(base, root) for p in patterns for root in glob_roots(p))]
        tool = "glob" if name == "glob" else "grep"
        return Call(tool, args, reads=tuple(dict.fromkeys(found)), agent_tool=name)
    if name == "read_many_files":
        return _read_many(args, cwd)
    return None


def _read_many(args: Mapping[str, Any], cwd: str) -> Call:
    """``read_many_files``: every root its ``paths``/``include`` patterns can expand to; its
    ``exclude`` patterns may not climb or leave the workspace either."""
    patterns = (*texts(args, "paths"), *texts(args, "include"), *texts(args, "exclude"))
    reads = tuple(dict.fromkeys(at(cwd, root) for p in patterns for root in glob_roots(p)))
    return Call("read_file", args, reads=reads or (cwd,), agent_tool="read_many_files")


def _web_fetch(args: Mapping[str, Any]) -> Call:
    """``web_fetch``: every URL Gemini CLI would find in the ``prompt`` (each token holding
    ``://``, read whole), and the ``url`` parameter of newer versions."""
    prompt = text(args, "prompt", required=False)
    url = text(args, "url", required=False)
    if prompt is None and url is None:
        raise BadInput("missing 'prompt' or 'url'")
    urls = (*prompt_urls(prompt or ""), *([url] if url is not None else []))
    return Call("web_fetch", args, urls=tuple(dict.fromkeys(urls)), agent_tool="web_fetch")


def _mcp_tool(name: str, context: object) -> str | None:
    """The policy's ``<server>__<tool>`` for an MCP tool, or None for another tool.
    ``mcp_context`` (server_name, tool_name: the server's own name for it) is authoritative;
    without it the name is read as ``mcp__<server>__<tool>`` or ``<server>__<tool>``."""
    if isinstance(context, Mapping) and isinstance(context.get("server_name"), str):
        server = context["server_name"]
        tool = context.get("tool_name")
        if not isinstance(tool, str) or not tool:
            tool = name.removeprefix(f"mcp__{server}__").removeprefix(f"{server}__")
        return f"{server}__{tool}"
    named = mcp_name(name)
    if named is not None:
        return named
    server, sep, tool = name.partition("__")
    return f"{server}__{tool}" if sep and server and tool else None
