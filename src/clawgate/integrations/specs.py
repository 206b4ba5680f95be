"""Function-calling specs of exactly the tools a context may call: what an agent builder hands
a model (``policy tools --format openai|anthropic|mcp``).

The specs come from the tools themselves (built-in tools and the manifest's custom command
tools), filtered by the tool policy and ``hooks.deny_tools``. Building them runs nothing: the
host executor the command tools are given is never called.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from clawgate.policy.visibility import ToolContext

if TYPE_CHECKING:
    from clawgate.policy.policy import Policy
    from clawgate.tools.base import ToolRegistry


def registry_for(policy: Policy, workspace: str | None = None) -> ToolRegistry:
    """The built-in and custom tools a guard for ``policy`` would offer."""
    from clawgate.executors import HostExecutor
    from clawgate.tools.base import ToolRegistry
    from clawgate.tools.builtin import builtin_tools
    from clawgate.tools.paths import Workspace
    from clawgate.tools.shell import CustomCommand
    from clawgate.tools.urls import UrlPolicy

    root = os.path.abspath(workspace or policy.engine_settings().workspace or ".")
    runner = HostExecutor(workspace=root)
    registry = ToolRegistry(builtin_tools(Workspace(root), runner, UrlPolicy(), None))
    for name, spec in policy.tools.custom.items():
        if spec.command is not None:
            registry.register(CustomCommand(
                name=name, description=spec.description, parameters=spec.parameters or {
                    "type": "object", "properties": {}}, template=spec.command,
                executor=runner, cwd=spec.workdir, env={}, timeout_s=spec.timeout_s))
    return registry


def visible_specs(policy: Policy, fmt: str, ctx: ToolContext, extra: Iterable[str] = (),
                  workspace: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The specs of the visible tools, and the visible names that have no schema here
    (``extra`` names such as MCP tools, whose schemas only their server knows)."""
    registry = registry_for(policy, workspace)
    names = {*registry.names(), *extra}
    seen = [n for n in policy.visible_tools(names, ctx).tools if not policy.hooks.denies(n)]
    return registry.specs(fmt, seen), [n for n in seen if n not in registry]
