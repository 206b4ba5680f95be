"""Claude Code's PreToolUse hook: every tool call Claude Code makes, decided by the policy.

``Bash`` goes through the command checker; ``Read``, ``Write``, ``Edit``, ``MultiEdit``,
``NotebookEdit``, ``Glob``, ``Grep`` and ``LS`` through workspace containment (and writes
through the read-only rule); ``WebFetch`` through the URL rules; ``mcp__<server>__<tool>``
through the tool policy (as ``<server>__<tool>``) and the argument checks of the MCP proxy.
Each Claude Code tool is governed by the built-in tool the policy knows (``Bash`` is
``exec_shell``, ``Read`` is ``read_file`` ...), so ``tools.deny: [exec_shell]`` removes ``Bash``.
Claude Code's own bookkeeping (``TodoWrite``, ``Task`` ...) is allowed; a tool clawgate does not
know is ASK. An argument Claude Code does not document for a tool (``ARGUMENTS``) is read by
meaning, like an MCP tool's (a command, path or URL in it is checked), and the call is at least
ASK: it may change what runs in a way clawgate cannot see.

The answer::

    {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                            "permissionDecision": "allow" | "deny" | "ask",
                            "permissionDecisionReason": "<rule and why>"}}
"""

from __future__ import annotations

from typing import Any

from clawgate.decision import Decision, Outcome
from clawgate.guard import CallContext
from clawgate.integrations.arguments import (
    commands_of,
    mcp_call,
    one_path,
    paths_of,
)
from clawgate.integrations.calls import Call, Kind, text
from clawgate.integrations.gate import Gate, reason_text
from clawgate.integrations.globs import glob_roots
from clawgate.integrations.hooks import Payload, at, documented, mcp_name

EVENT = "PreToolUse"
READS = {"Read": ("read_file", "file_path"), "NotebookRead": ("read_file", "notebook_path"),
         "LS": ("list_directory", "path")}
WRITES = {"Write": ("write_file", "file_path"), "Edit": ("edit_file", "file_path"),
          "MultiEdit": ("edit_file", "file_path"), "NotebookEdit": ("edit_file", "notebook_path")}
# The arguments Claude Code documents for each tool it has: any other is an unknown key.
ARGUMENTS: dict[str, frozenset[str]] = {name: frozenset(keys.split()) for name, keys in {
    "Bash": "command description timeout run_in_background dangerouslyDisableSandbox",
    "Read": "file_path offset limit pages", "NotebookRead": "notebook_path cell_id",
    "LS": "path ignore", "Write": "file_path content",
    "Edit": "file_path old_string new_string replace_all", "MultiEdit": "file_path edits",
    "NotebookEdit": "notebook_path new_source cell_id cell_type edit_mode",
    "Glob": "pattern path",
    "Grep": "pattern path glob type output_mode -A -B -C -n -i context multiline head_limit "
            "offset",
    "WebFetch": "url prompt", "WebSearch": "query allowed_domains blocked_domains",
}.items()}
PASSIVE = frozenset({"Task", "TodoWrite", "ExitPlanMode", "BashOutput", "KillShell", "KillBash",
                     "AskUserQuestion"})


class ClaudeCode:
    """The adapter ``policy hook claude-code`` runs."""

    event = EVENT

    def to_call(self, payload: Payload) -> Call:
        return documented(self._call(payload), payload, ARGUMENTS)

    def _call(self, payload: Payload) -> Call:
        name, args, cwd = payload.tool_name, payload.tool_input, payload.cwd
        if name == "Bash":
            return Call("exec_shell", args, commands=commands_of(args, "command"), cwd=cwd,
                        agent_tool=name)
        if name in READS:
            tool, key = READS[name]
            reads = tuple(at(cwd, p) for p in paths_of(args, key))
            return Call(tool, args, reads=reads, agent_tool=name)
        if name in WRITES:
            tool, key = WRITES[name]
            writes = tuple(at(cwd, p) for p in paths_of(args, key))
            return Call(tool, args, writes=writes, agent_tool=name)
        if name in ("Glob", "Grep"):
            return _search(name, args, cwd)
        if name == "WebFetch":
            return Call("web_fetch", args, urls=paths_of(args, "url"), agent_tool=name)
        if name == "WebSearch":
            text(args, "query")
            return Call("web_search", args, agent_tool=name)
        policy_name = mcp_name(name)
        if policy_name is not None:
            return mcp_call(policy_name, args, agent_tool=name)
        kind = Kind.PASSIVE if name in PASSIVE else Kind.UNKNOWN
        return Call(name, args, kind=kind, agent_tool=name)

    def finish(self, gate: Gate, call: Call, ctx: CallContext, decision: Decision) -> Decision:
        """Claude Code asks the person itself, so an ASK stays an ASK unless the policy is
        trusted or ``--approver`` was given."""
        if decision.outcome is Outcome.ASK and (gate.trusted or gate.approver is not None):
            return gate.settle(call, ctx, decision)
        return decision

    def render(self, decision: Decision) -> dict[str, Any]:
        return {"hookSpecificOutput": {
            "hookEventName": EVENT,
            "permissionDecision": decision.outcome.label,
            "permissionDecisionReason": reason_text(decision)}}


def _search(name: str, args: Any, cwd: str) -> Call:
    """``Glob`` and ``Grep``: the directory searched, and every root a glob pattern (Glob's
    ``pattern``, Grep's ``glob``) can expand to."""
    base = at(cwd, one_path(args, "path") or ".")
    reads = [base]
    pattern = text(args, "pattern")
    if name == "Glob":
        reads.extend(at(base, root) for root in glob_roots(str(pattern)))
    extra = text(args, "glob", required=False)
    if extra:
        reads.extend(at(base, root) for root in glob_roots(extra))
    tool = "glob" if name == "Glob" else "grep"
    return Call(tool, args, reads=tuple(dict.fromkeys(reads)), agent_tool=name)
