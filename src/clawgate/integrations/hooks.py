"""What the agent hooks share: read the hook's JSON, decide, answer, and fail closed.

A hook answers every input with a decision on stdout and exit code 0. Input that is not the
documented JSON, a policy that does not load, or any other failure is a DENY naming the
problem, because an agent whose hook crashes may go on without asking. With ``sandbox`` an
allowed shell call also comes back rewritten to run confined (``confine``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from clawgate.approval import Approver
from clawgate.decision import Decision, Outcome
from clawgate.guard import CallContext
from clawgate.integrations.calls import BadInput, Call
from clawgate.integrations.gate import INTERNAL_ID, MALFORMED_ID, Gate, refused
from clawgate.tools.scrub import Scrubber

MAX_INPUT_BYTES = 4 << 20  # a hook payload larger than 4 MiB is refused unread
MAX_REASON_BYTES = 65536  # a reason's cap before a policy (and its budget) is loaded
HOOK_DEADLINE_S = 300.0  # a hook answers within this, whatever it waits for; past it: deny
APPROVAL_RESERVE_S = 30.0  # of the deadline, kept for loading, deciding and auditing


def approval_wait(deadline_s: float) -> float:
    """How long a hook with ``deadline_s`` in all may wait for a person's answer."""
    return max(deadline_s - APPROVAL_RESERVE_S, deadline_s / 2)


@dataclass(frozen=True, slots=True)
class HookOptions:
    """How the hook was started (its command line)."""

    policies: tuple[str, ...] = ()
    agent: str | None = None
    provider: str | None = None
    audit: str | None = None
    approver: Approver | None = None
    workspace: str | None = None
    sandbox: bool = False  # an allowed shell call is rewritten to run in the sandbox


@dataclass(frozen=True, slots=True)
class Payload:
    session_id: str
    cwd: str
    tool_name: str
    tool_input: Mapping[str, Any]
    raw: Mapping[str, Any]


class HookAdapter(Protocol):
    """One agent's hook: its event name, its tool names, its answer."""

    event: str

    def to_call(self, payload: Payload) -> Call: ...

    def finish(self, gate: Gate, call: Call, ctx: CallContext, decision: Decision) -> Decision:
        ...

    def render(self, decision: Decision) -> dict[str, Any]: ...


