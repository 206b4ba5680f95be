"""What every manifest model shares: strictness, and descriptions that say where a key applies.

Each key's description says what it does, then (``Not applied by: <surfaces> — why.``) where
it does not apply; ``tests/policy/test_policy_every_key.py`` holds every key to both.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

Names = tuple[str, ...]


def applied(what: str, not_by: str = "", why: str = "") -> str:
    """A key's description: what it does, then the surfaces it does not apply to and why
    (``tests/policy/test_policy_every_key.py`` holds each key to both: its effect on every
    other surface, and this statement). Surfaces: check, run, guard, claude-code, gemini,
    mcp-proxy."""
    return what + (f" Not applied by: {not_by} — {why}." if not_by else "")


TOOL_CALLS = ("check, run", "they judge command lines, not an agent's tool calls")
GUARD_ONLY = "check, run, claude-code, gemini, mcp-proxy"
RUNS = ("check, claude-code, gemini, mcp-proxy",
        "nothing runs there: the agent or the wrapped MCP server runs what is allowed")
CUSTOM = (GUARD_ONLY, "custom command tools are tools the Guard itself offers and runs")


def described(what: str, *where: str, **kwargs: Any) -> Any:
    """``Field(description=applied(what, *where), **kwargs)``."""
    return Field(description=applied(what, *where), **kwargs)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=False)

