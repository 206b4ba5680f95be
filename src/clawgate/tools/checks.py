"""Step 4 of a guarded call: what a tool call would do, checked before it runs.

Shell tools hand over their command lines (``commands(args)``) for the engine; file tools'
paths go through workspace containment; ``web_fetch`` URLs through the SSRF check. The result
is one Decision for the call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from clawgate.decision import Decision, Outcome, Reason, Risk
from clawgate.engine import Engine
from clawgate.tools.paths import Workspace
from clawgate.tools.urls import UrlPolicy, check_url

WRITE_TOOLS = frozenset({"write_file", "edit_file", "memory_write"})
READ_TOOLS = frozenset({"read_file", "list_directory", "glob", "grep", "memory_read"})
OUTWARD_TOOLS = frozenset({"web_fetch", "web_search", "message"})
PATH_KEYS = ("path",)
READONLY_ID = "CG-TOOL-001"


def describe(name: str, args: Mapping[str, Any]) -> str:
    """A one-line summary of a call, for reasons, approvals and the audit log."""
    shown = json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)
    return f"{name}({shown[:300]})"


def combine(summary: str, decisions: Iterable[Decision]) -> Decision:
    """The strictest of several decisions (a call that runs several command lines)."""
    found = list(decisions)
    if not found:
        return Decision(summary, Outcome.ALLOW, Risk.LOW)
    outcome = max(d.outcome for d in found)
    reasons = tuple(dict.fromkeys(r for d in found if d.outcome is outcome for r in d.reasons))
    return Decision(summary if len(found) > 1 else found[0].command, outcome,
                    max(d.risk for d in found), reasons, any(d.misparsing for d in found))


def decide_call(tool: Any, name: str, args: Mapping[str, Any], *, engine: Engine,
                workspace: Workspace, urls: UrlPolicy, readonly: bool,
                cwd: str | None = None, protected: tuple[str, ...] = ()) -> Decision:
    """The decision for one validated call. Raises ToolError for a path, pattern or URL
    refused. Command lines are judged as run in ``cwd`` (the workspace by default); a write
    tool asks for the protected paths, the policy's own (``protected``) among them."""
    commands = getattr(tool, "commands", None)
    if callable(commands):
        lines = commands(dict(args))
        return combine(describe(name, args),
                       (engine.check(line, cwd=cwd or str(workspace.root)) for line in lines))
    refuses = getattr(tool, "refuses", None)  # what the tool would refuse to run anyway
    if callable(refuses):
        refuses(dict(args))
    for key in PATH_KEYS:
        if isinstance(args.get(key), str):
            workspace.resolve(args[key])
    summary = describe(name, args)
    if name in WRITE_TOOLS:
        if readonly:
            return Decision(summary, Outcome.DENY, Risk.MEDIUM, (Reason(
                READONLY_ID, "this agent may only read (autonomy readonly or no write "
                "permission)", command=summary),))
        asks = getattr(tool, "asks", None)  # a protected path: a person must approve
        reasons = tuple(asks(dict(args), protected)) if callable(asks) else ()
        if reasons:
            return Decision(summary, Outcome.ASK, Risk.HIGH, reasons)
        return Decision(summary, Outcome.ALLOW, Risk.MEDIUM)
    if name == "web_fetch":
        check_url(str(args.get("url", "")), urls)
    risk = Risk.LOW if name in READ_TOOLS else Risk.HIGH if name in OUTWARD_TOOLS else Risk.MEDIUM
    return Decision(summary, Outcome.ALLOW, risk)
