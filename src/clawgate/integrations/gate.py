"""The decide-only guard the adapters share: one policy, the same checks as ``Guard``, no
executor (the agent, or the wrapped MCP server, runs what is allowed).

``decide`` is steps 2 and 4 of the guard's call path for a ``Call``: the tool policy, then
commands through the engine, paths through workspace containment, URLs through the SSRF check;
the strictest answer wins (``tools.checks.combine``). ``settle`` is step 5 for adapters that
can ask a person themselves; ``say`` (scrub and cap a message) and ``record`` are steps 8 and
9 (the MCP proxy's results are cleaned in ``mcp_proxy/cleaning.py``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from clawgate.approval import ApprovalRequest, ApprovalStore, Approver, seek_approval
from clawgate.audit import AuditLog, AuditRecord
from clawgate.decision import Decision, Outcome, Reason, Risk
from clawgate.engine import Engine
from clawgate.errors import ToolError
from clawgate.guard import CallContext
from clawgate.integrations.calls import Call, Kind
from clawgate.integrations.webaddr import url_problem
from clawgate.policy.catalog import BUILTIN_TOOLS
from clawgate.policy.settings import Autonomy
from clawgate.policy.visibility import ToolContext
from clawgate.protected import PROTECTED_ID, protected_reason
from clawgate.records import replace
from clawgate.tools.checks import READONLY_ID, combine, describe
from clawgate.tools.paths import Workspace
from clawgate.tools.scrub import Scrubber, truncate
from clawgate.tools.urls import UrlPolicy, check_url

if TYPE_CHECKING:
    from clawgate.policy.policy import Policy

MALFORMED_ID = "CG-ADAPT-001"
INTERNAL_ID = "CG-ADAPT-002"
UNKNOWN_TOOL_ID = "CG-ADAPT-003"
TOOL_POLICY_ID = "CG-ADAPT-004"
PATH_ID = "CG-ADAPT-005"
URL_ID = "CG-ADAPT-006"
APPROVAL_ID = "CG-ADAPT-007"
TRUSTED_ID = "CG-ADAPT-008"


def refused(summary: str, rule_id: str, message: str, hint: str | None = None,
            risk: Risk = Risk.HIGH) -> Decision:
    return Decision(summary, Outcome.DENY, risk, (Reason(rule_id, message, hint, summary),))


class Gate:
    """Decides calls under one policy for one workspace; asks, scrubs and audits on request.

    The workspace is ``workspace`` if given, else the policy's, else ``fallback_workspace``
    (a hook's ``cwd``), else the current directory. ``approver`` None means nobody can be
    asked: ``settle`` turns an ASK into a DENY.
    """

    def __init__(self, policy: Policy, *, workspace: str | os.PathLike[str] | None = None,
                 fallback_workspace: str | None = None, approver: Approver | None = None,
                 audit_log: AuditLog | str | os.PathLike[str] | None = None,
                 approval_store: ApprovalStore | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        settings = policy.engine_settings()
        self.policy = policy
        chosen = workspace or settings.workspace or fallback_workspace or "."
        self.root = os.path.abspath(os.fspath(chosen))
        self.engine = Engine(replace(settings, workspace=self.root))
        self.workspace = Workspace(self.root, forbidden=settings.forbidden_paths)
        self.readonly = settings.autonomy is Autonomy.READONLY
        web = policy.web
        self.urls = UrlPolicy(allowed_domains=tuple(web.allowed_domains),
                              blocked_domains=tuple(web.blocked_domains))
        self.approver = approver
        self.approvals = approval_store
        self.scrubber = Scrubber(env=os.environ if env is None else env)
        self.audit = audit_log if isinstance(audit_log, AuditLog) or audit_log is None \
            else AuditLog(audit_log, scrubber=self.scrubber)
        self.trusted = policy.hooks.trusted
        self.max_result_bytes = policy.hooks.budgets.max_result_bytes

    # -- step 2 -----------------------------------------------------------------------------

    def visible(self, names: list[str], ctx: CallContext) -> list[str]:
        """Which of ``names`` the tool policy lets ``ctx`` see (built-in tools exist too)."""
        universe = {*BUILTIN_TOOLS, *self.policy.tools.custom, *names}
        tool_ctx = ToolContext(agent=ctx.agent, provider=ctx.provider,
                               subagent_depth=ctx.subagent_depth)
        seen = set(self.policy.visible_tools(universe, tool_ctx).tools)
        return [n for n in names if n in seen and not self.policy.hooks.denies(n)]

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
        for path in (*call.reads, *call.writes):
            try:
                self.workspace.resolve(path)
            except ToolError as exc:
                yield refused(summary, PATH_ID, exc.message,
                              hint=f"stay inside the workspace {self.root}")
        yield from self._protected(call, summary)
        if call.writes and self.readonly:
            yield refused(summary, READONLY_ID, "this agent may only read (autonomy readonly "
                          "or no write permission)", risk=Risk.MEDIUM)
        for url in call.urls:
            yield from self._url(url.strip(), summary)
        cwd = call.cwd or self.root
        for line in call.commands:
            yield self.engine.check(line, cwd=cwd)
        if not call.commands:  # outward is high, writes medium, reads low; opaque medium
            risk = Risk.HIGH if call.urls else Risk.MEDIUM if call.writes or not call.reads \
                else Risk.LOW
            yield Decision(summary, Outcome.ALLOW, risk)

    def _url(self, url: str, summary: str) -> Iterator[Decision]:
        """The URL rules, after a check that every parser reads the same host in ``url``."""
        problem = url_problem(url)
        if problem is not None:
            yield refused(summary, URL_ID, f"{url}: {problem}")
            return
        try:
            check_url(url, self.urls)
        except ToolError as exc:
            yield refused(summary, URL_ID, exc.message)

    def _protected(self, call: Call, summary: str) -> Iterator[Decision]:
        """A write to a protected path (git hooks and config, agent configuration, CI files
        ...) is never a silent allow: a person must approve."""
        for path in dict.fromkeys(call.written()):
            why = protected_reason(path, self.root)
            if why is not None:
                yield Decision(summary, Outcome.ASK, Risk.HIGH, (Reason(
                    PROTECTED_ID, why, "a person must approve writes to this path", summary),))

    # -- step 5 -----------------------------------------------------------------------------

    def settle(self, call: Call, ctx: CallContext, decision: Decision,
               hint: str | None = None) -> Decision:
        """ALLOW or DENY for an ASK: a trusted policy, a remembered allow-always, or the
        approver's answer (no approver: DENY). Other outcomes are returned as they are."""
        if decision.outcome is not Outcome.ASK:
            return decision
        if self.trusted:
            return replace(decision, outcome=Outcome.ALLOW, reasons=(*decision.reasons, Reason(
                TRUSTED_ID, "allowed without asking: the policy sets hooks.trusted")))
        request = ApprovalRequest(tool=call.tool, args=dict(call.args),
                                  summary=decision.command, reasons=decision.reasons,
                                  session=ctx.session, agent=ctx.agent)
        if self.approver is not None and seek_approval(request, self.approver,
                                                       self.approvals).allowed:
            return replace(decision, outcome=Outcome.ALLOW)
        why = "a person must approve and did not" if self.approver is not None else \
            "a person must approve, and no approver is configured"
        return replace(decision, outcome=Outcome.DENY, reasons=(
            Reason(APPROVAL_ID, why, hint, decision.command), *decision.reasons))

    # -- steps 8 and 9 ----------------------------------------------------------------------

    def say(self, message: str) -> str:
        """A message for the model or a person (an error, a reason): scrubbed and capped."""
        return truncate(self.scrubber.scrub(message), self.max_result_bytes)

    def record(self, call: Call, ctx: CallContext, decision: Decision,
               result: Mapping[str, Any] | None = None, started: float | None = None,
               outcome: str | None = None) -> None:
        """One audit line for the call (when an audit log is configured)."""
        if self.audit is None:
            return
        summary = {k: (v[:200] if isinstance(v, str) else v) for k, v in (result or {}).items()}
        elapsed = 0.0 if started is None else (time.monotonic() - started) * 1000
        self.audit.append(AuditRecord(
            session=ctx.session, agent=ctx.agent or "", tool=call.tool, args=dict(call.args),
            outcome=outcome or decision.outcome.label, reasons=decision.reasons,
            result=summary, duration_ms=round(elapsed, 3)))


def reason_text(decision: Decision) -> str:
    """The rules that decided and why, in one line (what a hook shows the agent or a person)."""
    said = "; ".join(f"{r.rule_id}: {r.message}" + (f" (hint: {r.hint})" if r.hint else "")
                     for r in decision.reasons)
    if said:
        return f"clawgate {decision.outcome.label}: {said}"
    return f"clawgate {decision.outcome.label}: no rule objected ({decision.risk.label} risk)"
