"""What a wrapped MCP server may send the proxy, bounded by the policy's ``hooks.budgets``.

Each message (``max_message_bytes``) is bounded as it is read: over stdio by ``relay.py``,
which the wrapped server is started under; over streamable HTTP by the SDK's bound on one
server-sent event and, for a JSON body, by ``BoundedBodies`` below. The tool list is bounded in
count (``max_listed_tools``, counted over every page) and in the size of each tool's definition
(``max_tool_bytes``): a list over either bound is an error naming it, for ``tools/list`` and for
every call (whose arguments are checked against the listed schemas), rather than a list cut
short without a word.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Sequence

import httpx2
import mcp_types as types
from mcp import StdioServerParameters

from clawgate.policy.models import Budgets

RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "relay.py")


class OverBound(Exception):
    """What a wrapped server sent is over one of the policy's bounds (the message says which)."""


def relayed(command: Sequence[str], env: dict[str, str], max_bytes: int
            ) -> StdioServerParameters:
    """The wrapped server ``command`` started under the relay that bounds its messages."""
    return StdioServerParameters(command=sys.executable,
                                 args=["-I", RELAY, str(max_bytes), "--", *command], env=env)


def check_count(count: int, budgets: Budgets) -> None:
    """Raises OverBound when ``count`` tools are more than the policy lets a server list."""
    if count > budgets.max_listed_tools:
        raise OverBound(f"it lists more than {budgets.max_listed_tools} tools; the bound is "
                        f"{budgets.max_listed_tools} (hooks.budgets.max_listed_tools)")


def check_tools(tools: Sequence[types.Tool], budgets: Budgets) -> None:
    """Raises OverBound for a list over the count bound or a tool over the size bound."""
    check_count(len(tools), budgets)
    for tool in tools:
        size = len(json.dumps(tool.model_dump(by_alias=True, mode="json", exclude_none=True),
                              ensure_ascii=False).encode("utf-8", "surrogatepass"))
        if size > budgets.max_tool_bytes:
            raise OverBound(f"its tool {tool.name[:100]!r} is defined in {size} bytes; the bound "
                            f"is {budgets.max_tool_bytes} bytes (hooks.budgets.max_tool_bytes)")


class BoundedBodies(httpx2.AsyncBaseTransport):
    """An HTTP transport whose JSON response bodies may hold at most ``max_bytes``: reading
    past them raises a stream error naming the bound (server-sent events are bounded one by
    one by the SDK itself)."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, max_bytes: int) -> None:
        self.inner, self.max_bytes = inner, max_bytes

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        if not response.headers.get("content-type", "").lower().startswith("application/json"):
            return response
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        return httpx2.Response(response.status_code, headers=response.headers,
                               stream=_Capped(stream, self.max_bytes),
                               extensions=response.extensions, request=request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Capped(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, max_bytes: int) -> None:
        self.inner, self.max_bytes = inner, max_bytes

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self.inner:
            seen += len(chunk)
            if seen > self.max_bytes:
                raise httpx2.StreamError(
                    f"the wrapped server sent a message of more than {self.max_bytes} bytes; "
                    f"the bound is {self.max_bytes} bytes (hooks.budgets.max_message_bytes), "
                    "so it was not relayed")
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()