def parse(raw: bytes | str, event: str) -> Payload:
    """The hook input, checked field by field. Raises BadInput."""
    if len(raw) > MAX_INPUT_BYTES:
        raise BadInput(f"input larger than {MAX_INPUT_BYTES} bytes")
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise BadInput(f"not JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise BadInput(f"expected a JSON object, got {type(value).__name__}")
    if value.get("hook_event_name") != event:
        raise BadInput(f"expected hook_event_name {event!r}, got "
                       f"{value.get('hook_event_name')!r}")
    tool_name, tool_input = value.get("tool_name"), value.get("tool_input")
    cwd, session = value.get("cwd"), value.get("session_id", "default")
    if not isinstance(tool_name, str) or not tool_name:
        raise BadInput("missing 'tool_name'")
    if not isinstance(tool_input, dict):
        raise BadInput("'tool_input' must be an object")
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        raise BadInput("'cwd' must be an absolute path")
    if not isinstance(session, str):
        raise BadInput("'session_id' must be a string")
    return Payload(session or "default", cwd, tool_name, tool_input, value)


def answer(adapter: HookAdapter, raw: bytes | str, options: HookOptions) -> dict[str, Any]:
    """The hook's JSON answer for ``raw``. Never raises (but for KeyboardInterrupt). Every
    text in it is scrubbed of credentials (and of the values of secret-named environment
    variables) and capped: a reason echoes the command or path it is about."""
    decided = _decide(adapter, raw, options)
    decision, gate, rewrite = decided.decision, decided.gate, decided.rewrite
    scrubber = gate.scrubber if gate is not None else Scrubber(env=os.environ)
    limit = gate.max_result_bytes if gate is not None else MAX_REASON_BYTES
    said: dict[str, Any] = _scrubbed(adapter.render(decision), scrubber, limit)
    if rewrite is not None:  # after scrubbing: a scrubbed or capped command would run changed
        from clawgate.integrations.confine import with_rewrite

        said = with_rewrite(adapter.event, said, rewrite)
    return said


@dataclass(frozen=True, slots=True)
class _Decided:
    decision: Decision
    gate: Gate | None = None
    rewrite: dict[str, Any] | None = None  # the tool input that runs the call confined


def _decide(adapter: HookAdapter, raw: bytes | str, options: HookOptions) -> _Decided:
    started = time.monotonic()
    try:
        payload = parse(raw, adapter.event)
        call = adapter.to_call(payload)
    except BadInput as exc:
        return _Decided(refused("(hook input)", MALFORMED_ID, f"malformed hook input: {exc}"))
    except Exception as exc:
        return _Decided(_crashed(exc))
    gate: Gate | None = None
    try:
        gate = _gate(payload, options)
        ctx = CallContext(session=payload.session_id, agent=options.agent,
                          provider=options.provider)
        first = gate.decide(call, ctx)
        decision = adapter.finish(gate, call, ctx, first)
        rewrite = None
        if options.sandbox and decision.outcome is Outcome.ALLOW:
            try:
                rewrite = _confined(gate, payload, call, options,
                                    settled=first.outcome is not Outcome.ALLOW)
            except Exception as exc:  # fail closed: an allow that cannot be confined is a deny
                decision = refused(decision.command, INTERNAL_ID, "clawgate cannot run this "
                                   f"call in the sandbox ({exc}); failing closed")
        gate.record(call, ctx, decision, started=started)
    except Exception as exc:  # a policy that does not load, an audit log that cannot be written
        return _Decided(_crashed(exc), gate)
    return _Decided(decision, gate, rewrite)


def _confined(gate: Gate, payload: Payload, call: Call, options: HookOptions, *,
              settled: bool) -> dict[str, Any] | None:
    """The tool input that runs an allowed shell call in the sandbox; None for another call
    (the agent's file tools, MCP tools: the agent runs those as they are). ``settled``: the
    hook turned an ASK into this allow itself (a person, a trusted policy). Raises."""
    from clawgate.integrations.confine import (
        SHELL_TOOLS,
        agent_timeout,
        rewritten_input,
        sandboxed_command,
    )

    key = SHELL_TOOLS.get(payload.tool_name)
    if key is None or call.tool != "exec_shell":
        return None
    line = payload.tool_input.get(key)
    if not isinstance(line, str):
        raise BadInput(f"{payload.tool_name}'s {key!r} is not a string")
    ceiling = float(gate.policy.executor.max_timeout_s)
    command = sandboxed_command(line, root=gate.root, cwd=call.cwd or payload.cwd,
                                policies=options.policies, approved=settled,
                                timeout_s=agent_timeout(payload.tool_name, payload.tool_input,
                                                        ceiling))
    return rewritten_input(payload.tool_input, key, command)


def _scrubbed(value: Any, scrubber: Scrubber, limit: int) -> Any:
    if isinstance(value, str):
        return scrubber.scrub_capped(value, limit)
    if isinstance(value, dict):
        return {k: _scrubbed(v, scrubber, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(v, scrubber, limit) for v in value]
    return value


def _gate(payload: Payload, options: HookOptions) -> Gate:
    from clawgate.approval import ApprovalStore, ServerApprover
    from clawgate.policy.discovery import policy_paths
    from clawgate.policy.loader import load_policy

    paths = policy_paths(options.policies, options.workspace or payload.cwd)
    gate = Gate(load_policy(*paths), workspace=options.workspace,
                fallback_workspace=payload.cwd, approver=options.approver,
                audit_log=options.audit)
    if options.approver is not None:  # allow-always answers are remembered per workspace
        gate.approvals = ApprovalStore(gate.root)
    if isinstance(options.approver, ServerApprover) and options.approver.workspace is None:
        options.approver.workspace = gate.root  # the service judges it in the hook's workspace
    return gate


def _crashed(exc: Exception) -> Decision:
    return refused("(hook)", INTERNAL_ID, f"clawgate could not decide ({type(exc).__name__}: "
                   f"{exc}); failing closed")


def at(cwd: str, path: str) -> str:
    """``path`` as the agent meant it: relative to the call's working directory."""
    return path if path.startswith("~") else os.path.join(cwd, path)


def mcp_name(tool_name: str) -> str | None:
    """``mcp__<server>__<tool>`` as the policy names it (``<server>__<tool>``), else None."""
    if not tool_name.startswith("mcp__"):
        return None
    server, sep, tool = tool_name[5:].partition("__")
    return f"{server}__{tool}" if sep and server and tool else None


def documented(call: Call, payload: Payload,
               arguments: Mapping[str, Collection[str]]) -> Call:
    """``call`` with the arguments its agent does not document for the tool (``arguments``:
    tool name -> keys) read by meaning (``arguments.with_unknown``); an undocumented tool's
    call as it is."""
    from clawgate.integrations.arguments import with_unknown

    known = arguments.get(payload.tool_name)
    if known is None:
        return call
    return with_unknown(call, known, lambda path: at(payload.cwd, path))
