"""The library guard: every tool call takes the whole way, and nothing reaches the machine
without it.

::

    1 registry lookup .......................... NotFound
    2 tool policy: visible to this ctx? ........ PermissionDenied
    3 arguments against the JSON Schema ........ InvalidArgs
    4 tool checks: shell lines through the engine, paths through containment, URLs through
      the SSRF check
    5 outcome: DENY refuses, ASK goes to the approver (allow-always answers are remembered)
    6 rate limit per session ................... PermissionDenied
    7 execute (commands on the configured executor, under the spawn cap and a timeout)
    8 output: credential scrubbing, then truncation (head and tail)
    9 audit record (keyed, chained JSONL), for refusals and failures too

Steps 2, 4, 5, 8 and 9 are ``clawgate.callpath``'s, the path the adapters' Gate takes too;
errors shown to the caller (and so to the model) are scrubbed and capped like results.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import shlex
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar, overload

from clawgate.decision import Decision, Outcome, Reason, Risk
from clawgate.errors import ToolError, ToolErrorKind
from clawgate.syscall_anomaly import AnomalyLimits, SyscallAnomalyDetector, refused_in
from clawgate.tools.base import FunctionTool, Result, Tool, ToolRegistry, validate_arguments

if TYPE_CHECKING:
    from clawgate.approval import ApprovalStore, Approver
    from clawgate.audit import AuditLog
    from clawgate.executors import Executor
    from clawgate.policy.policy import Policy
    from clawgate.tools.messaging import MessageBus

F = TypeVar("F", bound=Callable[..., Any])
WRITE_TOOLS = frozenset({"write_file", "edit_file", "memory_write"})
PATH_KEYS = ("path",)


@dataclass(frozen=True, slots=True)
class CallContext:
    """Who is calling: the tool policy of the manifests applies per context."""

    session: str = "default"
    agent: str | None = None
    provider: str | None = None
    channel: str | None = None
    chat_id: str | None = None
    subagent_depth: int = 0
    group: str | None = None  # the group the call comes from: ``tools.byGroup.<group>``


class Guard:
    """Wraps an agent's tool calls: ``guard.call(name, args, ctx)`` or ``await guard.acall``.

    ``audit_log`` is a path or an ``AuditLog`` outside the workspace (one inside it is refused
    with a ClawgateError: what the guard runs there could rewrite it), ``True`` for this
    workspace's log under the state directory (``guard.audit_path``), None for none. Close the
    guard (or use ``with``) to close its executor: a warm Docker container is removed.
    """

    def __init__(self, policy: Policy, *, workspace: str | os.PathLike[str] | None = None,
                 executor: Executor | None = None, approver: Approver | None = None,
                 audit_log: AuditLog | str | os.PathLike[str] | bool | None = None,
                 approval_store: ApprovalStore | None = None,
                 message_bus: MessageBus | None = None) -> None:
        from clawgate.guard_setup import Setup

        setup = Setup.build(policy, workspace=workspace, executor=executor, approver=approver,
                            audit_log=audit_log, approval_store=approval_store,
                            message_bus=message_bus)
        self.policy = policy
        self.setup = setup
        self.engine = setup.engine
        self.registry: ToolRegistry = setup.registry
        self.workspace = setup.workspace
        self.executor = setup.executor
        self._iterations: dict[str, int] = {}
        self._budget_lock = threading.Lock()
        self.anomalies = SyscallAnomalyDetector(
            AnomalyLimits.from_settings(policy.executor.seccomp))

    @property
    def audit_path(self) -> str | None:
        """Where the audit log is written (None: no audit log)."""
        audit = self.setup.audit
        return None if audit is None else os.fspath(audit.path)

    def close(self) -> None:
        """Close the executor (a warm Docker container is removed) and the audit log."""
        self.setup.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    @classmethod
    def from_files(cls, *manifests: str | os.PathLike[str], **kwargs: Any) -> Guard:
        """A guard for the embedded default policy layered with ``manifests``, in order."""
        from clawgate.policy.loader import load_policy

        return cls(load_policy(*manifests), **kwargs)

    # -- tools ------------------------------------------------------------------------------

    @overload
    def tool(self, function: F, *, name: str | None = None) -> F: ...
    @overload
    def tool(self, function: None = None, *, name: str | None = None) -> Callable[[F], F]: ...

    def tool(self, function: F | None = None, *, name: str | None = None
             ) -> F | Callable[[F], F]:
        """Register a typed Python function as a guarded tool (its schema from its hints)."""

        def register(fn: F) -> F:
            self.registry.register(FunctionTool.from_function(fn, name))
            return fn

        return register(function) if function is not None else register

    def visible_tools(self, ctx: CallContext | None = None) -> list[str]:
        return self.setup.visible(self.registry.names(), ctx or CallContext())

    def specs(self, fmt: str = "openai", ctx: CallContext | None = None) -> list[dict[str, Any]]:
        """Function-calling specs of the tools this context may see."""
        return self.registry.specs(fmt, self.visible_tools(ctx))

    def new_turn(self, session: str = "default") -> None:
        """Reset the per-turn tool-call budget of ``session``."""
        with self._budget_lock:
            self._iterations.pop(session, None)

    # -- calls ------------------------------------------------------------------------------

    def call(self, name: str, args: Mapping[str, Any] | None = None,
             ctx: CallContext | None = None) -> Result:
        """Run one tool call the whole way. Raises ToolError (with a kind) when refused."""
        ctx = ctx or CallContext()
        started = time.monotonic()
        try:
            tool, checked, decision = self._prepare(name, args, ctx)
            value = tool.execute(checked)
            if inspect.isawaitable(value):
                value = _run_coroutine(value)
            return self._finish(name, tool, checked, ctx, decision, value, started)
        except BaseException as exc:
            raise self._failed(name, args, ctx, exc, started) from None

    async def acall(self, name: str, args: Mapping[str, Any] | None = None,
                    ctx: CallContext | None = None) -> Result:
        """``call`` for asyncio: checks and approvals run in a thread, async tools are awaited."""
        ctx = ctx or CallContext()
        started = time.monotonic()
        try:
            tool, checked, decision = await asyncio.to_thread(self._prepare, name, args, ctx)
            value = tool.execute(checked)
            if inspect.isawaitable(value):
                value = await value
            else:
                value = await asyncio.to_thread(lambda: value)
            return self._finish(name, tool, checked, ctx, decision, value, started)
        except BaseException as exc:
            raise self._failed(name, args, ctx, exc, started) from None

    def check(self, name: str, args: Mapping[str, Any] | None = None,
              ctx: CallContext | None = None) -> Decision:
        """Steps 1-4 only: the decision for a call, without approval, execution or audit.
        A refusal raises ToolError, its text scrubbed and capped as ``call``'s are."""
        ctx = ctx or CallContext()
        try:
            tool = self.registry.get(name)
            self.setup.require_visible(name, self.registry.names(), ctx)
            checked = validate_arguments(tool.parameters, args or {})
            return self.setup.decide(tool, name, checked)
        except ToolError as exc:
            raise self.setup.clean_error(exc) from None

    def _prepare(self, name: str, args: Mapping[str, Any] | None, ctx: CallContext
                 ) -> tuple[Tool, dict[str, Any], Decision]:
        self.anomalies.require_open(ctx.session)  # an anomaly may have ended the session
        tool = self.registry.get(name)                                    # 1
        self.setup.require_visible(name, self.registry.names(), ctx)      # 2
        checked = validate_arguments(tool.parameters, args or {})         # 3
        decision = self.setup.decide(tool, name, checked)                 # 4
        self.setup.settle(name, checked, ctx, decision)                   # 5
        self.setup.limiter.acquire(ctx.session)                           # 6
        if callable(getattr(tool, "commands", None)):  # a call that runs commands
            self.setup.exec_limiter.acquire(ctx.session)
        self._spend(ctx.session)
        return tool, checked, decision

    def _spend(self, session: str) -> None:
        """Count one call of ``session``'s turn; under a lock, so that calls from many
        threads at once never spend more than the budget."""
        budget = self.setup.max_iterations
        with self._budget_lock:
            used = self._iterations.get(session, 0)
            if used >= budget:
                raise ToolError(ToolErrorKind.PERMISSION_DENIED,
                                f"the budget of {budget} tool calls for this turn is spent; "
                                "start a new turn (Guard.new_turn)")
            self._iterations[session] = used + 1

    def _finish(self, name: str, tool: Tool, args: dict[str, Any], ctx: CallContext,
                decision: Decision, value: Any, started: float) -> Result:
        result = self.setup.clean(name, value)                            # 8
        if callable(getattr(tool, "commands", None)) and isinstance(value, Mapping):
            self._audit_anomalies(name, args, ctx, value)
        self.setup.record(name, args, ctx, decision.outcome.label, decision.reasons,
                          result, started)                                # 9
        return result

    def _audit_anomalies(self, name: str, args: dict[str, Any], ctx: CallContext,
                         value: Mapping[str, Any]) -> None:
        """One audit line per anomaly the run's refused system calls raise (the detector's
        cooldown and cap applied); under ``on_anomaly: end-session`` the call then fails."""
        refused = refused_in(value)
        command = _command_of(args)
        found = self.anomalies.observe(ctx.session, command, refused)
        for anomaly in found:
            self.setup.record(name, {"command": command}, ctx, "anomaly",
                              (anomaly.reason,), anomaly.as_dict(), time.monotonic())
        if found:
            self.anomalies.require_open(ctx.session)

    def _failed(self, name: str, args: Mapping[str, Any] | None, ctx: CallContext,
                exc: BaseException, started: float) -> BaseException:
        """Audit a refusal or failure and turn it into the ToolError the caller sees, its text
        scrubbed and capped as a result would be: an exception's message (a tool's, a schema
        validator's echo of the input) reaches the model too. The original exception is not
        chained: its text is what was scrubbed."""
        if isinstance(exc, ToolError):
            error = exc
        elif isinstance(exc, Exception):
            error = ToolError(ToolErrorKind.EXECUTION_FAILED,
                              f"{name} failed: {type(exc).__name__}: {exc}")
        else:
            return exc  # KeyboardInterrupt and friends pass through untouched
        error = self.setup.clean_error(error)
        outcome = "deny" if error.kind is ToolErrorKind.PERMISSION_DENIED else "error"
        shown = dict(args) if isinstance(args, Mapping) else {"arguments": repr(args)[:200]}
        self.setup.record(name, shown, ctx, outcome, error.reasons,
                          {"error": error.kind.value, "message": error.message}, started)
        return error


def _command_of(args: Mapping[str, Any]) -> str:
    """The command line a call ran, for the anomaly lines (exec_shell, spawn, custom tools)."""
    command = args.get("command")
    extra = args.get("args")
    if isinstance(command, str) and isinstance(extra, list):
        return shlex.join([command, *map(str, extra)])
    return command if isinstance(command, str) else json.dumps(dict(args), default=str)[:200]


def _run_coroutine(value: Any) -> Any:
    """Run an async tool's coroutine from synchronous ``call`` (no loop may be running)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(value))
    raise ToolError(ToolErrorKind.EXECUTION_FAILED,
                    "an async tool was called with Guard.call inside an event loop; "
                    "use await Guard.acall")


async def _await(value: Any) -> Any:
    return await value


__all__ = ["CallContext", "Guard", "Outcome", "Reason", "Risk"]
