"""The manifest, as strict pydantic models: unknown keys and wrong types are errors, and so are
contradictions inside one file. Imported only when a manifest is validated (never on the
``policy check`` fast path). ``policy schema`` prints ``Manifest.model_json_schema()``.

The ``tools`` section lives in ``toolmodels.py``, the shared base in ``modelbase.py``; their
models are importable from here too. Keys are the ones users write (``alsoAllow``,
``byProvider``, ``timeout_s`` ...); the Python attribute names are snake_case aliases of them.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from clawgate.egressrules import DEFAULT_ALLOWED_DOMAINS, entries
from clawgate.lazyre import lazy_pattern
from clawgate.policy.modelbase import GUARD_ONLY, RUNS, TOOL_CALLS, Names, Strict, described
from clawgate.policy.toolmodels import (
    AgentProviderTools,
    AgentTools,
    CustomTool,
    GroupTools,
    ProviderTools,
    SubagentTools,
    ToolsPolicy,
)
from clawgate.trustenv import TRUST_ENV_NAMES

__all__ = ["AgentProviderTools", "AgentTools", "CustomTool", "DockerSettings",
           "ExecutorSettings", "GroupTools", "Hooks", "Manifest", "NetworkSettings", "Permissions",
           "ProviderTools", "RateLimit", "SandboxMount", "SeccompSettings", "ShellPolicy",
           "ShellRule",
           "SubagentTools", "ToolsPolicy", "Web"]

RuleDecision = Literal["allow", "ask", "deny"]
AutonomyName = Literal["readonly", "supervised", "full"]
RULE_ID = lazy_pattern(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


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
    shadow: bool = described(
        "Run a line that hides what it runs (a computed program name, eval or a shell fed "
        "computed or decoded text, obfuscation, a line the parsers read apart) in real bash "
        "inside a sandbox where every program is a recorder, and judge each program it "
        "starts as if written out; it only adds strictness. Needs bubblewrap.", default=True)
    shadow_timeout_ms: int = described(
        "Milliseconds a shadow run gets before it is killed (the static reading then "
        "stands).", default=200, ge=1, le=10_000)

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
    memory: str = described("Memory limit (512m, 4g).", *RUNS, default="4g",
                            pattern=r"^[0-9]+[bkmg]?$")
    pids: int = described("Process limit (threads count).", *RUNS, default=4096, ge=1)
    cpus: float = described("CPU share.", *RUNS, default=1.0, gt=0)
    network: Literal["none", "bridge"] = described(
        "bridge: around the egress proxy (no domain decisions, no connection audit), "
        "bubblewrap shares the host's network and a Docker container gets the engine's "
        "bridge network; none: the only way out is the proxy (executor.network).", *RUNS,
        default="none")


class SandboxMount(Strict):
    """A path a policy adds to the sandbox's view (``executor.mounts``)."""

    path: str = described("An absolute path, ~/... or a path relative to the workspace.",
                          *RUNS, min_length=1, max_length=4096)
    mode: Literal["read-only", "read-write", "hidden"] = described(
        "read-only, read-write, or hidden (an empty read-only directory or file in its "
        "place).", *RUNS)
    reason: str = described("Why: shown by policy run --explain-sandbox.", *RUNS,
                            min_length=1, max_length=500)

    @field_validator("path")
    @classmethod
    def _a_path(cls, value: str) -> str:
        if "\0" in value or "\n" in value:
            raise ValueError("a path cannot hold a NUL byte or a newline")
        if value.startswith("~") and value != "~" and not value.startswith("~/"):
            raise ValueError(f"{value}: ~user paths are not allowed; use ~/... or a full path")
        parts = [p for p in value.split("/") if p not in ("", ".")]
        if not parts:
            raise ValueError(f"{value}: the whole file system cannot be one mount")
        if value.startswith("/") and parts[0] in ("proc", "dev", "sys"):
            raise ValueError(f"{value}: /{parts[0]} is the sandbox's own")
        if ".." in parts:
            raise ValueError(f"{value}: '..' is not allowed; name the path itself")
        return value


ANOMALIES = (GUARD_ONLY, "only the Guard keeps a session whose anomalies it audits")


class SeccompSettings(Strict):
    """The bubblewrap sandbox's system-call filter and what the Guard makes of its refusals
    (``executor.seccomp``; docs/sandbox.md)."""

    enabled: bool = described(
        "Run bwrap commands under the system-call filter (ptrace, mount, unshare/setns and "
        "namespace clones, kexec, bpf, the keyring, modules, raw and packet sockets, ... are "
        "refused and recorded). A machine that cannot install it refuses to run; false runs "
        "without it.", *RUNS, default=True)
    on_anomaly: Literal["record", "end-session"] = described(
        "What an anomaly does beyond its audit line: record, or end-session (the call fails "
        "and the Guard refuses every later call of that session).", *ANOMALIES,
        default="record")
    max_denied_per_minute: int = described(
        "Denied system calls a session may make in a rolling minute before a "
        "denied_rate_exceeded anomaly.", *ANOMALIES, default=5, ge=0)
    max_events_per_minute: int = described(
        "Refused system calls of any kind (denied and unknown) a session may make in a "
        "rolling minute before an event_rate_exceeded anomaly.", *ANOMALIES, default=120,
        ge=0)
    max_alerts_per_minute: int = described(
        "Anomaly lines a session writes in a rolling minute at most.", *ANOMALIES,
        default=30, ge=1)
    cooldown_s: float = described(
        "Seconds during which the same anomaly (kind, system call, program) is not written "
        "again: a loop does not flood the audit.", *ANOMALIES, default=20, ge=0)


