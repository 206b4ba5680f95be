"""The proxy's plumbing: an MCP server facing the client on stdio, an MCP client facing the
wrapped server (a command over stdio, or a URL over streamable HTTP).

Only tools are proxied. Resources and prompts are not forwarded: clawgate cannot check what
they read, so a client of the proxy does not see them. What the wrapped server sends is bounded
by the policy (``bounds.py``): each message, the number of tools it lists and each tool's size.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client import Transport
from mcp.client.streamable_http import streamable_http_client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from clawgate.approval import (
    ApprovalStore,
    Approver,
    DenyAllApprover,
    ServerApprover,
    TerminalApprover,
)
from clawgate.approval.server import TOKEN_ENV
from clawgate.guard import CallContext
from clawgate.integrations.gate import Gate
from clawgate.integrations.mcp_proxy.bounds import BoundedBodies, check_count, check_tools, relayed
from clawgate.integrations.mcp_proxy.guarded import GuardedTools
from clawgate.policy.models import Budgets

MAX_PAGES = 100  # a wrapped server that paginates forever cannot hang tools/list


@dataclass(frozen=True, slots=True)
class ProxyOptions:
    """``policy mcp-proxy`` options. Exactly one of ``command`` and ``url``."""

    name: str
    command: tuple[str, ...] = ()
    url: str | None = None
    policies: tuple[str, ...] = ()
    workspace: str | None = None
    audit: str | None = None
    approver: str = "deny"  # "deny" or "terminal"
    agent: str | None = None
    provider: str | None = None
    session: str = "mcp-proxy"
    timeout_s: float = 300.0
    servers: tuple[str, ...] = ()  # ``policy serve`` URLs that answer an ASK (the approver)

    def upstream(self, max_bytes: int, stack: AsyncExitStack) -> StdioServerParameters | Transport:
        """How to reach the wrapped server, each of its messages within ``max_bytes`` (an
        HTTP client, if one is needed, is closed with ``stack``)."""
        if (self.url is None) == (not self.command):
            raise ValueError("give the wrapped server as a command or as --url, not both")
        if self.url is not None:
            client = httpx2.AsyncClient(
                timeout=httpx2.Timeout(30.0, read=300.0),
                transport=BoundedBodies(httpx2.AsyncHTTPTransport(), max_bytes))
            stack.push_async_callback(client.aclose)
            return streamable_http_client(self.url, http_client=client,
                                          max_sse_event_size=max_bytes)
        # The wrapped server gets the proxy's whole environment: the client configured it
        # for that server (its tokens included); scrubbing keeps their values out of results.
        return relayed(self.command, dict(os.environ), max_bytes)


def build_gate(options: ProxyOptions) -> Gate:
    from clawgate.policy.discovery import policy_paths
    from clawgate.policy.loader import load_policy

    approver: Approver = TerminalApprover() if options.approver == "terminal" \
        else DenyAllApprover()
    if options.servers:  # the token from the environment: never on a command line
        approver = ServerApprover(options.servers, os.environ.get(TOKEN_ENV, ""),
                                  workspace=options.workspace)
    paths = policy_paths(options.policies, options.workspace or os.getcwd())
    gate = Gate(load_policy(*paths), workspace=options.workspace,
                fallback_workspace=os.getcwd(), approver=approver, audit_log=options.audit)
    gate.approvals = ApprovalStore(gate.root)
    if isinstance(approver, ServerApprover) and approver.workspace is None:
        approver.workspace = gate.root  # the service judges the call in the proxy's workspace
    return gate


@asynccontextmanager
async def connected(options: ProxyOptions) -> AsyncIterator[tuple[Server[Any], Client]]:
    """The client-facing server, wired to a live session with the wrapped server."""
    guarded = GuardedTools(build_gate(options), options.name, CallContext(
        session=options.session, agent=options.agent, provider=options.provider))
    budgets: Budgets = guarded.gate.policy.hooks.budgets
    async with AsyncExitStack() as stack:
        upstream = await stack.enter_async_context(Client(
            options.upstream(budgets.max_message_bytes, stack), cache=None))

        async def upstream_tools() -> list[types.Tool]:
            tools: list[types.Tool] = []
            cursor: str | None = None
            for _ in range(MAX_PAGES):
                page = await upstream.list_tools(cursor=cursor)
                tools.extend(page.tools)
                check_count(len(tools), budgets)  # before another page is asked for
                cursor = page.next_cursor
                if not cursor:
                    break
            check_tools(tools, budgets)
            guarded.learn(tools)
            return tools

        async def list_tools(ctx: ServerRequestContext[Any],
                             params: types.PaginatedRequestParams | None
                             ) -> types.ListToolsResult:
            try:
                tools = await upstream_tools()
            except Exception as exc:  # the server's error text reaches the client: scrub it
                raise MCPError(INTERNAL_ERROR, guarded.gate.say(
                    f"the wrapped server {options.name!r} failed to list its tools: {exc}")
                    ) from None
            return types.ListToolsResult(tools=guarded.listed(tools))

        async def forward(name: str, args: dict[str, Any]) -> types.CallToolResult:
            return await upstream.call_tool(name, args, read_timeout_seconds=options.timeout_s)

        async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
                            ) -> types.CallToolResult:
            if guarded.schemas is None or params.name not in guarded.schemas:
                try:
                    await upstream_tools()  # the schema to check the arguments against
                except Exception as exc:
                    return guarded.error(f"the wrapped server {options.name!r} failed to list "
                                         f"its tools: {exc}")
            return await guarded.call(params.name, params.arguments, forward)

        server: Server[Any] = Server(f"clawgate:{options.name}", on_list_tools=list_tools,
                                     on_call_tool=call_tool)
        yield server, upstream


async def serve(options: ProxyOptions) -> None:
    """Run the proxy on this process's stdin and stdout until the client goes away."""
    async with connected(options) as (server, _upstream), stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
