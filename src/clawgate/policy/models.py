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
    match: Names = described("Commands the rule must match; checked when the file loads "
                             "(a failing example stops loading).", default=())
    not_match: Names = described("Commands the rule must not match; checked at load.",
                                 default=())


class ShellRule(Strict):
    """One command rule: an argv pattern, a decision and why (see ``policy/matching.py``)."""

    id: str = described("The rule's name in reasons: policy:<file>#<id>.",
                        pattern=RULE_ID.pattern)
    command: tuple[Element, ...] = described("The argv pattern (flag-aware).", min_length=1,
                                             max_length=64)
    decision: RuleDecision = described("allow, ask or deny for a matching command.")
    why: str = described("The reason's message.", min_length=1)
    hint: str | None = described("The reason's hint.", default=None)
    overrides: Literal["ask"] | None = described(
        "On an allow rule: also lift a validator's ASK (never a DENY).", default=None)
    exact: bool = described("Match only the argv as written, no extra words.", default=False)
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


class Permissions(Strict):
    """Tiers as a shorthand. When the block is present, each flag is false unless set."""

    write: bool = described("Changes allowed (false: autonomy readonly).", default=False)
    shell: bool = described("Commands allowed (false: every command is DENY).", default=False)
    unsafe: bool = described("Lifts destructive-command ASKs (never a DENY).", default=False)


class DockerSettings(Strict):
    image: str = described("The image (built by scripts/docker-engine.sh).", *RUNS,
                           default="clawgate-sandbox:busybox")
    base_url: str | None = described("The Docker engine's address (default: DOCKER_HOST).",
                                     *RUNS, default=None)
    memory: str = described("Memory limit (512m, 1g).", *RUNS, default="512m",
                            pattern=r"^[0-9]+[bkmg]?$")
    pids: int = described("Process limit.", *RUNS, default=256, ge=1)
    cpus: float = described("CPU share.", *RUNS, default=1.0, gt=0)
    network: Literal["none", "bridge"] = described("Network for the bwrap or docker sandbox.",
                                                   *RUNS, default="none")


class ExecutorSettings(Strict):
    kind: Literal["host", "bwrap", "docker"] = described(
        "Where commands run; a missing sandbox is an error, never a host run.", *RUNS,
        default="host")
    timeout_s: float = described("Seconds a command gets unless it asks for less or more.",
                                 *RUNS, default=30, gt=0)
    max_timeout_s: float = described("The most any command gets.", *RUNS, default=300, gt=0)
    max_concurrent: int = described("Commands running at once (the spawn cap).", *RUNS,
                                    default=5, ge=1, le=256)
    queue_timeout_s: float = described("Seconds a command waits for a slot over the cap "
                                       "(0: fail at once).", *RUNS, default=10, ge=0)
    docker: DockerSettings = DockerSettings()

    @model_validator(mode="after")
    def _coherent(self) -> ExecutorSettings:
        if self.timeout_s > self.max_timeout_s:
            raise ValueError("timeout_s is larger than max_timeout_s")
        return self


PER_PROCESS = ("check, run, claude-code, gemini",
               "each is one process per call: no session to count calls in")


class RateLimit(Strict):
    calls_per_minute: int = described("Tool calls per minute per session.", *PER_PROCESS,
                                      default=120, ge=1)
    exec_per_minute: int = described(
        "Calls that run commands per minute per session.", GUARD_ONLY,
        "only the Guard runs commands itself over a session (the proxy's calls count under "
        "calls_per_minute)", default=60, ge=1)
    burst: int = described("Calls allowed at once before the rates apply.", *PER_PROCESS,
                           default=20, ge=1)


class Budgets(Strict):
    max_tool_iterations: int = described(
        "Tool calls per turn (Guard.new_turn starts one).", GUARD_ONLY,
        "only the Guard sees an agent's turns", default=20, ge=1)
    max_result_bytes: int = described(
        "Bytes of a tool result a model sees (head and tail kept).",
        "check, run, claude-code, gemini", "no tool result passes through them (a hook "
        "decides before the call; policy run prints the command's own output)",
        default=65_536, ge=1024)


UNSUPPORTED_HOOK_KEYS = ("before_tool", "after_tool")  # accepted once, never applied: refused


class Hooks(Strict):
    deny_tools: Names = described("Tool names refused outright (case-insensitive).",
                                  *TOOL_CALLS, default=())
    deny_tool_prefixes: Names = described("Tool name prefixes refused outright.", *TOOL_CALLS,
                                          default=())
    safe_env_names: Names = described(
        "The only environment variables executed commands get from the caller's.", *RUNS,
        default=("PATH", "HOME", "LANG", "LC_ALL", "TERM", "TZ", "USER", "TMPDIR"))
    trusted: bool = described(
        "ASK runs without asking anyone.", "check, run", "check only reports a decision; "
        "policy run asks the person at its terminal, or takes --yes", default=False)
    budgets: Budgets = Budgets()

    @model_validator(mode="before")
    @classmethod
    def _unsupported(cls, data: Any) -> Any:
        for key in UNSUPPORTED_HOOK_KEYS:
            if isinstance(data, dict) and key in data:
                raise ValueError(f"{key} is not supported: nothing would show its messages; "
                                 "remove it")
        return data

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


SHELL_URLS = ("check, run", "a command line's network use is judged by the validators "
              "(CG-NET-*, CG-SEC-*), not by domain lists")


class Web(Strict):
    allowed_domains: Names = described("Domains URL fetches may reach (empty: any not "
                                       "blocked).", *SHELL_URLS, default=())
    blocked_domains: Names = described("Domains URL fetches may not reach.", *SHELL_URLS,
                                       default=())
    search_endpoint: str | None = described(
        "The endpoint web_search calls.", GUARD_ONLY, "only the Guard's web_search calls it",
        default=None, pattern=r"^https?://")


class Manifest(Strict):
    """One policy file (a layer)."""

    version: Literal[1] = described("The format version; anything but 1 stops loading.")
    locked: bool = described("Later and earlier layers can only narrow this one.",
                             default=False)
    autonomy: AutonomyName | None = described("readonly, supervised or full.", default=None)
    require_approval_for_medium_risk: bool | None = described("ASK medium-risk commands.",
                                                              default=None)
    block_high_risk_commands: bool | None = described("Under autonomy full, ASK high-risk "
                                                      "commands all the same.", default=None)
    permissions: Permissions | None = None
    workspace: str | None = described("The workspace root (relative to the file).",
                                      default=None)
    forbidden_paths: Names = described("Paths no call may touch, inside the workspace too.",
                                       default=())
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

