"""The decide-only guard the adapters share: one policy, the same checks as ``Guard``, no
executor (the agent, or the wrapped MCP server, runs what is allowed).

``decide`` is steps 2 and 4 of the guard's call path for a ``Call``: the tool policy, then
commands through the engine, paths through workspace containment, URLs through the SSRF check;
the strictest answer wins (``tools.checks.combine``). ``settle`` is step 5 for adapters that
can ask a person themselves; ``clean``, ``say`` (scrub and cap a message) and ``record`` are
steps 8 and 9 (the MCP proxy's results are cleaned in ``mcp_proxy/cleaning.py``). Every step but
the adapter-specific ones (the tool policy of step 2, protected paths written, URLs every parser
reads alike) is ``clawgate.callpath.CallPath``'s, the Guard's own: this class is a thin front of
it for ``Call`` values.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from clawgate.approval import ApprovalStore, Approver
from clawgate.audit import AuditLog
from clawgate.callpath import (
    APPROVAL_ID,
    INTERNAL_ID,
    PATH_ID,
    TRUSTED_ID,
    URL_ID,
    CallPath,
    refused,
)
from clawgate.decision import Decision, Outcome, Reason, Risk
from clawgate.guard import CallContext
from clawgate.integrations.calls import Call, Kind
from clawgate.integrations.webaddr import url_problem
from clawgate.policy.catalog import BUILTIN_TOOLS
from clawgate.protected import PROTECTED_ID, protected_reason
from clawgate.protectedpaths import STATE_WHY, state_below
from clawgate.tools.checks import READONLY_ID, combine, describe

if TYPE_CHECKING:
    from clawgate.policy.policy import Policy

__all__ = ["APPROVAL_ID", "INTERNAL_ID", "MALFORMED_ID", "PATH_ID", "TOOL_POLICY_ID",
           "TRUSTED_ID", "UNKNOWN_ARG_ID", "UNKNOWN_TOOL_ID", "URL_ID", "Gate", "reason_text",
           "refused"]

MALFORMED_ID = "CG-ADAPT-001"
UNKNOWN_TOOL_ID = "CG-ADAPT-003"
TOOL_POLICY_ID = "CG-ADAPT-004"
UNKNOWN_ARG_ID = "CG-ADAPT-009"
SEARCH_TOOLS = frozenset({"glob", "grep"})


class Gate:
    """Decides calls under one policy for one workspace; asks, scrubs and audits on request
    (``clawgate.callpath.CallPath``, the Guard's own path).

    The workspace is ``workspace`` if given, else the policy's, else ``fallback_workspace``
    (a hook's ``cwd``), else the current directory. ``approver`` None means nobody can be
    asked: ``settle`` turns an ASK into a DENY.
    """

    def __init__(self, policy: Policy, *, workspace: str | os.PathLike[str] | None = None,
                 fallback_workspace: str | None = None, approver: Approver | None = None,
                 audit_log: AuditLog | str | os.PathLike[str] | None = None,
                 approval_store: ApprovalStore | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        chosen = workspace or policy.engine_settings().workspace or fallback_workspace or "."
        self.path = CallPath(policy, os.path.abspath(os.fspath(chosen)), approver=approver,
                             approvals=approval_store, audit_log=audit_log, env=env)
        self.policy = policy
        self.root = self.path.root
        self.engine = self.path.engine
        self.workspace = self.path.workspace
        self.readonly = self.path.readonly
        self.urls = self.path.urls
        self.scrubber = self.path.scrubber
        self.audit = self.path.audit
        self.trusted = self.path.trusted
        self.max_result_bytes = self.path.max_result_bytes
        self.protected = self.path.protected

    # Who may say yes can be set after construction (the hooks and the proxy do).
    @property
    def approver(self) -> Approver | None:
        return self.path.approver

    @approver.setter
    def approver(self, value: Approver | None) -> None:
        self.path.approver = value

    @property
    def approvals(self) -> ApprovalStore | None:
        return self.path.approvals

    @approvals.setter
    def approvals(self, value: ApprovalStore | None) -> None:
        self.path.approvals = value

    # -- step 2 -----------------------------------------------------------------------------

    def visible(self, names: list[str], ctx: CallContext) -> list[str]:
        """Which of ``names`` the tool policy lets ``ctx`` see (built-in tools exist too)."""
        universe = {*BUILTIN_TOOLS, *self.policy.tools.custom, *names}
        return self.path.visible(names, ctx, universe)

    def _tool_policy(self, call: Call, ctx: CallContext, summary: str) -> Decision | None:
        who = f"agent {ctx.agent!r}" if ctx.agent else "this agent"
        shown = call.tool if call.agent_tool in ("", call.tool) else \
            f"{call.tool} ({call.agent_tool})"
        if call.kind is not Kind.TOOL:
            if self.policy.hooks.denies(call.tool):
                return refused(summary, TOOL_POLICY_ID, f"hooks.deny_tools denies {shown}")
            return None
        if not self.visible([call.tool], ctx):
            return refused(summary, TOOL_POLICY_ID,
                           f"the tool policy does not let {who} use {shown}")
        return None

    # -- step 4 -----------------------------------------------------------------------------

    def decide(self, call: Call, ctx: CallContext) -> Decision:
        """The decision for ``call``. Never raises: a failure of the machinery is a DENY."""
        summary = describe(call.agent_tool or call.tool, call.args)
        try:
            denied = self._tool_policy(call, ctx, summary)
            if denied is not None:
                return denied
            if call.kind is Kind.PASSIVE:
                return Decision(summary, Outcome.ALLOW, Risk.LOW)
            if call.kind is Kind.UNKNOWN:
                return Decision(summary, Outcome.ASK, Risk.MEDIUM, (Reason(
                    UNKNOWN_TOOL_ID, f"clawgate cannot see what {call.agent_tool or call.tool} "
                    "does; a person must approve", command=summary),))
            return combine(summary, self._checks(call, summary))
        except Exception as exc:  # fail closed: the machinery broke, never the verdict
            return refused(summary, INTERNAL_ID,
                           f"clawgate failed ({type(exc).__name__}: {exc}); failing closed")

    def _checks(self, call: Call, summary: str) -> Iterator[Decision]:
        if call.unknown_keys:  # read by meaning already; what else they do, a person judges
            shown = ", ".join(repr(k) for k in call.unknown_keys)
            yield Decision(summary, Outcome.ASK, Risk.MEDIUM, (Reason(
                UNKNOWN_ARG_ID, f"{call.agent_tool or call.tool} was given arguments "
                f"clawgate does not know ({shown}); a person must approve", command=summary),))
        yield from self._protected(call, summary)
        yield from self._searches(call, summary)
        for url in call.urls:
            problem = url_problem(url.strip())
            if problem is not None:
                yield refused(summary, URL_ID, f"{url}: {problem}")
        yield from self.path.decide_effects(call, summary)

    def _protected(self, call: Call, summary: str) -> Iterator[Decision]:
        """A write to a protected path (git hooks and config, agent configuration, CI files
        ...) is never a silent allow: a person must approve."""
        if call.own_files and self.readonly:
            yield refused(summary, READONLY_ID, "this agent may only read (autonomy readonly "
                          "or no write permission)", risk=Risk.MEDIUM)
        for path in dict.fromkeys((*call.written(), *call.own_files)):
            why = protected_reason(path, self.root, self.protected)
            if why is not None:
                yield Decision(summary, Outcome.ASK, Risk.HIGH, (Reason(
                    PROTECTED_ID, why, "a person must approve writes to this path", summary),))

    def _searches(self, call: Call, summary: str) -> Iterator[Decision]:
        """A search (an agent's own ``Glob`` or ``Grep``) from a directory above clawgate's
        state would read the grants and keys the file tools may not."""
        if call.tool not in SEARCH_TOOLS:
            return
        for path in call.reads:
            where = os.path.normpath(os.path.join(self.root, os.path.expanduser(path)))
            for spelling in dict.fromkeys((where, os.path.realpath(where))):
                found = state_below(spelling, self.workspace.guarded)
                if found is not None:
                    yield refused(summary, PATH_ID, f"{path}: a search there walks into "
                                  f"{found}, {STATE_WHY}", hint="search a directory below it "
                                  "or beside it")
                    return

    # -- step 5 -----------------------------------------------------------------------------

    def settle(self, call: Call, ctx: CallContext, decision: Decision,
               hint: str | None = None) -> Decision:
        """ALLOW or DENY for an ASK: a trusted policy, a remembered allow-always, or the
        approver's answer (no approver: DENY). Other outcomes are returned as they are."""
        return self.path.approve(call.tool, call.args, ctx, decision, hint)

    # -- steps 8 and 9 ----------------------------------------------------------------------

    def clean(self, value: Any) -> Any:
        """Credentials scrubbed from every string, each string capped (head and tail)."""
        return self.path.clean(value)

    def say(self, message: str) -> str:
        """A message for the model or a person (an error, a reason): scrubbed and capped."""
        return self.scrubber.scrub_capped(message, self.max_result_bytes)

    def record(self, call: Call, ctx: CallContext, decision: Decision,
               result: Mapping[str, Any] | None = None, started: float | None = None,
               outcome: str | None = None) -> None:
        """One audit line for the call (when an audit log is configured)."""
        self.path.record(call.tool, call.args, ctx, outcome or decision.outcome.label,
                         decision.reasons, result, started)


def reason_text(decision: Decision) -> str:
    """The rules that decided and why, in one line (what a hook shows the agent or a person)."""
    said = "; ".join(f"{r.rule_id}: {r.message}" + (f" (hint: {r.hint})" if r.hint else "")
                     for r in decision.reasons)
    if said:
        return f"clawgate {decision.outcome.label}: {said}"
    return f"clawgate {decision.outcome.label}: no rule objected ({decision.risk.label} risk)"
