"""The manifest, as strict pydantic models: unknown keys and wrong types are errors, and so are
contradictions inside one file. Imported only when a manifest is validated (never on the
``policy check`` fast path). ``policy schema`` prints ``Manifest.model_json_schema()``.

Keys are the ones users write (``alsoAllow``, ``byProvider``, ``timeout_s`` ...); the Python
attribute names are snake_case aliases of them.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from clawgate.lazyre import lazy_pattern
from clawgate.policy.catalog import BUILTIN_GROUPS, BUILTIN_TOOLS, is_group

Profile = Literal["full", "coding", "messaging", "minimal"]
RuleDecision = Literal["allow", "ask", "deny"]
AutonomyName = Literal["readonly", "supervised", "full"]
Names = tuple[str, ...]
RULE_ID = lazy_pattern(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
GROUP_NAME = lazy_pattern(r"^group:[a-z0-9][a-z0-9_-]*$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=False)


class Regex(Strict):
    """A word matched by a regular expression (the whole word must match)."""

    re: str = Field(min_length=1, max_length=500)

    @field_validator("re")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from exc
        return value


Element = str | list[str] | Regex


class Examples(Strict):
    match: Names = ()
    not_match: Names = ()


class ShellRule(Strict):
    """One command rule: an argv pattern, a decision and why (see ``policy/matching.py``)."""

    id: str = Field(pattern=RULE_ID.pattern)
    command: tuple[Element, ...] = Field(min_length=1, max_length=64)
    decision: RuleDecision
    why: str = Field(min_length=1)
    hint: str | None = None
    overrides: Literal["ask"] | None = None
    exact: bool = False
    examples: Examples = Examples()

    @model_validator(mode="after")
    def _coherent(self) -> ShellRule:
        if self.overrides is not None and self.decision != "allow":
            raise ValueError("overrides: ask only makes sense on an allow rule")
        for index, element in enumerate(self.command):
            words = element if isinstance(element, list) else [element]
            if isinstance(element, list) and not element:
                raise ValueError(f"command[{index}]: an empty list of alternatives matches nothing")
            texts = [w for w in words if isinstance(w, str)]
            if any(not w for w in texts):
                raise ValueError(f"command[{index}]: empty word")
            if len({w.startswith("-") and w != "-" for w in texts}) > 1:
                raise ValueError(f"command[{index}]: alternatives mix flags and plain words")
            if index == 0 and any(w.startswith("-") for w in texts):
                raise ValueError("command[0] is the program and cannot be a flag")
            if any(w.startswith("-") and "=" in w for w in texts):
                raise ValueError(f"command[{index}]: match the flag name only, without =value")
        return self


class ShellPolicy(Strict):
    rules: tuple[ShellRule, ...] = ()

    @field_validator("rules")
    @classmethod
    def _unique(cls, rules: tuple[ShellRule, ...]) -> tuple[ShellRule, ...]:
        seen: set[str] = set()
        patterns: dict[str, ShellRule] = {}
        for index, rule in enumerate(rules):
            if rule.id in seen:
                raise ValueError(f"[{index}]: duplicate rule id {rule.id!r}")
            seen.add(rule.id)
            key = repr([e.re if isinstance(e, Regex) else e for e in rule.command])
            other = patterns.get(key)
            if other is not None and other.decision != rule.decision:
                raise ValueError(f"[{index}]: rules {other.id!r} ({other.decision}) and "
                                 f"{rule.id!r} ({rule.decision}) have the same command and "
                                 "contradict")
            patterns[key] = rule
        return rules


def _contradiction(allow: Names | None, deny: Names, what: str) -> None:
    both = sorted(set(allow or ()) & set(deny))
    if both:
        raise ValueError(f"{', '.join(both)} both in {what} and in deny")


class AllowOnly(Strict):
    allow: Names | None = None


class ProviderTools(Strict):
    profile: Profile | None = None
    allow: Names | None = None


class AgentTools(Strict):
    allow: Names | None = None
    deny: Names = ()
    also_allow: Names = Field(default=(), alias="alsoAllow")
    by_provider: dict[str, AllowOnly] = Field(default_factory=dict, alias="byProvider")

    @model_validator(mode="after")
    def _coherent(self) -> AgentTools:
        _contradiction(self.allow, self.deny, "allow")
        _contradiction(self.also_allow, self.deny, "alsoAllow")
        return self


class SubagentTools(Strict):
    deny: Names = ()
    leaf_deny: Names = Field(default=(), alias="leafDeny")
    max_depth: int = Field(default=1, ge=0, le=16, alias="maxDepth")


class CustomTool(Strict):
    """A command tool the deployment adds: ``command`` is a template whose ``{{name}}``
    placeholders are filled with shell-quoted argument values; ``env`` maps a variable the
    command sees to the environment variable its (secret) value is read from at start-up."""

    name: str | None = None  # the list form names each tool; the mapping form keys it
    description: str = ""
    groups: Names = ()
    command: str | None = Field(default=None, min_length=1)
    parameters: dict[str, Any] = Field(default_factory=dict)
    timeout_s: float = Field(default=30, gt=0, le=300)
    workdir: str | None = None
    env: dict[str, str] = Field(default_factory=dict)


class ToolsPolicy(Strict):
    profile: Profile | None = None
    allow: Names | None = None
    deny: Names = ()
    also_allow: Names = Field(default=(), alias="alsoAllow")
    by_provider: dict[str, ProviderTools] = Field(default_factory=dict, alias="byProvider")
    by_group: dict[str, AllowOnly] = Field(default_factory=dict, alias="byGroup")
    agents: dict[str, AgentTools] = Field(default_factory=dict)
    subagents: SubagentTools = SubagentTools()
    groups: dict[str, Names] = Field(default_factory=dict)
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


class Permissions(Strict):
    """Tiers as a shorthand. When the block is present, each flag is false unless set."""

    write: bool = False
    shell: bool = False
    unsafe: bool = False


class DockerSettings(Strict):
    image: str = "clawgate-sandbox:busybox"  # built by scripts/docker-engine.sh
    base_url: str | None = None
    memory: str = Field(default="512m", pattern=r"^[0-9]+[bkmg]?$")
    pids: int = Field(default=256, ge=1)
    cpus: float = Field(default=1.0, gt=0)
    network: Literal["none", "bridge"] = "none"


class ExecutorSettings(Strict):
    kind: Literal["host", "bwrap", "docker"] = "host"
    timeout_s: float = Field(default=30, gt=0)
    max_timeout_s: float = Field(default=300, gt=0)
    max_concurrent: int = Field(default=5, ge=1, le=256)
    queue_timeout_s: float = Field(default=10, ge=0)
    docker: DockerSettings = DockerSettings()

    @model_validator(mode="after")
    def _coherent(self) -> ExecutorSettings:
        if self.timeout_s > self.max_timeout_s:
            raise ValueError("timeout_s is larger than max_timeout_s")
        return self


class RateLimit(Strict):
    calls_per_minute: int = Field(default=120, ge=1)
    exec_per_minute: int = Field(default=60, ge=1)
    burst: int = Field(default=20, ge=1)


class Budgets(Strict):
    max_tool_iterations: int = Field(default=20, ge=1)
    max_result_bytes: int = Field(default=65_536, ge=1024)


class Hooks(Strict):
    deny_tools: Names = ()
    deny_tool_prefixes: Names = ()
    safe_env_names: Names = ("PATH", "HOME", "LANG", "LC_ALL", "TERM", "TZ", "USER", "TMPDIR")
    trusted: bool = False
    before_tool: dict[str, str] = Field(default_factory=dict)
    after_tool: dict[str, str] = Field(default_factory=dict)
    budgets: Budgets = Budgets()

    @field_validator("safe_env_names")
    @classmethod
    def _env_names(cls, value: Names) -> Names:
        bad = [n for n in value if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)]
        if bad:
            raise ValueError(f"{bad[0]!r} is not an environment variable name")
        return value

    def denies(self, tool: str) -> bool:
        """Whether ``deny_tools`` (exact, case-insensitive) or a prefix names ``tool``."""
        lowered = tool.lower()
        return lowered in {t.lower() for t in self.deny_tools} or any(
            tool.startswith(p) for p in self.deny_tool_prefixes)


class Web(Strict):
    allowed_domains: Names = ()
    blocked_domains: Names = ()
    search_endpoint: str | None = Field(default=None, pattern=r"^https?://")


class Paths(Strict):
    """Path meanings beyond inside/outside the workspace (``clawgate/protectedpaths.py``).

    ``protected``: more patterns whose writes need approval, as the default list (relative ones
    match at any depth, ``/``-anchored ones from the root). ``regenerable``: more names a
    recursive delete may remove without asking (``build``, ``*.egg-info`` are built in)."""

    protected: Names = Field(default=(), description=(
        "More paths whose writes ASK (relative: at any depth; /-anchored: from the root)."))
    regenerable: Names = Field(default=(), description=(
        "More names a recursive delete inside the workspace may remove without asking."))


class Manifest(Strict):
    """One policy file (a layer)."""

    version: Literal[1]
    locked: bool = False
    autonomy: AutonomyName | None = None
    require_approval_for_medium_risk: bool | None = None
    block_high_risk_commands: bool | None = None
    permissions: Permissions | None = None
    workspace: str | None = None
    forbidden_paths: Names = ()
    paths: Paths = Paths()
    tools: ToolsPolicy = ToolsPolicy()
    shell: ShellPolicy = ShellPolicy()
    executor: ExecutorSettings = ExecutorSettings()
    rate_limit: RateLimit = RateLimit()
    hooks: Hooks = Hooks()
    web: Web = Web()

    @model_validator(mode="after")
    def _coherent(self) -> Manifest:
        perms = self.permissions
        if perms is None:
            return self
        if not perms.write and self.autonomy in ("supervised", "full"):
            raise ValueError(f"autonomy {self.autonomy} contradicts permissions without write")
        if perms.write and self.autonomy == "readonly":
            raise ValueError("autonomy readonly contradicts permissions.write")
        if not perms.shell and any(r.decision == "allow" for r in self.shell.rules):
            raise ValueError("allow rules for commands contradict permissions without shell")
        return self

