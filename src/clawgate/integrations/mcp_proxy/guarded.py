"""The proxy's policy side: which tools a client sees, and each ``tools/call`` checked,
approved, forwarded, scrubbed and audited. Transport-free; ``server.py`` wires it to MCP.

A call takes these steps: the tool policy (``<name>__<tool>``), the argument checks (commands,
paths, URLs; see ``integrations/arguments.py``), the arguments against the input schema the
wrapped server declared for the tool (jsonschema; once the tools are listed, a tool the server
does not list is refused), DENY refuses and ASK goes to the approver, the session's rate limit,
then the wrapped server runs it; the result is scrubbed of credentials and capped as a whole
(``cleaning.py``), every error message too, and one audit line is written whatever happened.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import anyio.to_thread
import jsonschema
import mcp_types as types

from clawgate.decision import Decision, Outcome
from clawgate.errors import ToolError
from clawgate.guard import CallContext
from clawgate.guard_setup import refusal
from clawgate.integrations.arguments import mcp_call
from clawgate.integrations.calls import BadInput, Call
from clawgate.integrations.gate import MALFORMED_ID, Gate, refused
from clawgate.integrations.mcp_proxy.cleaning import clean_result, clean_tools
from clawgate.ratelimit import RateLimiter
from clawgate.tools.base import validate_arguments

Forward = Callable[[str, dict[str, Any]], Awaitable[types.CallToolResult]]


def error_result(message: str) -> types.CallToolResult:
    """What the client sees for a refused or failed call: an MCP error result, not a crash."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)],
                                is_error=True)


class GuardedTools:
    """One wrapped server's tools under a policy, for one client context."""

    def __init__(self, gate: Gate, server_name: str, ctx: CallContext) -> None:
        self.gate = gate
        self.server = server_name
        self.ctx = ctx
        limits = gate.policy.rate_limit
        self.limiter = RateLimiter(limits.calls_per_minute, limits.burst)
        self.schemas: dict[str, Mapping[str, Any]] | None = None  # None: not listed yet
        self.read_only: frozenset[str] = frozenset()
        self.output_schemas: frozenset[str] = frozenset()

    def learn(self, tools: Sequence[types.Tool]) -> None:
        """Remember the input schema of every tool the wrapped server lists, and which tools
        it declares read-only (their paths are not written: no protected-path question)."""
        self.schemas = {t.name: t.input_schema for t in tools}
        self.read_only = frozenset(t.name for t in tools if t.annotations is not None
                                   and t.annotations.read_only_hint is True)
        self.output_schemas = frozenset(t.name for t in tools if t.output_schema is not None)

    def schema_problem(self, tool: str, arguments: Mapping[str, Any]) -> str | None:
        """What is wrong with ``arguments`` by the tool's declared input schema, or None."""
        if self.schemas is None:
            return None
        schema = self.schemas.get(tool)
        if schema is None:
            return f"the wrapped server {self.server!r} lists no tool {tool!r}"
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
            validate_arguments(schema, arguments)
        except ToolError as exc:
            return f"arguments do not match the input schema of {tool}: {exc.message}"
        except Exception as exc:  # a schema jsonschema cannot use: fail closed
            return f"the input schema of {tool} cannot be used ({type(exc).__name__}: {exc})"
        return None

    def policy_name(self, tool: str) -> str:
        return f"{self.server}__{tool}"

    def visible(self, tools: Sequence[types.Tool]) -> list[types.Tool]:
        """The wrapped server's tools this context may see, in the server's order."""
        seen = set(self.gate.visible([self.policy_name(t.name) for t in tools], self.ctx))
        return [t for t in tools if self.policy_name(t.name) in seen]

    def listed(self, tools: Sequence[types.Tool]) -> list[types.Tool]:
        """What ``tools/list`` shows: the visible tools, their descriptions and schemas
        scrubbed."""
        return clean_tools(self.visible(tools), self.gate.scrubber)

    def error(self, message: str) -> types.CallToolResult:
        """An error result whose message is scrubbed and capped."""
        return error_result(self.gate.say(message))

    async def call(self, tool: str, args: Mapping[str, Any] | None,
                   forward: Forward) -> types.CallToolResult:
        """One ``tools/call``: refused with a reason, or forwarded and cleaned."""
        started = time.monotonic()
        arguments = dict(args or {})
        schema = None if self.schemas is None else self.schemas.get(tool)
        try:
            call = mcp_call(self.policy_name(tool), arguments, agent_tool=tool, schema=schema,
                            read_only=tool in self.read_only)
        except BadInput as exc:
            call = Call(self.policy_name(tool), arguments, agent_tool=tool)
            denied = refused(tool, MALFORMED_ID, f"arguments refused: {exc}")
            return self._refuse(call, denied, started)
        decision = self.gate.decide(call, self.ctx)
        problem = None if decision.outcome is Outcome.DENY else self.schema_problem(tool,
                                                                                    arguments)
        if problem is not None:
            return self._refuse(call, refused(tool, MALFORMED_ID, problem), started)
        if decision.outcome is Outcome.ASK:
            decision = await anyio.to_thread.run_sync(self.gate.settle, call, self.ctx, decision)
        if decision.outcome is Outcome.DENY:
            return self._refuse(call, decision, started)
        try:
            self.limiter.acquire(self.ctx.session)
        except ToolError as exc:
            self.gate.record(call, self.ctx, decision, {"error": exc.message}, started, "deny")
            return self.error(exc.message)
        return await self._forward(call, decision, forward, started)

    async def _forward(self, call: Call, decision: Decision, forward: Forward,
                       started: float) -> types.CallToolResult:
        try:
            result = await forward(call.agent_tool, dict(call.args))
        except Exception as exc:  # the wrapped server crashed or broke the protocol
            message = f"the wrapped server {self.server!r} failed during {call.agent_tool}: " \
                      f"{type(exc).__name__}: {exc}"
            self.gate.record(call, self.ctx, decision, {"error": message}, started, "error")
            return self.error(message)
        cleaned = self.clean(result, call.agent_tool)
        shown = "\n".join(c.text for c in cleaned.content if isinstance(c, types.TextContent))
        self.gate.record(call, self.ctx, decision,
                         {"is_error": bool(cleaned.is_error), "text": shown}, started)
        return cleaned

    def _refuse(self, call: Call, decision: Decision, started: float) -> types.CallToolResult:
        message = refusal(decision, f"{call.agent_tool} refused").message  # as Guard says it
        self.gate.record(call, self.ctx, decision, {"error": message}, started)
        return self.error(message)

    def clean(self, result: types.CallToolResult, tool: str = "") -> types.CallToolResult:
        """The result with credentials scrubbed from every string it holds, capped as a
        whole (see ``cleaning.py``)."""
        return clean_result(result, self.gate.scrubber, self.gate.max_result_bytes,
                            output_schema=tool in self.output_schemas)
