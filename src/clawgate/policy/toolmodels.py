"""The ``tools`` section of a manifest: profiles, allow and deny lists per provider, agent,
group and subagent, named groups and custom command tools (see ``visibility.py``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from clawgate.lazyre import lazy_pattern
from clawgate.policy.catalog import BUILTIN_GROUPS, BUILTIN_TOOLS, is_group
from clawgate.policy.modelbase import (
    CUSTOM,
    GUARD_ONLY,
    TOOL_CALLS,
    Names,
    Strict,
    described,
)

Profile = Literal["full", "coding", "messaging", "minimal"]
GROUP_NAME = lazy_pattern(r"^group:[a-z0-9][a-z0-9_-]*$")


def _contradiction(allow: Names | None, deny: Names, what: str) -> None:
    both = sorted(set(allow or ()) & set(deny))
    if both:
        raise ValueError(f"{', '.join(both)} both in {what} and in deny")


class GroupTools(Strict):
    allow: Names | None = described(
        "Tools the calls of this chat group may see (intersects).", GUARD_ONLY,
        "only the Guard is told a call's group (CallContext.group)", default=None)


class ProviderTools(Strict):
    profile: Profile | None = described("The profile for this model provider.", *TOOL_CALLS,
                                        default=None)
    allow: Names | None = described("Tools this provider may see (intersects).", *TOOL_CALLS,
                                    default=None)


class AgentProviderTools(Strict):
    allow: Names | None = described("Tools this agent may see with this provider "
                                    "(intersects).", *TOOL_CALLS, default=None)


class AgentTools(Strict):
    allow: Names | None = described("Tools this agent may see (intersects).", *TOOL_CALLS,
                                    default=None)
    deny: Names = described("Tools this agent may not see.", *TOOL_CALLS, default=())
    also_allow: Names = described("Tools added back for this agent (not what a locked layer "
                                  "denies).", *TOOL_CALLS, default=(), alias="alsoAllow")
    by_provider: dict[str, AgentProviderTools] = Field(default_factory=dict,
                                                       alias="byProvider")

    @model_validator(mode="after")
    def _coherent(self) -> AgentTools:
        _contradiction(self.allow, self.deny, "allow")
        _contradiction(self.also_allow, self.deny, "alsoAllow")
        return self


SUBAGENTS = "only the Guard is told a call's subagent depth (CallContext.subagent_depth)"


class SubagentTools(Strict):
    deny: Names = described("Tools no subagent sees.", GUARD_ONLY, SUBAGENTS, default=())
    leaf_deny: Names = described("Tools a subagent at maxDepth does not see.", GUARD_ONLY,
                                 SUBAGENTS, default=(), alias="leafDeny")
    max_depth: int = described("The depth at which leafDeny applies.", GUARD_ONLY, SUBAGENTS,
                               default=1, ge=0, le=16, alias="maxDepth")


class CustomTool(Strict):
    """A command tool the deployment adds: ``command`` is a template whose ``{{name}}``
    placeholders are filled with shell-quoted argument values; ``env`` maps a variable the
    command sees to the environment variable its (secret) value is read from at start-up."""

    name: str | None = described("The tool's name in the list form (the mapping form keys "
                                 "it).", *CUSTOM, default=None)
    description: str = described("The description in the tool's spec.", *CUSTOM, default="")
    groups: Names = described("Groups the tool joins (group:<name>).", *CUSTOM, default=())
    command: str | None = described("The command template; without it the entry only "
                                    "declares a tool added in code.", *CUSTOM, default=None,
                                    min_length=1)
    parameters: dict[str, Any] = described("The JSON Schema of the arguments.", *CUSTOM,
                                           default_factory=dict)
    timeout_s: float | None = described("Seconds (default: executor.timeout_s; clamped to "
                                        "executor.max_timeout_s).", *CUSTOM, default=None,
                                        gt=0, le=300)
    workdir: str | None = described("Where it runs, inside the workspace.", *CUSTOM,
                                    default=None)
    env: dict[str, str] = described("Variables the command sees, read from these "
                                    "environment variables at start-up.", *CUSTOM,
                                    default_factory=dict)


class ToolsPolicy(Strict):
    profile: Profile | None = described("The starting set of tools.", *TOOL_CALLS,
                                        default=None)
    allow: Names | None = described("Tools that may be seen (intersects).", *TOOL_CALLS,
                                    default=None)
    deny: Names = described("Tools that may not be seen.", *TOOL_CALLS, default=())
    also_allow: Names = described("Tools added back after the deny lists (not what a locked "
                                  "layer denies).", *TOOL_CALLS, default=(),
                                  alias="alsoAllow")
    by_provider: dict[str, ProviderTools] = Field(default_factory=dict, alias="byProvider")
    by_group: dict[str, GroupTools] = Field(default_factory=dict, alias="byGroup")
    agents: dict[str, AgentTools] = Field(default_factory=dict)
    subagents: SubagentTools = SubagentTools()
    groups: dict[str, Names] = described("Named groups of tools (group:<name>).",
                                         *TOOL_CALLS, default_factory=dict)
    custom: dict[str, CustomTool] = Field(default_factory=dict)

    @field_validator("custom", mode="before")
    @classmethod
    def _named_list(cls, value: Any) -> Any:
        """``custom: [{name: dig, ...}]`` (the list form) becomes a mapping keyed by name."""
        if not isinstance(value, list):
            return value
        keyed: dict[str, Any] = {}
        for entry in value:
            name = entry.get("name") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not name:
                raise ValueError("every custom tool in the list form needs a name")
            if name in keyed:
                raise ValueError(f"custom tool {name!r} is defined twice")
            keyed[name] = entry
        return keyed

    @model_validator(mode="after")
    def _coherent(self) -> ToolsPolicy:
        _contradiction(self.allow, self.deny, "allow")
        _contradiction(self.also_allow, self.deny, "alsoAllow")
        for name in self.groups:
            if not GROUP_NAME.match(name):
                raise ValueError(f"group name {name!r} must look like group:<name>")
            if name in BUILTIN_GROUPS:
                raise ValueError(f"{name} is a built-in group and cannot be redefined")
        for name, tool in self.custom.items():
            if name in BUILTIN_TOOLS or is_group(name) or not name:
                raise ValueError(f"custom tool {name!r} clashes with a built-in name")
            bad = [g for g in tool.groups if not is_group(g)]
            if bad:
                raise ValueError(f"custom tool {name!r}: {bad[0]!r} is not a group:<name>")
        return self


