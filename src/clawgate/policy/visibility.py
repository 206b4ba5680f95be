"""Which tools an agent may see and call: the pipeline, step by step.

1. the global profile (``tools.profile``; ``full`` when no layer sets one)
2. the provider's profile, replacing it (``tools.byProvider.<provider>.profile``)
3. global allow, 4. provider allow, 5. agent allow, 6. agent + provider allow,
7. group allow (``tools.byGroup.<group>.allow``): each intersects; an absent list is no step,
   an empty list allows nothing
8. global deny, 9. agent deny: subtracted
10. global ``alsoAllow``, 11. agent ``alsoAllow``: added back from every tool there is, except
    what a locked layer denies
12. for a subagent (depth >= 1), ``subagents.deny``; 13. at ``subagents.maxDepth`` (a leaf that
    may not spawn further), ``subagents.leafDeny``
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from clawgate.policy.catalog import Groups
from clawgate.policy.layers import Merged


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Who is asking: the agent, the model provider, how deep a subagent, the chat group."""

    agent: str | None = None
    provider: str | None = None
    subagent_depth: int = 0
    group: str | None = None


@dataclass(frozen=True, slots=True)
class VisibleTools:
    tools: list[str]
    steps: list[tuple[str, frozenset[str]]]

    def as_dict(self) -> dict[str, Any]:
        """The shape of ``policy tools --json``."""
        return {"tools": self.tools,
                "steps": [{"step": name, "tools": sorted(s)} for name, s in self.steps]}


def groups_of(merged: Merged) -> Groups:
    """Built-in groups, the policy's ``tools.groups`` and custom tools' memberships."""
    defined = {name: merged.value("tools", "groups", name, default=())
               for name in merged.children("tools", "groups")}
    members: dict[str, list[str]] = {}
    for name in merged.children("tools", "custom"):
        spec = merged.value("tools", "custom", name, default={}) or {}
        for group in spec.get("groups", ()):
            members.setdefault(group, []).append(name)
    return Groups(defined, members)


class _Pipeline:
    def __init__(self, merged: Merged, universe: Iterable[str]) -> None:
        self.merged = merged
        self.groups = groups_of(merged)
        self.universe = sorted(set(universe))
        self.current: set[str] = set()
        self.steps: list[tuple[str, frozenset[str]]] = []

    def expand(self, entries: Iterable[str]) -> set[str]:
        return self.groups.expand(entries, self.universe)

    def record(self, name: str) -> None:
        self.steps.append((name, frozenset(self.current)))

    def intersect(self, name: str, *path: str | None) -> None:
        if None not in path:
            for allow in self.merged.intersections(*(p for p in path if p is not None)):
                self.current &= self.expand(allow)
        self.record(name)

    def subtract(self, name: str, *path: str | None, when: bool = True) -> None:
        if when and None not in path:
            self.current -= self.expand(self.merged.concat(*(p for p in path if p is not None)))
        self.record(name)

    def add_back(self, name: str, *path: str | None, locked_denied: set[str]) -> None:
        if None not in path:
            # under a lock only locked layers may add back (an unlocked one may only narrow)
            entries = self.merged.concat(*(p for p in path if p is not None),
                                         locked_only=self.merged.locked)
            self.current |= self.expand(entries) - locked_denied
        self.record(name)


def visible_tools(merged: Merged, all_tool_names: Iterable[str],
                  ctx: ToolContext) -> VisibleTools:
    """The tools ``ctx`` may see, with the set after every step of the pipeline."""
    run = _Pipeline(merged, all_tool_names)
    agent, provider = ctx.agent, ctx.provider
    run.current = run.groups.profile(merged.value("tools", "profile", default="full"),
                                     run.universe)
    run.record("profile")
    override = merged.value("tools", "byProvider", provider or "", "profile")
    if provider is not None and override is not None:
        run.current = run.groups.profile(override, run.universe)
    run.record("provider profile")
    run.intersect("global allow", "tools", "allow")
    run.intersect("provider allow", "tools", "byProvider", provider, "allow")
    run.intersect("agent allow", "tools", "agents", agent, "allow")
    run.intersect("agent+provider allow", "tools", "agents", agent, "byProvider", provider,
                  "allow")
    run.intersect("group allow", "tools", "byGroup", ctx.group, "allow")
    run.subtract("global deny", "tools", "deny")
    run.subtract("agent deny", "tools", "agents", agent, "deny")
    locked = run.expand(merged.concat("tools", "deny", locked_only=True))
    if agent is not None:
        locked |= run.expand(merged.concat("tools", "agents", agent, "deny", locked_only=True))
    run.add_back("global alsoAllow", "tools", "alsoAllow", locked_denied=locked)
    run.add_back("agent alsoAllow", "tools", "agents", agent, "alsoAllow", locked_denied=locked)
    depth = ctx.subagent_depth
    run.subtract("subagent deny", "tools", "subagents", "deny", when=depth >= 1)
    max_depth = int(merged.value("tools", "subagents", "maxDepth", default=1))
    run.subtract("leaf deny", "tools", "subagents", "leafDeny", when=depth >= max_depth)
    return VisibleTools(sorted(run.current), run.steps)
