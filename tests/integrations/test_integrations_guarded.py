"""The proxy's policy side in-process: ASK answered by an approver, the rate limit, audit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from clawgate.approval import ApprovalAnswer, ApprovalRequest, CallbackApprover
from clawgate.guard import CallContext
from clawgate.integrations.gate import Gate
from clawgate.integrations.mcp_proxy import GuardedTools
from clawgate.policy.loader import load_policy


class Server:
    """Stands in for the wrapped server's side of the session: records what reached it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def forward(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        self.calls.append((name, args))
        return types.CallToolResult(content=[types.TextContent(type="text", text="ran")])


def audit_path(workspace: Path) -> Path:
    """Beside the workspace: a log inside it is refused (what runs there could change it)."""
    return workspace.parent / f"{workspace.name}-audit.jsonl"


def guarded(tmp_path: Path, policy: Path, reply: ApprovalAnswer, *extra: str) -> GuardedTools:
    def person(request: ApprovalRequest) -> ApprovalAnswer:
        return reply

    gate = Gate(load_policy(str(policy), *extra), workspace=str(tmp_path),
                approver=CallbackApprover(person), audit_log=audit_path(tmp_path))
    return GuardedTools(gate, "ops", CallContext(session="s1", agent="builder"))


@pytest.mark.parametrize(("reply", "reached"), [(ApprovalAnswer.ALLOW_ONCE, True),
                                                (ApprovalAnswer.DENY, False)])
def test_ask_goes_to_the_approver(tmp_path: Path, policy_file: Path, reply: ApprovalAnswer,
                                  reached: bool) -> None:
    tools, server = guarded(tmp_path, policy_file, reply), Server()
    result = anyio.run(tools.call, "run", {"command": "publish-release v3"}, server.forward)
    assert result.is_error is (not reached)
    assert server.calls == ([("run", {"command": "publish-release v3"})] if reached else [])
    line = json.loads(audit_path(tmp_path).read_text())
    assert (line["tool"], line["agent"], line["decision"]["outcome"]) == (
        "ops__run", "builder", "allow" if reached else "deny")


def test_rate_limit(tmp_path: Path, policy_file: Path) -> None:
    limits = tmp_path / "limits.yaml"
    limits.write_text("version: 1\nrate_limit: {calls_per_minute: 1, burst: 2}\n")
    tools = guarded(tmp_path, policy_file, ApprovalAnswer.DENY, str(limits))
    server = Server()

    async def three() -> list[types.CallToolResult]:
        return [await tools.call("run", {"command": "ls"}, server.forward) for _ in range(3)]

    results = anyio.run(three)
    assert [r.is_error for r in results] == [False, False, True]
    assert len(server.calls) == 2
    first = results[2].content[0]
    assert isinstance(first, types.TextContent) and "rate limit" in first.text


def test_listing_filters_by_agent(tmp_path: Path, policy_file: Path) -> None:
    agents = tmp_path / "agents.yaml"
    agents.write_text("version: 1\ntools:\n  agents:\n    builder: {deny: ['mcp:ops']}\n")
    tools = guarded(tmp_path, policy_file, ApprovalAnswer.DENY, str(agents))
    listed = [types.Tool(name=n, input_schema={"type": "object"}) for n in ("run", "status")]
    assert tools.visible(listed) == []
    other = GuardedTools(tools.gate, "ops", CallContext(agent="reviewer"))
    assert [t.name for t in other.visible(listed)] == ["run", "status"]


@pytest.mark.parametrize(("tool", "args", "said"), [
    ("count", {"n": 3}, None),
    ("count", {"n": "3"}, "count refused: CG-ADAPT-001: arguments do not match the input schema "
                          "of count: n: '3' is not of type 'integer'"),
    ("broken", {}, "broken refused: CG-ADAPT-001: the input schema of broken cannot be used "
                   "(SchemaError: "),
    ("other", {}, "other refused: CG-ADAPT-001: the wrapped server 'ops' lists no tool 'other'"),
])
def test_declared_input_schemas_are_enforced(tmp_path: Path, policy_file: Path, tool: str,
                                             args: dict[str, Any], said: str | None) -> None:
    tools, server = guarded(tmp_path, policy_file, ApprovalAnswer.DENY), Server()
    tools.learn([types.Tool(name="count", input_schema={
                     "type": "object", "properties": {"n": {"type": "integer"}}}),
                 types.Tool(name="broken", input_schema={"type": "object",
                                                         "properties": {"n": {"type": 12}}})])
    result = anyio.run(tools.call, tool, args, server.forward)
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    if said is None:
        assert (result.is_error, server.calls) == (False, [(tool, args)])
    else:
        assert (result.is_error, server.calls, first.text[:len(said)]) == (True, [], said)