class NetworkSettings(Strict):
    """What a sandboxed command may connect to (``executor.network``): through clawgate's
    egress proxy, by host name; the sandbox has no network of its own."""

    allowed_domains: Names = described(
        "Host names a sandboxed command may connect to through clawgate's proxy: a name "
        "covers its subdomains (pypi.org covers files.pypi.org, never evilpypi.org); * covers "
        "every name; an IP address only as written here. The default: the package registries, "
        "GitHub and the toolchains' download hosts. Empty: no connection at all.", *RUNS,
        default=DEFAULT_ALLOWED_DOMAINS)
    denied_domains: Names = described(
        "Host names (and IP addresses) refused even where allowed_domains covers them; each "
        "layer's entries add to the others'.", *RUNS, default=())
    allow_loopback_ports: tuple[int, ...] = described(
        "Ports of the host's loopback (localhost, 127.0.0.0/8, ::1) a sandboxed command may "
        "reach through the proxy (a local registry mirror); none by default.", *RUNS,
        default=())

    @field_validator("allowed_domains", "denied_domains")
    @classmethod
    def _hosts(cls, value: Names) -> Names:
        return entries(value)

    @field_validator("allow_loopback_ports")
    @classmethod
    def _ports(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        bad = [p for p in value if not 0 < p < 65536]
        if bad:
            raise ValueError(f"{bad[0]} is not a port (1-65535)")
        return value


class ExecutorSettings(Strict):
    kind: Literal["auto", "host", "bwrap", "docker"] = described(
        "Where commands run: auto is bwrap where it works here, else the host with a one-line "
        "warning; host, bwrap and docker are taken as written (a missing sandbox is an error, "
        "never a host run).", *RUNS, default="auto")
    timeout_s: float = described("Seconds a command gets unless it asks for less or more.",
                                 *RUNS, default=30, gt=0)
    max_timeout_s: float = described("The most any command gets.", *RUNS, default=300, gt=0)
    max_concurrent: int = described("Commands running at once (the spawn cap).", *RUNS,
                                    default=5, ge=1, le=256)
    queue_timeout_s: float = described("Seconds a command waits for a slot over the cap "
                                       "(0: fail at once).", *RUNS, default=10, ge=0)
    repo_programs: bool = described(
        "Let git run what a repository configures (hooks, core.fsmonitor, ext:: URLs); off, "
        "a file write cannot become code execution through git.", *RUNS, default=False)
    mounts: tuple[SandboxMount, ...] = described(
        "Paths the bwrap or docker sandbox shows besides its default view (home read-only "
        "minus credential stores, workspace writable minus protected paths); each layer's "
        "entries add to the others', a later entry at the same path wins. Under a locked "
        "layer only its own entries and hidden ones apply.", *RUNS, default=())
    network: NetworkSettings = NetworkSettings()
    docker: DockerSettings = DockerSettings()
    seccomp: SeccompSettings = SeccompSettings()

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


MCP_ONLY = ("check, run, guard, claude-code, gemini",
            "only the MCP proxy relays what a wrapped MCP server sends")


class Budgets(Strict):
    max_tool_iterations: int = described(
        "Tool calls per turn (Guard.new_turn starts one).", GUARD_ONLY,
        "only the Guard sees an agent's turns", default=20, ge=1)
    max_result_bytes: int = described(
        "Bytes of a tool result a model sees (head and tail kept).",
        "check, run, claude-code, gemini", "no tool result passes through them (a hook "
        "decides before the call; policy run prints the command's own output)",
        default=65_536, ge=1024)
    max_message_bytes: int = described(
        "Bytes of one message a wrapped MCP server may send (a tool result, a page of its "
        "tool list); a longer one is not relayed, and the call fails with an error naming "
        "this bound.", *MCP_ONLY, default=8 << 20, ge=16_384)
    max_listed_tools: int = described(
        "Tools a wrapped MCP server may list; a longer list is an error naming this bound.",
        *MCP_ONLY, default=500, ge=1)
    max_tool_bytes: int = described(
        "Bytes of one tool's definition (its name, description and schemas) a wrapped MCP "
        "server may list; a larger one is an error naming the tool and this bound.",
        *MCP_ONLY, default=65_536, ge=256)


UNSUPPORTED_HOOK_KEYS = ("before_tool", "after_tool")  # accepted once, never applied: refused


class Hooks(Strict):
    deny_tools: Names = described("Tool names refused outright (case-insensitive).",
                                  *TOOL_CALLS, default=())
    deny_tool_prefixes: Names = described("Tool name prefixes refused outright.", *TOOL_CALLS,
                                          default=())
    safe_env_names: Names = described(
        "The only environment variables executed commands get from the caller's.", *RUNS,
        default=("PATH", "HOME", "LANG", "LC_ALL", "TERM", "TZ", "USER", "TMPDIR",
                 *TRUST_ENV_NAMES))
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


class Paths(Strict):
    """Path meanings beyond inside/outside the workspace (``clawgate/protectedpaths.py``).

    ``protected``: more patterns whose writes need approval, as the default list (relative ones
    match at any depth, ``/``-anchored ones from the root). ``regenerable``: more names a
    recursive delete may remove without asking (``build``, ``*.egg-info`` are built in)."""

    protected: Names = described("More paths whose writes ASK (relative: at any depth; "
                                 "/-anchored: from the root).", default=())
    regenerable: Names = described("More names a recursive delete inside the workspace may "
                                   "remove without asking.", default=())


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

