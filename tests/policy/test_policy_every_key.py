"""Every key of the manifest schema, on every surface: its effect, or the schema's own word that
it does not apply there (``Not applied by: ... — why.`` in the key's description).

The keys are enumerated from the pydantic models, so a new key without a row here fails
``test_every_key_has_a_row``. Container keys (a mapping of further keys) are covered by their
leaves. Surfaces: ``policy check``, ``policy run``, the Guard, the Claude Code and Gemini hooks
and the MCP proxy (``every_key.py``); the probes are in ``every_key_probes.py`` and
``every_key_special.py``.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from every_key import SURFACES, World
from every_key_probes import (
    Probe,
    agent_side,
    changes,
    changes_there,
    everywhere,
    fetches,
    guard_only,
    hides,
    on,
    refuses,
    says,
    shows,
)
from every_key_special import (
    CUSTOM,
    _budget,
    _custom_env,
    _custom_timeout,
    _limited,
    _proxy_bytes,
    _proxy_limited,
    _result_bytes,
    _search_endpoint,
    _spec,
    _trusted,
    _unreachable_engine,
    _workdir,
    _workspace,
    custom_call,
    docker,
    executor_has,
    guard_env,
    run_env,
    times_out,
)
from every_key_wrapped import PROBES as WRAPPED
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from clawgate.policy.models import Manifest

NOT_APPLIED = re.compile(r"Not applied by: ([a-z, -]+) — ")


# -- the schema -----------------------------------------------------------------------------

def _models(annotation: Any) -> Iterator[tuple[str, type[BaseModel]]]:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield "", annotation
    elif origin is dict and isinstance(args[1], type) and issubclass(args[1], BaseModel):
        yield ".<name>", args[1]
    elif origin is tuple and args and isinstance(args[0], type) \
            and issubclass(args[0], BaseModel):
        yield "[]", args[0]
    elif origin in (typing.Union, types.UnionType):
        for arg in args:
            yield from _models(arg)


def schema_leaves(model: type[BaseModel] = Manifest, prefix: str = ""
                  ) -> Iterator[tuple[str, FieldInfo]]:
    """(dotted key as users write it, field) for every key that holds a value."""
    for name, field in model.model_fields.items():
        key = f"{prefix}.{field.alias or name}" if prefix else field.alias or name
        inner = list(_models(field.annotation))
        if not inner:
            yield key, field
        for suffix, sub in inner:
            yield from schema_leaves(sub, key + suffix)


def not_applied(field: FieldInfo) -> set[str]:
    found = NOT_APPLIED.search(field.description or "")
    return set() if found is None else {s.strip() for s in found.group(1).split(",")}


# -- the table ------------------------------------------------------------------------------

FULL_AUTONOMY = ["autonomy: full"]
PUBLIC_URL = "https://93.184.216.34/x"  # an address literal: decided without DNS; never fetched
RULE = "shell: {{rules: [{{id: probe-rule, command: [make, dist], decision: {d}, why: " \
       "the probe says so, hint: use the pipeline{extra}}}]}}"

# a line that hides what it runs: ASK read statically, DENY once bash shows it runs rm -rf ~
HIDDEN = 'set -- rm -rf ~; "$@"'
# the same after some hundred milliseconds of bash's own work: a 1 ms shadow limit cannot be
# met. HIDDEN's run alone takes a few milliseconds, and the limit is measured from when the
# run has started: a test process the machine's load keeps from the CPU meanwhile found it
# ended "within" 1 ms (DENY where the probe expected ASK).
HIDDEN_LATE = 'i=0; while [ $i -lt 5000 ]; do i=$((i+1)); done; ' + HIDDEN
SHADOW_KEYS = frozenset({"shell.shadow", "shell.shadow_timeout_ms"})  # need bubblewrap
MOUNT_KEYS = frozenset({"executor.mounts[].path", "executor.mounts[].mode",
                        "executor.mounts[].reason",
                        "executor.seccomp.enabled"})  # bubblewrap's view and filter
NETWORK_KEYS = frozenset({"executor.network.allowed_domains", "executor.network.denied_domains",
                          "executor.network.allow_loopback_ports"})  # bubblewrap's egress
NETWORK = "executor: {{kind: bwrap, network: {{{body}}}}}"
MOUNT = "executor: {{kind: bwrap, mounts: [{{path: /usr/share, mode: {mode}, reason: {why}}}]}}"


def _lets(host: str, port: int, allowed: bool) -> Any:
    """The bubblewrap executor's egress proxy would decide ``host:port`` so."""
    return lambda ex: ex.egress.decide(host, port).allowed is allowed


