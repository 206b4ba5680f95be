"""What a Guard is wired from: the policy's engine, tools, executor, approvals, limits, audit.

Kept apart from ``guard.py`` so that the call path there reads as the nine steps it takes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from clawgate.approval import (
    ApprovalRequest,
    ApprovalStore,
    Approver,
    DenyAllApprover,
    seek_approval,
)
from clawgate.audit import AuditLog, AuditRecord
from clawgate.decision import Decision, Outcome, Reason
from clawgate.engine import Engine
from clawgate.errors import ToolError, ToolErrorKind
from clawgate.policy.settings import Autonomy, EngineSettings
from clawgate.policy.visibility import ToolContext
from clawgate.ratelimit import RateLimiter
from clawgate.records import record, replace
from clawgate.tools.base import Result, Tool, ToolRegistry
from clawgate.tools.builtin import builtin_tools, custom_tools
from clawgate.tools.checks import decide_call
from clawgate.tools.paths import Workspace
from clawgate.tools.scrub import Scrubber, truncate
from clawgate.tools.urls import UrlPolicy

if TYPE_CHECKING:
    from clawgate.executors import Executor
    from clawgate.guard import CallContext
    from clawgate.policy.policy import Policy
    from clawgate.tools.messaging import MessageBus


def refusal(decision: Decision, why: str) -> ToolError:
    """The PermissionDenied a model sees: the deciding rules and their hints."""
    said = "; ".join(f"{r.rule_id}: {r.message}" + (f" (hint: {r.hint})" if r.hint else "")
                     for r in decision.reasons) or "no rule allowed it"
    return ToolError(ToolErrorKind.PERMISSION_DENIED, f"{why}: {said}", decision.reasons)


@record()
class Setup:
    policy: Policy
    engine: Engine
    workspace: Workspace
    executor: Executor
    registry: ToolRegistry
    urls: UrlPolicy
    approver: Approver
    approvals: ApprovalStore | None
    audit: AuditLog | None
    scrubber: Scrubber
    limiter: RateLimiter
    max_iterations: int
    max_result_bytes: int
    trusted: bool
    exec_limiter: RateLimiter  # rate_limit.exec_per_minute: calls that run commands

    @classmethod
    def build(cls, policy: Policy, *, workspace: str | os.PathLike[str] | None,
              executor: Executor | None, approver: Approver | None,
              audit_log: AuditLog | str | os.PathLike[str] | None,
              approval_store: ApprovalStore | None, message_bus: MessageBus | None) -> Setup:
        settings = policy.engine_settings()
        root = os.path.abspath(os.fspath(workspace or settings.workspace or "."))
        space = Workspace(root, forbidden=settings.forbidden_paths)
        hooks, web, limits = policy.hooks, policy.web, policy.rate_limit
        runner = executor or executor_for(policy, root)
        engine = engine_for(settings, root, in_container=_in_container(runner))
        urls = UrlPolicy(allowed_domains=tuple(web.allowed_domains),
                         blocked_domains=tuple(web.blocked_domains))
        env = {n: os.environ[n] for n in hooks.safe_env_names if n in os.environ}
        registry = ToolRegistry(builtin_tools(space, runner, urls, message_bus,
                                              search_endpoint=web.search_endpoint))
        for tool in custom_tools(policy, runner, root, env):
            registry.register(tool)
        log = audit_log if isinstance(audit_log, AuditLog) or audit_log is None else AuditLog(
            audit_log)
        return cls(policy, engine, space, runner, registry, urls, approver or DenyAllApprover(),
                   approval_store if approval_store is not None else ApprovalStore(root),
                   log, Scrubber(env=os.environ),
                   RateLimiter(limits.calls_per_minute, limits.burst),
                   hooks.budgets.max_tool_iterations, hooks.budgets.max_result_bytes,
                   hooks.trusted, RateLimiter(limits.exec_per_minute, limits.burst))

    # -- step 2 -----------------------------------------------------------------------------

    def visible(self, names: Sequence[str], ctx: CallContext) -> list[str]:
        tool_ctx = ToolContext(agent=ctx.agent, provider=ctx.provider,
                               subagent_depth=ctx.subagent_depth, group=ctx.group)
        seen = self.policy.visible_tools(names, tool_ctx).tools
        return [t for t in seen if not self.policy.hooks.denies(t)]

    def require_visible(self, name: str, names: Sequence[str], ctx: CallContext) -> None:
        if name not in self.visible(names, ctx):
            who = f"agent {ctx.agent!r}" if ctx.agent else "this agent"
            raise ToolError(ToolErrorKind.PERMISSION_DENIED,
                            f"the tool policy does not let {who} use {name!r}")

    # -- steps 4 and 5 ----------------------------------------------------------------------

    def decide(self, tool: Tool, name: str, args: Mapping[str, Any]) -> Decision:
        readonly = self.engine.settings.autonomy is Autonomy.READONLY
        return decide_call(tool, name, args, engine=self.engine, workspace=self.workspace,
                           urls=self.urls, readonly=readonly)

    def settle(self, name: str, args: Mapping[str, Any], ctx: CallContext,
               decision: Decision) -> None:
        """DENY refuses; ASK needs a yes from the approver (or a remembered allow-always)."""
        if decision.outcome is Outcome.DENY:
            raise refusal(decision, f"{name} denied")
        if decision.outcome is not Outcome.ASK or self.trusted:
            return
        request = ApprovalRequest(tool=name, args=dict(args), summary=decision.command,
                                  reasons=decision.reasons, session=ctx.session,
                                  agent=ctx.agent)
        if not seek_approval(request, self.approver, self.approvals).allowed:
            raise refusal(decision, f"{name} needs approval and was not approved")

    # -- steps 8 and 9 ----------------------------------------------------------------------

    def clean(self, name: str, value: Any) -> Result:
        """Scrub credentials from every string of the result, then cap each string's size."""
        result = value if isinstance(value, dict) else {"result": value}
        scrubbed = self.scrubber.scrub_value(result)
        assert isinstance(scrubbed, dict)
        return {k: truncate(v, self.max_result_bytes) if isinstance(v, str) else v
                for k, v in scrubbed.items()}

    def record(self, name: str, args: Mapping[str, Any], ctx: CallContext, outcome: str,
               reasons: Sequence[Reason], result: Mapping[str, Any], started: float) -> None:
        if self.audit is None:
            return
        summary = {k: (v if not isinstance(v, str) else v[:200]) for k, v in result.items()}
        self.audit.append(AuditRecord(
            session=ctx.session, agent=ctx.agent or "", tool=name, args=dict(args),
            outcome=outcome, reasons=tuple(reasons), result=summary,
            duration_ms=round((time.monotonic() - started) * 1000, 3)))


