"""``policy mcp-proxy``: any MCP server behind the policy.

The proxy sits between an MCP client (Claude Code, Gemini CLI, an IDE) and the server it
wraps. ``tools/list`` shows only the tools the policy lets this agent see (``<name>__<tool>``
in the policy, where ``--name NAME``); every ``tools/call`` is checked before the wrapped
server runs it, and its result is scrubbed and audited. clawgate decides; the wrapped server
executes.
"""

from clawgate.integrations.mcp_proxy.guarded import GuardedTools, error_result
from clawgate.integrations.mcp_proxy.server import ProxyOptions, connected, serve

__all__ = ["GuardedTools", "ProxyOptions", "connected", "error_result", "serve"]
