"""How ``policy serve`` decides a tool call: the Guard's own steps, never a second reading.

A call named for a tool the Guard knows (a built-in tool, or one of the manifest's
``tools.custom``) goes the Guard's way, step for step and with the Guard's own code: the
registry's tool, the tool policy (``Setup.require_visible``), the tool's JSON Schema
(``validate_arguments``), then ``Setup.decide`` (``CallPath.decide_tool``: the tool's own
``commands(args)`` through the engine, its path through containment, its URL through the SSRF
check). So ``spawn`` with ``{"command": "rm", "args": ["-rf", "/"]}`` is judged as the line
``rm -rf /``, as the Guard judges it, not by one key of a hand-kept table.

Arguments that do not fit the tool's schema are not the Guard's call (a Guard refuses them
before it would ask); an adapter sends them in its agent's own shape (Claude Code's ``Bash``
input under ``exec_shell``, with ``description`` beside ``command``). They are read by meaning,
as an MCP tool's are (``integrations.arguments``), and never allowed without a person: at least
ASK. Any other tool is an MCP tool, read by meaning through the adapters' ``Gate``.

Nothing here raises: input that cannot be read (arguments nested deeper than ``MAX_NESTING``
levels among them: scrubbing and summing them up for the audit line would recurse as deep) is a
DENY naming ``CG-ADAPT-001``, a failure of the machinery a DENY naming ``CG-ADAPT-002``.
Nothing here runs anything either: the tools are wired to an executor that refuses to.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from clawgate.decision import Decision, Outcome, Reason, Risk
from clawgate.errors import ExecutorError, ToolError, ToolErrorKind
from clawgate.executors.base import ExecResult, Executor, Job
from clawgate.guard_setup import Setup
from clawgate.integrations.arguments import mcp_call
from clawgate.integrations.calls import BadInput
from clawgate.integrations.gate import (
    INTERNAL_ID,
    MALFORMED_ID,
    PATH_ID,
    TOOL_POLICY_ID,
    UNKNOWN_ARG_ID,
    URL_ID,
    Gate,
    refused,
)
from clawgate.tools.base import validate_arguments
from clawgate.tools.checks import describe

if TYPE_CHECKING:
    from clawgate.guard import CallContext
    from clawgate.policy.policy import Policy

SHAPE_ID = UNKNOWN_ARG_ID  # arguments not in the shape the tool documents: one rule
MAX_NESTING = 32  # levels of objects and lists in a call's arguments

# What a refusal raised by the Guard's step 4 is, as a rule.
_RULES = {ToolErrorKind.INVALID_PATH: PATH_ID, ToolErrorKind.FILE_NOT_FOUND: PATH_ID,
          ToolErrorKind.PERMISSION_DENIED: URL_ID, ToolErrorKind.INVALID_ARGS: MALFORMED_ID}


def too_deep(value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether ``value`` nests objects and lists deeper than ``limit`` (walked without
    recursion, so that no depth can exhaust the stack here)."""
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, Mapping | list | tuple):
            if depth >= limit:
                return True
            children = item.values() if isinstance(item, Mapping) else item
            todo.extend((child, depth + 1) for child in children)
    return False


def too_deep_refusal(tool: str) -> Decision:
    return refused(f"{tool}(…)", MALFORMED_ID, f"the arguments nest deeper than {MAX_NESTING} "
                   "levels of objects and lists")


class DecideOnly(Executor):
    """The executor of a guard that only decides: running anything is an error."""

    def _execute(self, job: Job) -> ExecResult:
        raise ExecutorError("policy serve decides calls; it runs nothing")


class Decider:
    """Decides named tool calls under one policy, for one workspace."""

    def __init__(self, policy: Policy, workspace: str) -> None:
        self.setup = Setup.build(policy, workspace=workspace,
                                 executor=DecideOnly(workspace=workspace), approver=None,
                                 audit_log=None, approval_store=None, message_bus=None,
                                 in_container=policy.executor.kind == "docker", secrets=False)
        self.gate = Gate(policy, workspace=workspace)

    def decide(self, tool: str, args: Mapping[str, Any], ctx: CallContext,
               cwd: str | None = None) -> Decision:
        """The decision for ``tool`` called with ``args`` (commands judged as run in ``cwd``,
        the workspace by default). Never raises."""
        summary = describe(tool, args)
        try:
            if tool in self.setup.registry:
                return self._guards(tool, args, ctx, cwd, summary)
            return self._by_meaning(tool, args, ctx, cwd)
        except BadInput as exc:
            return refused(summary, MALFORMED_ID, str(exc))
        except Exception as exc:  # fail closed: the machinery broke, never the verdict
            return refused(summary, INTERNAL_ID,
                           f"clawgate failed ({type(exc).__name__}: {exc}); failing closed")

    def _guards(self, name: str, args: Mapping[str, Any], ctx: CallContext, cwd: str | None,
                summary: str) -> Decision:
        """Steps 2 to 4 of ``Guard.call`` for a tool it knows."""
        setup = self.setup
        tool = setup.registry.get(name)
        try:
            setup.require_visible(name, setup.registry.names(), ctx)
        except ToolError as exc:
            return refused(summary, TOOL_POLICY_ID, exc.message)
        try:
            checked = validate_arguments(tool.parameters, dict(args))
        except ToolError as exc:
            return self._misfit(name, args, ctx, cwd, exc.message)
        try:
            return setup.decide(tool, name, checked, cwd)
        except ToolError as exc:
            return refused(summary, _RULES.get(exc.kind, INTERNAL_ID), exc.message)

    def _by_meaning(self, tool: str, args: Mapping[str, Any], ctx: CallContext,
                    cwd: str | None) -> Decision:
        call = dataclasses.replace(mcp_call(tool, args), cwd=cwd)
        return self.gate.decide(call, ctx)

    def _misfit(self, name: str, args: Mapping[str, Any], ctx: CallContext, cwd: str | None,
                why: str) -> Decision:
        read = self._by_meaning(name, args, ctx, cwd)
        if read.outcome >= Outcome.ASK:
            return read
        return Decision(read.command, Outcome.ASK, max(read.risk, Risk.MEDIUM), (Reason(
            SHAPE_ID, f"the arguments are not those of clawgate's {name} ({why}); read by "
            "what they mean, a person must approve", command=read.command), *read.reasons))