class ContainerEngine(Engine):
    """Judges commands as they run in a Docker container, where the workspace is mounted at
    ``/workspace``: that path is the workspace for the checks, and a host ``cwd`` inside the
    workspace is read as the same place under it (``/work/repo/src`` is ``/workspace/src``)."""

    def __init__(self, settings: EngineSettings, root: str, mount: str) -> None:
        self.root, self.mount = os.path.abspath(root), mount
        forbidden = tuple(self.inside(p) if os.path.isabs(p) else p  # relative: to the mount
                          for p in settings.forbidden_paths)
        super().__init__(replace(settings, workspace=mount, forbidden_paths=forbidden))

    def inside(self, path: str | None) -> str:
        """``path`` (absolute, on the host) as the container sees it; None is the workspace."""
        if path is None:
            return self.mount
        relative = os.path.relpath(os.path.abspath(path), self.root)
        if relative == os.curdir:
            return self.mount
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return path  # not under the mount: the executor refuses such a cwd anyway
        return os.path.join(self.mount, relative)

    def check(self, command: str, *, cwd: str | None = None) -> Decision:
        return super().check(command, cwd=self.inside(cwd))


def engine_for(settings: EngineSettings, root: str, *, in_container: bool) -> Engine:
    """The engine for a workspace: as the host sees it, or as a Docker container does."""
    if in_container:
        from clawgate.executors.docker_exec import WORKSPACE

        return ContainerEngine(settings, root, WORKSPACE)
    return Engine(replace(settings, workspace=root))


def _in_container(executor: Executor) -> bool:
    from clawgate.executors import DockerExecutor

    return isinstance(executor, DockerExecutor)


def executor_for(policy: Policy, workspace: str) -> Executor:
    """The executor the manifest asks for. A missing sandbox raises SandboxUnavailable."""
    from clawgate.executors import executor_from_settings

    return executor_from_settings(policy.executor, workspace=workspace,
                                  safe_env_names=tuple(policy.hooks.safe_env_names))