def _shown(mode: str, why: str) -> Any:
    """The sandbox's view holds the entry as written: its path, its mode, its reason."""
    return lambda ex: any((m.path, m.mode, m.reason) == ("/usr/share", mode, f"policy: {why}")
                          for m in ex.view().mounts)


def _anomalies(setting: str, check: Callable[[Any], bool]) -> dict[str, Probe]:
    """An ``executor.seccomp`` key the Guard's syscall-anomaly detector reads, as written."""
    def probe(world: World) -> None:
        with world.guard([f"executor: {{seccomp: {{{setting}}}}}"]) as guard:
            assert check(guard.anomalies.limits), setting
    return on(guard=guard_only(probe))

ROWS: dict[str, dict[str, Probe]] = {
    "version": everywhere(refuses(["version: 2\n"], "version")),
    "locked": everywhere(changes(
        "flyctl deploy", ["locked: true\nautonomy: supervised", "autonomy: full"],
        ["autonomy: supervised", "autonomy: full"], ("ask", "allow"))),
    "autonomy": everywhere(changes("touch made.txt", ["autonomy: readonly"], [],
                                   ("deny", "allow"))),
    "require_approval_for_medium_risk": everywhere(changes(
        "touch made.txt", ["require_approval_for_medium_risk: true"], [], ("ask", "allow"))),
    "block_high_risk_commands": everywhere(changes(
        "flyctl deploy", ["autonomy: full\nblock_high_risk_commands: true"], FULL_AUTONOMY,
        ("deny", "allow"))),
    "permissions.write": everywhere(changes(
        "touch made.txt", ["permissions: {write: false, shell: true}\nautonomy: readonly"],
        ["permissions: {write: true, shell: true}"], ("deny", "allow"))),
    "permissions.shell": everywhere(changes(
        "ls", ["permissions: {write: true}"], ["permissions: {write: true, shell: true}"],
        ("deny", "allow"))),
    "permissions.unsafe": everywhere(changes(
        "git reset --hard", ["permissions: {write: true, shell: true, unsafe: true}"], [],
        ("allow", "ask"))),
    "workspace": everywhere(_workspace),
    "forbidden_paths": everywhere(changes(
        "touch secret/x", ["forbidden_paths: [secret]"], [], ("deny", "allow"))),
    "paths.protected": everywhere(changes(
        "touch deploy/x", ["paths: {protected: [deploy]}"], [], ("ask", "allow"))),
    "paths.regenerable": everywhere(changes_there(
        "rm -rf gen", "gen", ["paths: {regenerable: [gen]}"], [], ("allow", "ask"))),
    "tools.profile": agent_side(hides("tools: {{profile: minimal}}")),
    "tools.allow": agent_side(hides("tools: {{allow: [read_file]}}")),
    "tools.deny": agent_side(hides("tools: {{deny: [{T}]}}")),
    "tools.alsoAllow": agent_side(shows("tools: {{profile: minimal, alsoAllow: [{T}]}}",
                                        "tools: {{profile: minimal}}")),
    "tools.byProvider.<name>.profile": agent_side(hides(
        "tools: {{byProvider: {{{P}: {{profile: minimal}}}}}}")),
    "tools.byProvider.<name>.allow": agent_side(hides(
        "tools: {{byProvider: {{{P}: {{allow: [read_file]}}}}}}")),
    "tools.byGroup.<name>.allow": on(guard=hides(
        "tools: {{byGroup: {{team: {{allow: [read_file]}}}}}}", group="team")),
    "tools.agents.<name>.allow": agent_side(hides(
        "tools: {{agents: {{{A}: {{allow: [read_file]}}}}}}")),
    "tools.agents.<name>.deny": agent_side(hides("tools: {{agents: {{{A}: {{deny: [{T}]}}}}}}")),
    "tools.agents.<name>.alsoAllow": agent_side(shows(
        "tools: {{profile: minimal, agents: {{{A}: {{alsoAllow: [{T}]}}}}}}",
        "tools: {{profile: minimal}}")),
    "tools.agents.<name>.byProvider.<name>.allow": agent_side(hides(
        "tools: {{agents: {{{A}: {{byProvider: {{{P}: {{allow: [read_file]}}}}}}}}}}")),
    "tools.subagents.deny": on(guard=hides("tools: {{subagents: {{deny: [{T}]}}}}", depth=1)),
    "tools.subagents.leafDeny": on(guard=hides(
        "tools: {{subagents: {{leafDeny: [{T}], maxDepth: 1}}}}", depth=1)),
    "tools.subagents.maxDepth": on(guard=shows(
        "tools: {{subagents: {{leafDeny: [{T}], maxDepth: 2}}}}",
        "tools: {{subagents: {{leafDeny: [{T}]}}}}", depth=1)),
    "tools.groups": agent_side(hides("tools: {{groups: {{group:mine: [{T}]}}, "
                                     "deny: [group:mine]}}")),
    "tools.custom.<name>.name": on(guard=guard_only(lambda w: None if w.guard([
        "tools: {custom: [{name: greet, command: 'echo hi'}]}"]).call("greet", {})[
        "stdout"] == "hi\n" else pytest.fail("no greet"))),
    "tools.custom.<name>.description": on(guard=guard_only(lambda w: None if _spec(
        w, "command: 'echo hi', description: says hello")["function"]["description"]
        == "says hello" else pytest.fail("description not in the spec"))),
    "tools.custom.<name>.groups": on(guard=guard_only(lambda w: None if "greet" not in w.guard(
        [CUSTOM.format(extra="command: 'echo hi', groups: [group:probe]"),
         "tools: {deny: [group:probe]}"]).visible_tools() else pytest.fail("visible"))),
    "tools.custom.<name>.command": on(guard=guard_only(lambda w: None if custom_call(
        w, "command: 'echo {{who}}', parameters: {type: object, properties: {who: {type: "
        "string}}}", {"who": "a b"})["stdout"] == "a b\n" else pytest.fail("not run"))),
    "tools.custom.<name>.parameters": on(guard=guard_only(lambda w: None if _spec(
        w, "command: 'echo hi', parameters: {type: object, properties: {n: {type: integer}}}")[
        "function"]["parameters"]["properties"] == {"n": {"type": "integer"}}
        else pytest.fail("parameters not in the spec"))),
    "tools.custom.<name>.timeout_s": on(guard=guard_only(_custom_timeout)),
    "tools.custom.<name>.workdir": on(guard=guard_only(_workdir)),
    "tools.custom.<name>.env": on(guard=guard_only(_custom_env)),
    "shell.rules[].id": everywhere(says("make dist", [RULE.format(d="deny", extra="")],
                                        "probe-rule")),
    "shell.rules[].command": everywhere(changes(
        "make dist", [RULE.format(d="deny", extra="")], [], ("deny", "allow"))),
    "shell.rules[].decision": everywhere(changes(
        "make dist", [RULE.format(d="ask", extra="")], [RULE.format(d="deny", extra="")],
        ("ask", "deny"))),
    "shell.rules[].why": everywhere(says("make dist", [RULE.format(d="deny", extra="")],
                                         "the probe says so")),
    "shell.rules[].hint": on(**{s: says("make dist", [RULE.format(d="deny", extra="")],
                                        "use the pipeline") for s in SURFACES}),
    "shell.rules[].overrides": everywhere(changes(
        "sudo ls", ["shell: {rules: [{id: s, command: [sudo, ls], decision: allow, why: ok, "
                    "overrides: ask}]}"],
        ["shell: {rules: [{id: s, command: [sudo, ls], decision: allow, why: ok}]}"],
        ("allow", "ask"))),
    "shell.rules[].exact": everywhere(changes(
        "make dist now", [RULE.format(d="deny", extra=", exact: true")],
        [RULE.format(d="deny", extra="")], ("allow", "deny"))),
    "shell.rules[].examples.match": everywhere(refuses(
        [RULE.format(d="deny", extra=", examples: {match: [ls]}")], "probe-rule")),
    "shell.rules[].examples.not_match": everywhere(refuses(
        [RULE.format(d="deny", extra=", examples: {not_match: [make dist]}")],
        "probe-rule")),
    "shell.shadow": everywhere(changes(
        HIDDEN, ["shell: {shadow_timeout_ms: 10000}"], ["shell: {shadow: false}"],
        ("deny", "ask"))),
    "shell.shadow_timeout_ms": everywhere(changes(
        HIDDEN_LATE, ["shell: {shadow_timeout_ms: 10000}"], ["shell: {shadow_timeout_ms: 1}"],
        ("deny", "ask"))),
    "executor.kind": executor_has("executor: {kind: host}",  # the default, auto, sandboxes
                                  lambda ex: type(ex).__name__ == "HostExecutor"),
    "executor.repo_programs": executor_has("executor: {repo_programs: true}",
                                           lambda ex: ex.limits.repo_programs is True),
    "executor.timeout_s": times_out("executor: {timeout_s: 0.2}", "0.2", asked=None),
    "executor.max_timeout_s": times_out("executor: {timeout_s: 0.1, max_timeout_s: 0.3}",
                                        "0.3", asked=30),
    "executor.max_concurrent": executor_has("executor: {max_concurrent: 3}",
                                            lambda ex: ex.limiter.capacity == 3),
    "executor.queue_timeout_s": executor_has("executor: {queue_timeout_s: 4}",
                                             lambda ex: ex.limits.queue_timeout_s == 4),
    "executor.mounts[].path": executor_has(MOUNT.format(mode="hidden", why="probe"),
                                           _shown("hidden", "probe")),
    "executor.mounts[].mode": executor_has(MOUNT.format(mode="read-write", why="probe"),
                                           _shown("read-write", "probe")),
    "executor.mounts[].reason": executor_has(MOUNT.format(mode="hidden", why="datasets"),
                                             _shown("hidden", "datasets")),
    "executor.seccomp.enabled": executor_has(
        "executor: {kind: bwrap, seccomp: {enabled: false}}",
        lambda ex: type(ex).__name__ == "BwrapExecutor" and ex.seccomp is False),
    "executor.seccomp.on_anomaly": _anomalies("on_anomaly: end-session",
                                              lambda lim: lim.end_session is True),
    "executor.seccomp.max_denied_per_minute": _anomalies(
        "max_denied_per_minute: 2", lambda lim: lim.max_denied_per_minute == 2),
    "executor.seccomp.max_events_per_minute": _anomalies(
        "max_events_per_minute: 7", lambda lim: lim.max_events_per_minute == 7),
    "executor.seccomp.max_alerts_per_minute": _anomalies(
        "max_alerts_per_minute: 3", lambda lim: lim.max_alerts_per_minute == 3),
    "executor.seccomp.cooldown_s": _anomalies("cooldown_s: 4", lambda lim: lim.cooldown_s == 4),
    "executor.network.allowed_domains": executor_has(
        NETWORK.format(body="allowed_domains: [example.org]"),
        lambda ex: _lets("www.example.org", 443, True)(ex) and _lets("pypi.org", 443, False)(ex)),
    "executor.network.denied_domains": executor_has(
        NETWORK.format(body="denied_domains: [files.pythonhosted.org]"),
        lambda ex: _lets("files.pythonhosted.org", 443, False)(ex)
        and _lets("pypi.org", 443, True)(ex)),
    "executor.network.allow_loopback_ports": executor_has(
        NETWORK.format(body="allow_loopback_ports: [8731]"),
        lambda ex: _lets("localhost", 8731, True)(ex) and _lets("127.0.0.1", 8732, False)(ex)),
    "executor.docker.image": docker("image", "clawgate-sandbox:busybox",
                                    lambda c: c["image"] == "clawgate-sandbox:busybox"),
    "executor.docker.base_url": dict.fromkeys(("guard", "run"), _unreachable_engine),
    "executor.docker.memory": docker("memory", "64m", lambda c: c["mem_limit"] == 64 << 20),
    "executor.docker.pids": docker("pids", "17", lambda c: c["pids_limit"] == 17),
    "executor.docker.cpus": docker("cpus", "0.5", lambda c: c["nano_cpus"] == 500_000_000),
    "executor.docker.network": docker("network", "bridge", lambda c: "network_mode" not in c),
    "rate_limit.calls_per_minute": {
        "guard": guard_only(_limited(["rate_limit: {calls_per_minute: 1, burst: 1}"],
                                     "list_directory", {"path": "."}, 2)),
        "mcp-proxy": _proxy_limited(["rate_limit: {calls_per_minute: 1, burst: 2}"])},
    "rate_limit.burst": {
        "guard": guard_only(_limited(["rate_limit: {burst: 2}"], "list_directory",
                                     {"path": "."}, 3)),
        "mcp-proxy": _proxy_limited(["rate_limit: {burst: 2}"])},
    "rate_limit.exec_per_minute": on(guard=guard_only(_limited(
        ["rate_limit: {exec_per_minute: 1, burst: 1}"], "exec_shell", {"command": "true"}, 2))),
    "hooks.deny_tools": agent_side(hides("hooks: {{deny_tools: [{T}]}}")),
    "hooks.deny_tool_prefixes": agent_side(hides("hooks: {{deny_tool_prefixes: [exec_, srv__]}}")),
    "hooks.safe_env_names": {"guard": guard_only(guard_env),
                             "run": lambda surface, world: run_env(world)},
    "hooks.trusted": dict.fromkeys(("guard", "claude-code", "gemini", "mcp-proxy"), _trusted),
    "hooks.budgets.max_tool_iterations": on(guard=guard_only(_budget)),
    "hooks.budgets.max_result_bytes": {"guard": guard_only(_result_bytes),
                                       "mcp-proxy": _proxy_bytes},
    "web.allowed_domains": agent_side(fetches("web: {allowed_domains: [example.org]}",
                                              PUBLIC_URL, (False, True))),
    "web.blocked_domains": agent_side(fetches("web: {blocked_domains: [93.184.216.34]}",
                                              PUBLIC_URL, (False, True))),
    "web.search_endpoint": on(guard=guard_only(_search_endpoint)),
    **WRAPPED,
}


