"""The probes of ``test_policy_every_key.py`` for what a wrapped MCP server may send: the real
``policy mcp-proxy`` process over stdio, in front of the real demo server
(tests/integrations/mcp_demo_server.py), with the manifests given and without them."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio
import mcp_types as types
from every_key import World
from every_key_probes import Probe
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

TESTS = Path(__file__).resolve().parents[1]
DEMO = str(TESTS / "integrations" / "mcp_demo_server.py")
SRC = str(TESTS.parent / "src")


def _session(world: World, texts: Sequence[str], tool: str | None = None,
             args: dict[str, object] | None = None) -> tuple[str, str]:
    """(what tools/list said, what the call said) through the real proxy: the tool names, or
    the error; the call's text, marked ``error:`` when it failed."""
    policies = [a for p in world.manifests(texts) for a in ("--policy", p)]
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "clawgate", "mcp-proxy", "--name", "demo", *policies, "--workspace",
        str(world.ws), "--", sys.executable, DEMO], env={
        "PYTHONPATH": SRC, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "CLAWGATE_STATE_HOME": str(world.root / "state")})

    async def talk() -> tuple[str, str]:
        with anyio.fail_after(120):  # a hang guard only
            async with Client(params) as client:
                try:
                    listed = " ".join(t.name for t in (await client.list_tools()).tools)
                except MCPError as exc:
                    listed = f"error: {exc}"
                if tool is None:
                    return listed, ""
                result = await client.call_tool(tool, args or {})
                said = "\n".join(c.text for c in result.content
                                 if isinstance(c, types.TextContent))
                return listed, f"error: {said}" if result.is_error else said

    return anyio.run(talk)


_BIG = {"count": 1, "size": 200_000}
_UNBOUNDED: list[tuple[str, str]] = []


def _unbounded(world: World) -> tuple[str, str]:
    """The proxy without manifests: its tool list, and its answer to a call of 200 kB. Asked
    once for the three probes below (each started a proxy and a server for it, one of them
    twice): with no manifest and an empty workspace, no probe's world differs from another."""
    if not _UNBOUNDED:
        _UNBOUNDED.append(_session(world, [], "big", _BIG))
    return _UNBOUNDED[0]


def message_bound(surface: str, world: World) -> None:
    _, bounded = _session(world, ["hooks: {budgets: {max_message_bytes: 100000}}"], "big",
                          _BIG)
    _, default = _unbounded(world)
    assert bounded.startswith("error: ") and "the bound is 100000 bytes " \
        "(hooks.budgets.max_message_bytes)" in bounded, bounded[:300]
    assert default.startswith("<0>yyy"), default[:300]  # relayed, then capped


def listed_bound(surface: str, world: World) -> None:
    bounded, called = _session(world, ["hooks: {budgets: {max_listed_tools: 5}}"], "echo",
                               {"text": "hi"})
    default, _ = _unbounded(world)
    for said in (bounded, called):
        assert said.startswith("error: ") and "the bound is 5 " \
            "(hooks.budgets.max_listed_tools)" in said, said[:300]
    assert "echo" in default.split()


def tool_size_bound(surface: str, world: World) -> None:
    bounded, _ = _session(world, ["hooks: {budgets: {max_tool_bytes: 500}}"])
    default, _ = _unbounded(world)
    assert bounded.startswith("error: ") and "its tool 'batch' is defined in" in bounded \
        and "the bound is 500 bytes (hooks.budgets.max_tool_bytes)" in bounded, bounded[:300]
    assert "batch" in default.split()


PROBES: dict[str, dict[str, Probe]] = {
    "hooks.budgets.max_message_bytes": {"mcp-proxy": message_bound},
    "hooks.budgets.max_listed_tools": {"mcp-proxy": listed_bound},
    "hooks.budgets.max_tool_bytes": {"mcp-proxy": tool_size_bound},
}
