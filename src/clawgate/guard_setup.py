"""What a Guard is wired from: the policy's engine, tools, executor, approvals, limits, audit.

Kept apart from ``guard.py`` so that the call path there reads as the nine steps it takes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from clawgate.approval import ApprovalStore, Approver, DenyAllApprover
from clawgate.audit import AuditLog
from clawgate.auditplace import audit_log_for, default_audit_path
from clawgate.callpath import CallPath, ContainerEngine, engine_for, state_files
from clawgate.decision import Decision, Outcome, Reason
from clawgate.engine import Engine
from clawgate.errors import ToolError, ToolErrorKind
from clawgate.ratelimit import RateLimiter
from clawgate.records import record
from clawgate.tools.base import Result, Tool, ToolRegistry
from clawgate.tools.builtin import builtin_tools, custom_tools
from clawgate.tools.paths import Workspace
from clawgate.tools.scrub import Scrubber
from clawgate.tools.urls import UrlPolicy

if TYPE_CHECKING:
    from clawgate.executors import Executor
    from clawgate.guard import CallContext
    from clawgate.policy.policy import Policy
    from clawgate.tools.messaging import MessageBus

__all__ = ["ContainerEngine", "Setup", "audit_log_for", "default_audit_path", "engine_for",
           "executor_for", "refusal", "state_files"]


def refusal(decision: Decision, why: str) -> ToolError:
    """The PermissionDenied a model sees: the deciding rules and their hints."""
    said = "; ".join(f"{r.rule_id}: {r.message}" + (f" (hint: {r.hint})" if r.hint else "")
                     for r in decision.reasons) or "no rule allowed it"
    return ToolError(ToolErrorKind.PERMISSION_DENIED, f"{why}: {said}", decision.reasons)


@record()
class Setup:
    """The Guard's parts: the shared call path (decide, approve, scrub, audit), and what only
    the Guard has (its tools, its executor, the per-session rate limits, the turn budget)."""

    policy: Policy
    path: CallPath
    executor: Executor
    registry: ToolRegistry
    limiter: RateLimiter
    exec_limiter: RateLimiter  # rate_limit.exec_per_minute: calls that run commands
    max_iterations: int

    @classmethod
    def build(cls, policy: Policy, *, workspace: str | os.PathLike[str] | None,
              executor: Executor | None, approver: Approver | None,
              audit_log: AuditLog | str | os.PathLike[str] | bool | None,
              approval_store: ApprovalStore | None, message_bus: MessageBus | None,
              in_container: bool | None = None, secrets: bool = True) -> Setup:
        """``in_container``: judge commands as the Docker executor runs them (None: when
        ``executor`` is one). ``secrets`` False: custom tools get no secret values (a guard that
        only decides, which runs nothing)."""
        settings = policy.engine_settings()
        root = os.path.abspath(os.fspath(workspace or settings.workspace or "."))
        log = audit_log_for(audit_log, root)
        runner = executor or executor_for(policy, root)
        contained = _in_container(runner) if in_container is None else in_container
        path = CallPath(policy, root,
                        engine=engine_for(settings, root, in_container=contained,
                                          policy_files=state_files(policy, root)),
                        approver=approver or DenyAllApprover(),
                        approvals=approval_store if approval_store is not None
                        else ApprovalStore(root), audit_log=log)
        _audit_egress(runner, path.audit)
        web, limits = policy.web, policy.rate_limit
        env = {n: os.environ[n] for n in policy.hooks.safe_env_names if n in os.environ}
        registry = ToolRegistry(builtin_tools(path.workspace, runner, path.urls, message_bus,
                                              search_endpoint=web.search_endpoint))
        for tool in custom_tools(policy, runner, root, env, secrets=secrets):
            registry.register(tool)
        # A burst above the per-minute rate would let more commands run in a minute than the
        # rate says: exec_per_minute: 2 means two.
        exec_burst = min(limits.burst, limits.exec_per_minute)
        return cls(policy, path, runner, registry,
                   RateLimiter(limits.calls_per_minute, limits.burst),
                   RateLimiter(limits.exec_per_minute, exec_burst),
                   policy.hooks.budgets.max_tool_iterations)

    # What the call path holds, under the names the Guard has always had for it.
    @property
    def engine(self) -> Engine:
        return self.path.engine

    @property
    def workspace(self) -> Workspace:
        return self.path.workspace

    @property
    def urls(self) -> UrlPolicy:
        return self.path.urls

    @property
    def approver(self) -> Approver | None:
        return self.path.approver

    @property
    def approvals(self) -> ApprovalStore | None:
        return self.path.approvals

    @property
    def audit(self) -> AuditLog | None:
        return self.path.audit

    @property
    def scrubber(self) -> Scrubber:
        return self.path.scrubber

    @property
    def trusted(self) -> bool:
        return self.path.trusted

    @property
    def max_result_bytes(self) -> int:
        return self.path.max_result_bytes

    # -- step 2 -----------------------------------------------------------------------------

    def visible(self, names: Sequence[str], ctx: CallContext) -> list[str]:
        return sorted(self.path.visible(names, ctx))

    def require_visible(self, name: str, names: Sequence[str], ctx: CallContext) -> None:
        if name not in self.visible(names, ctx):
            who = f"agent {ctx.agent!r}" if ctx.agent else "this agent"
            raise ToolError(ToolErrorKind.PERMISSION_DENIED,
                            f"the tool policy does not let {who} use {name!r}")

    # -- steps 4 and 5 ----------------------------------------------------------------------

    def decide(self, tool: Tool, name: str, args: Mapping[str, Any],
               cwd: str | None = None) -> Decision:
        return self.path.decide_tool(tool, name, args, cwd)

    def settle(self, name: str, args: Mapping[str, Any], ctx: CallContext,
               decision: Decision) -> None:
        """DENY refuses; ASK needs a yes from the approver (or a remembered allow-always)."""
        if decision.outcome is Outcome.DENY:
            raise refusal(decision, f"{name} denied")
        settled = self.path.approve(name, args, ctx, decision)
        if settled.outcome is Outcome.DENY:  # its first reason says who refused, and why
            raise refusal(settled, f"{name} needs approval and was not approved")

    # -- steps 8 and 9 ----------------------------------------------------------------------

    def clean(self, name: str, value: Any) -> Result:
        """Scrub credentials from every string of the result, then cap each string's size."""
        cleaned = self.path.clean(value if isinstance(value, dict) else {"result": value})
        assert isinstance(cleaned, dict)
        return cleaned

    def clean_error(self, error: ToolError) -> ToolError:
        return self.path.clean_error(error)

    def record(self, name: str, args: Mapping[str, Any], ctx: CallContext, outcome: str,
               reasons: Sequence[Reason], result: Mapping[str, Any], started: float) -> None:
        self.path.record(name, args, ctx, outcome, reasons, result, started)

    def close(self) -> None:
        """Close the executor (a warm container goes) and the audit log. Idempotent."""
        try:
            self.executor.close()
        finally:
            if self.audit is not None:
                self.audit.close()


def _audit_egress(executor: Executor, log: AuditLog | None) -> None:
    """Send a sandbox's connections (bubblewrap's or Docker's) to the audit log, unless its
    caller chose where they go."""
    from clawgate.egressaudit import sink_for
    from clawgate.executors import BwrapExecutor, DockerExecutor

    if log is not None and isinstance(executor, (BwrapExecutor, DockerExecutor)) \
            and executor.egress_audit is None:
        executor.egress_audit = sink_for(log)


def _in_container(executor: Executor) -> bool:
    from clawgate.executors import DockerExecutor

    return isinstance(executor, DockerExecutor)


def executor_for(policy: Policy, workspace: str) -> Executor:
    """The executor the manifest asks for, the policy's own files inside the workspace
    read-only in a sandbox. A missing sandbox raises SandboxUnavailable (``kind: auto``
    falls back to the host with a warning)."""
    from clawgate.executors import executor_from_settings

    return executor_from_settings(policy.executor, workspace=workspace,
                                  safe_env_names=tuple(policy.hooks.safe_env_names),
                                  read_only=state_files(policy, workspace))