LEAVES = dict(schema_leaves())


def test_every_key_has_a_row() -> None:
    missing = sorted(set(LEAVES) - set(ROWS))
    assert not missing, f"keys without a row in ROWS: {missing}"
    assert not sorted(set(ROWS) - set(LEAVES)), "rows for keys the schema does not have"


@pytest.mark.parametrize("key", sorted(LEAVES))
def test_every_surface_is_probed_or_excused(key: str) -> None:
    """A surface has a probe, or the key's description says it does not apply there; never
    both, never neither."""
    excused = not_applied(LEAVES[key])
    assert excused <= set(SURFACES), excused
    probed = set(ROWS.get(key, {}))
    assert probed.isdisjoint(excused), f"{key}: probed and excused on {probed & excused}"
    assert probed | excused == set(SURFACES), f"{key}: nothing said of " \
        f"{set(SURFACES) - probed - excused}"
    if excused:
        assert re.search(r"Not applied by: [a-z, -]+ — .+\.$", LEAVES[key].description or "")


BWRAP_KEYS = SHADOW_KEYS | MOUNT_KEYS | NETWORK_KEYS
CASES = [pytest.param(key, surface, marks=[pytest.mark.bwrap] if key in BWRAP_KEYS else [])
         for key in sorted(ROWS) for surface in SURFACES if surface in ROWS[key]]


@pytest.mark.parametrize(("key", "surface"), CASES)
def test_the_key_has_its_effect(key: str, surface: str, tmp_path: Path) -> None:
    ROWS[key][surface](surface, World(tmp_path))
