"""The effective policy: every layer combined, read by the engine, the guard and the adapters.

``engine_settings()`` and ``visible_tools()`` work on plain data (no pydantic), so that the
embedded default costs almost nothing to load. The typed sections (``executor``, ``rate_limit``,
``hooks``, ``web``, ``tools``) are pydantic models built on first use.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property

from clawgate.policy.layers import Layer, Merged
from clawgate.policy.matching import RuleSet, compile_rule
from clawgate.policy.settings import Autonomy, EngineSettings

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import Any, NamedTuple

    from clawgate.policy.models import CustomTool, ExecutorSettings, Hooks, RateLimit, Web
    from clawgate.policy.visibility import ToolContext, VisibleTools
else:
    from clawgate.records import NamedTuple

SECTIONS = ("executor", "rate_limit", "hooks", "web")


class ToolsView(NamedTuple):
    """What later parts read about tools besides visibility."""

    profile: str
    custom: dict[str, CustomTool]


class Policy:
    """Layers combined (see ``layers.py`` for the rules). Build it with ``load_policy``."""

    def __init__(self, merged: Merged) -> None:
        self.merged = merged

    @property
    def layers(self) -> tuple[Layer, ...]:
        return self.merged.layers

    @cached_property
    def rules(self) -> RuleSet:
        """Every layer's command rules; under a locked layer, unlocked allow rules are dropped."""
        locked = self.merged.locked
        return RuleSet(compile_rule(rule, layer.label) for layer, rule in self.merged.rules
                       if layer.locked or not (locked and rule["decision"] == "allow"))

    def engine_settings(self) -> EngineSettings:
        """The values the engine decides with (autonomy, approvals, tiers, paths, rules)."""
        m = self.merged
        tiers = any(path[0] == "permissions" for path in m.scalars)
        write = bool(m.value("permissions", "write", default=not tiers))
        shell = bool(m.value("permissions", "shell", default=not tiers))
        autonomy = Autonomy(m.value("autonomy", default="supervised"))
        if not write:
            autonomy = Autonomy.READONLY  # nothing but reads without `write`
        shell_entry = m.scalars.get(("permissions", "shell"))
        label = shell_entry.layer if shell_entry is not None else (
            next((e.layer for p, e in m.scalars.items() if p[0] == "permissions"), "policy"))
        return EngineSettings(
            autonomy=autonomy,
            require_approval_for_medium_risk=bool(
                m.value("require_approval_for_medium_risk", default=False)),
            block_high_risk_commands=bool(m.value("block_high_risk_commands", default=False)),
            unsafe=bool(m.value("permissions", "unsafe", default=False)),
            workspace=m.value("workspace"),
            forbidden_paths=tuple(dict.fromkeys(m.concat("forbidden_paths"))),
            protected_paths=tuple(dict.fromkeys(m.concat("paths", "protected"))),
            # under a locked layer only its own entries widen what deletes may remove
            regenerable_paths=tuple(dict.fromkeys(
                m.concat("paths", "regenerable", locked_only=m.locked))),
            rules=self.rules,
            shell_allowed=shell,
            shell_denied_by=f"policy:{label}#permissions.shell",
            shadow=bool(m.value("shell", "shadow", default=True)),
            shadow_timeout_s=int(m.value("shell", "shadow_timeout_ms", default=200)) / 1000,
        )

    def visible_tools(self, all_tool_names: Iterable[str],
                      ctx: ToolContext | None = None) -> VisibleTools:
        """The tools ``ctx`` may see, with the set after every pipeline step."""
        from clawgate.policy.visibility import ToolContext, visible_tools

        return visible_tools(self.merged, all_tool_names, ctx or ToolContext())

    def section(self, name: str) -> dict[str, Any]:
        """The combined values under ``name`` as one nested mapping (explicit values only)."""
        out: dict[str, Any] = {}
        items: list[tuple[tuple[str, ...], Any]] = [
            *((p, e.value) for p, e in self.merged.scalars.items()),
            *((p, [e.value for e in es]) for p, es in self.merged.lists.items())]
        for path, value in items:
            if path[0] != name:
                continue
            target = out
            for key in path[1:-1]:
                target = target.setdefault(key, {})
            if len(path) > 1:
                target[path[-1]] = value
        return out

    @cached_property
    def executor(self) -> ExecutorSettings:
        from clawgate.policy.models import ExecutorSettings

        section = self.section("executor")
        if "mounts" in section:  # under a lock, unlocked layers may only hide more
            section["mounts"] = [e.value for e in self.merged.lists[("executor", "mounts")]
                                 if e.locked or not self.merged.locked
                                 or e.value.get("mode") == "hidden"]
        return ExecutorSettings.model_validate(section)

    @cached_property
    def rate_limit(self) -> RateLimit:
        from clawgate.policy.models import RateLimit

        return RateLimit.model_validate(self.section("rate_limit"))

    @cached_property
    def hooks(self) -> Hooks:
        from clawgate.policy.models import Hooks

        return Hooks.model_validate(self.section("hooks"))

    @cached_property
    def web(self) -> Web:
        from clawgate.policy.models import Web

        return Web.model_validate(self.section("web"))

    @cached_property
    def tools(self) -> ToolsView:
        from clawgate.policy.models import CustomTool

        custom = {name: CustomTool.model_validate(
            self.merged.value("tools", "custom", name, default={}))
            for name in self.merged.children("tools", "custom")}
        return ToolsView(self.merged.value("tools", "profile", default="full"), custom)

    @property
    def autonomy(self) -> Autonomy:
        return self.engine_settings().autonomy
