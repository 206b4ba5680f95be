"""Every key of the manifest schema, on every surface: its effect, or the schema's own word that
it does not apply there (``Not applied by: ... — why.`` in the key's description).

The keys are enumerated from the pydantic models, so a new key without a row here fails
``test_every_key_has_a_row``. Container keys (a mapping of further keys) are covered by their
leaves. Surfaces: ``policy check``, ``policy run``, the Guard, the Claude Code and Gemini hooks
and the MCP proxy (see ``every_key.py``).
"""

from __future__ import annotations

import json
import os
import re
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from every_key import (
    AGENT,
    PROVIDER,
    SHELL_TOOL,
    SURFACES,
    World,
    _main,
    _proxy,
    decide,
    fetch,
    proxy_call,
    visible,
)
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from clawgate.approval import ApprovalStore
from clawgate.cli import run as run_module
from clawgate.errors import SandboxUnavailable, ToolError
from clawgate.executors import executor_from_settings
from clawgate.guard import CallContext, Guard
from clawgate.integrations.arguments import mcp_call
from clawgate.policy.loader import load_policy
from clawgate.policy.models import Manifest

Probe = Callable[[str, World], None]
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


# -- probes ---------------------------------------------------------------------------------

def _norm(surface: str, outcome: str) -> str:
    return "deny" if surface == "gemini" and outcome == "ask" else outcome  # gemini cannot ask


def changes(command: str, with_: list[str], without: list[str], expect: tuple[str, str]
            ) -> Probe:
    """The command's outcome is expect[0] with the manifests, expect[1] without."""
    def probe(surface: str, world: World) -> None:
        got = (decide(surface, world, with_, command)[0],
               decide(surface, world, without, command)[0])
        assert got == tuple(_norm(surface, e) for e in expect), (surface, got)
    return probe


def says(command: str, texts: list[str], needle: str) -> Probe:
    def probe(surface: str, world: World) -> None:
        outcome, reasons = decide(surface, world, texts, command)
        assert needle in reasons, (surface, outcome, reasons)
    return probe


def refuses(texts: list[str], needle: str) -> Probe:
    """The manifests do not load: an error, or a hook's deny naming the failure."""
    def probe(surface: str, world: World) -> None:
        outcome, text = decide(surface, world, texts, "ls")
        assert outcome in ("error", "deny") and needle in text, (surface, outcome, text)
        if outcome == "deny":
            assert "could not decide" in text
    return probe


def hides(template: str, base: str = "", tool: str | None = None, **ctx: Any) -> Probe:
    """The tool is visible with ``base`` and hidden once ``template`` is added. ``{T}`` is
    the surface's command tool, ``{A}`` its agent and ``{P}`` its provider."""
    def probe(surface: str, world: World) -> None:
        fill = {"T": SHELL_TOOL[surface], "A": AGENT[surface], "P": PROVIDER[surface]}
        texts = [base.format(**fill)] if base else []
        assert visible(surface, world, texts, tool, **ctx), surface
        assert not visible(surface, world, [*texts, template.format(**fill)], tool, **ctx), \
            surface
    return probe


def shows(template: str, base: str, **ctx: Any) -> Probe:
    """The tool is hidden with the manifest ``base`` and visible with ``template`` (the same
    plus the key)."""
    def probe(surface: str, world: World) -> None:
        fill = {"T": SHELL_TOOL[surface], "A": AGENT[surface], "P": PROVIDER[surface]}
        assert not visible(surface, world, [base.format(**fill)], **ctx), surface
        assert visible(surface, world, [template.format(**fill)], **ctx), surface
    return probe


def fetches(template: str, url: str, expect: tuple[bool, bool]) -> Probe:
    def probe(surface: str, world: World) -> None:
        got = (fetch(surface, world, [template], url), fetch(surface, world, [], url))
        assert got == expect, (surface, got)
    return probe


def guard_only(check: Callable[[World], None]) -> Probe:
    def probe(surface: str, world: World) -> None:
        assert surface == "guard"
        check(world)
    return probe


def on(**probes: Probe) -> dict[str, Probe]:
    return {surface.replace("_", "-"): p for surface, p in probes.items()}


def everywhere(probe: Probe) -> dict[str, Probe]:
    return dict.fromkeys(SURFACES, probe)


def agent_side(probe: Probe) -> dict[str, Probe]:
    return dict.fromkeys(("guard", "claude-code", "gemini", "mcp-proxy"), probe)


# -- executor probes (the Guard and policy run) ---------------------------------------------

def _run_executor(world: World, texts: list[str]) -> Any:
    """The executor ``policy run`` builds for these manifests (its own plan function)."""
    policy = load_policy(*world.manifests(texts))
    settings, _ = run_module.executor_plan(policy.executor.model_dump(), None, None, False,
                                           None)
    return executor_from_settings(settings, workspace=world.ws,
                                  safe_env_names=policy.hooks.safe_env_names)


def _executor(surface: str, world: World, texts: list[str]) -> Any:
    try:
        if surface == "guard":
            return world.guard(texts).executor
        return _run_executor(world, texts)
    except SandboxUnavailable as exc:
        if os.environ.get("CLAWGATE_REQUIRE_DOCKER") == "1" or "docker" not in str(exc):
            raise
        pytest.skip(f"docker unavailable: {exc}")


def executor_has(text: str, check: Callable[[Any], bool]) -> dict[str, Probe]:
    def probe(surface: str, world: World) -> None:
        executor = _executor(surface, world, [text])
        try:
            assert check(executor), (surface, text)
        finally:
            executor.close()
    return {"guard": probe, "run": probe}


def times_out(text: str, expect: str, asked: int | None) -> dict[str, Probe]:
    """A ``sleep 30`` is killed after ``expect`` seconds, and the message says so; ``asked``
    is the call's own timeout (the Guard) or ``--timeout`` (policy run, refused when above
    the maximum)."""
    def guard(world: World) -> None:
        args: dict[str, Any] = {"command": "sleep 30"}
        if asked is not None:
            args["timeout"] = asked
        with pytest.raises(ToolError, match=re.escape(f"timed out after {expect} s")):
            world.guard([text]).call("exec_shell", args)

    def run(surface: str, world: World) -> None:
        paths = world.manifests([text])
        flags = [] if asked is None else ["--timeout", str(asked)]
        code, _out, err = _main(["run", "--policy", paths[0], *flags, "--workspace",
                                 str(world.ws), "--", "sleep 30"])
        if asked is None:
            assert code == 124 and f"timed out after {expect} s" in err, err
        else:
            assert code == 2 and f"executor.max_timeout_s ({expect} s)" in err, err
    return {"guard": guard_only(guard), "run": run}


def docker(key: str, value: str, check: Callable[[dict[str, Any]], bool]) -> dict[str, Probe]:
    text = f"executor: {{kind: docker, docker: {{{key}: {value}}}}}"
    return executor_has(text, lambda ex: check(ex.container_config()))


def run_env(world: World) -> None:
    os.environ["CLAWGATE_PROBE_VAR"] = "seen"
    try:
        paths = world.manifests(["hooks: {safe_env_names: [PATH, CLAWGATE_PROBE_VAR]}"])
        code, out, _ = _main(["run", "--policy", paths[0], "--workspace", str(world.ws), "--",
                              "echo ${CLAWGATE_PROBE_VAR:-unset}"])
        assert (code, out) == (0, "seen\n")
        code, out, _ = _main(["run", "--workspace", str(world.ws), "--",
                              "echo ${CLAWGATE_PROBE_VAR:-unset}"])
        assert (code, out) == (0, "unset\n")
    finally:
        del os.environ["CLAWGATE_PROBE_VAR"]


def guard_env(world: World) -> None:
    os.environ["CLAWGATE_PROBE_VAR"] = "seen"
    try:
        guard = world.guard(["hooks: {safe_env_names: [PATH, CLAWGATE_PROBE_VAR]}"])
        said = guard.call("exec_shell", {"command": "echo ${CLAWGATE_PROBE_VAR:-unset}"})
        assert said["stdout"] == "seen\n"
        said = world.guard([]).call("exec_shell", {"command": "echo ${CLAWGATE_PROBE_VAR:-x}"})
        assert said["stdout"] == "x\n"
    finally:
        del os.environ["CLAWGATE_PROBE_VAR"]


# -- Guard-only probes ----------------------------------------------------------------------

CUSTOM = "tools: {{custom: {{greet: {{{extra}}}}}}}"


def custom_call(world: World, extra: str, args: dict[str, Any] | None = None,
                texts: tuple[str, ...] = ()) -> dict[str, Any]:
    guard = world.guard([*texts, CUSTOM.format(extra=extra)])
    return guard.call("greet", args or {})


def _custom_env(world: World) -> None:
    os.environ["CLAWGATE_PROBE_SECRET"] = "s3"
    try:
        said = custom_call(world, "command: 'echo $TOKEN', env: {TOKEN: CLAWGATE_PROBE_SECRET}")
        assert said["stdout"] == "s3\n"
    finally:
        del os.environ["CLAWGATE_PROBE_SECRET"]


def _workdir(world: World) -> None:
    (world.ws / "sub").mkdir(exist_ok=True)
    assert custom_call(world, "command: pwd, workdir: sub")["stdout"] == f"{world.ws}/sub\n"


def _spec(world: World, extra: str) -> dict[str, Any]:
    guard = world.guard([CUSTOM.format(extra=extra)])
    return next(s for s in guard.specs("openai") if s["function"]["name"] == "greet")


def _budget(world: World) -> None:
    guard = world.guard(["hooks: {budgets: {max_tool_iterations: 1}}"])
    guard.call("list_directory", {"path": "."})
    with pytest.raises(ToolError, match="budget of 1 tool calls"):
        guard.call("list_directory", {"path": "."})


def _result_bytes(world: World) -> None:
    big = "x" * 5000
    said = world.guard(["hooks: {budgets: {max_result_bytes: 1024}}"]).call(
        "exec_shell", {"command": f"echo {big}"})
    assert len(said["stdout"].encode()) <= 1200 < len(big)


def _proxy_bytes(surface: str, world: World) -> None:
    result = proxy_call(world, ["hooks: {budgets: {max_result_bytes: 1024}}"], "get", 1,
                        "y" * 5000)[0]
    assert len(result.content[0].text.encode()) <= 1200


def _limited(texts: list[str], tool: str, args: dict[str, Any], refused_at: int
             ) -> Callable[[World], None]:
    def check(world: World) -> None:
        guard = world.guard(texts)
        for _ in range(refused_at - 1):
            guard.call(tool, args)
        with pytest.raises(ToolError, match="rate"):
            guard.call(tool, args)
    return check


def _proxy_limited(texts: list[str]) -> Probe:
    def probe(surface: str, world: World) -> None:
        results = proxy_call(world, texts, "get", 3)
        assert [bool(r.is_error) for r in results][:2] == [False, False]
        assert results[2].is_error and "rate" in results[2].content[0].text
    return probe


def _trusted(surface: str, world: World) -> None:
    command = "sudo ls"  # ASK (CG-WRAP-002)
    if surface == "guard":
        guard = world.guard(["hooks: {trusted: true}"])
        assert guard.setup.trusted
        guard.setup.settle("exec_shell", {"command": command}, CallContext(),
                           guard.check("exec_shell", {"command": command}))
        untrusted = world.guard([])
        asked = untrusted.check("exec_shell", {"command": command})
        with pytest.raises(ToolError, match="needs approval"):
            untrusted.setup.settle("exec_shell", {"command": command}, CallContext(), asked)
        return
    if surface == "mcp-proxy":
        for texts, expect in ((["hooks: {trusted: true}"], "ask"), ([], "deny")):
            tools = _proxy(world, texts)
            call = mcp_call("srv__run", {"command": command}, agent_tool="run")
            decision = tools.gate.settle(call, tools.ctx, tools.gate.decide(call, tools.ctx))
            assert decision.outcome.label in ((expect, "allow") if expect == "ask" else
                                              (expect,)), decision
        return
    with_, _ = decide(surface, world, ["hooks: {trusted: true}"], command)
    without, _ = decide(surface, world, [], command)
    assert (with_, without) == ("allow", _norm(surface, "ask")), (surface, with_, without)


def _custom_timeout(world: World) -> None:
    with pytest.raises(ToolError, match=re.escape("timed out after 0.2 s")):
        custom_call(world, "command: 'sleep 30', timeout_s: 0.2")


def _search_endpoint(world: World) -> None:
    """web_search goes to the endpoint the manifest names (here one on 127.0.0.1, which the
    URL checks refuse before any connection); without one it answers with a note."""
    guard = world.guard(["web: {search_endpoint: 'http://127.0.0.1:9/search'}"])
    with pytest.raises(ToolError, match=re.escape("127.0.0.1")):
        guard.call("web_search", {"query": "clawgate"})
    said = world.guard([]).call("web_search", {"query": "clawgate"})
    assert "web.search_endpoint" in str(said)


def _unreachable_engine(surface: str, world: World) -> None:
    text = "executor: {kind: docker, docker: {base_url: 'tcp://127.0.0.1:9'}}"
    build = (lambda: world.guard([text])) if surface == "guard" else \
        (lambda: _run_executor(world, [text]))
    with pytest.raises(SandboxUnavailable, match=re.escape("127.0.0.1:9")):
        build()


def _workspace(surface: str, world: World) -> None:
    """The manifest's workspace is the workspace where none is given explicitly: a write
    there is inside it (allowed), elsewhere outside it (asked). ``policy run`` runs the
    command there."""
    if surface == "run":
        paths = world.manifests([f"workspace: {world.ws}"])
        here = os.getcwd()
        os.chdir(world.root)
        try:
            code, out, _err = _main(["run", "--policy", paths[0], "--", "pwd"])
        finally:
            os.chdir(here)
        assert (code, out) == (0, f"{world.ws}\n")
        return
    command = f"touch {FAR}/made.txt"
    got = tuple(_decide_no_workspace(surface, world, texts, command)
                for texts in ([f"workspace: {FAR}"], []))
    assert got == ("allow", _norm(surface, "ask")), (surface, got)


FAR = "/srv/clawgate-probe"  # outside /tmp (writes there are allowed anywhere); never created


def _decide_no_workspace(surface: str, world: World, texts: list[str], command: str) -> str:
    paths = world.manifests(texts)
    if surface == "check":
        flags = [a for p in paths for a in ("--policy", p)]
        _code, out, _err = _main(["check", "--json", *flags, "--cwd", str(world.ws), command])
        return str(json.loads(out)["outcome"])
    if surface == "guard":
        guard = Guard.from_files(*paths, approval_store=ApprovalStore(
            world.ws, state_dir=world.root / "approvals"))
        return guard.check("exec_shell", {"command": command}).outcome.label
    return decide(surface, world, texts, command, explicit_workspace=False)[0]


# -- the table ------------------------------------------------------------------------------

FULL_AUTONOMY = ["autonomy: full"]
PUBLIC_URL = "https://93.184.216.34/x"  # an address literal: decided without DNS; never fetched
RULE = "shell: {{rules: [{{id: probe-rule, command: [make, deploy], decision: {d}, why: " \
       "the probe says so, hint: use the pipeline{extra}}}]}}"

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
    "shell.rules[].id": everywhere(says("make deploy", [RULE.format(d="deny", extra="")],
                                        "probe-rule")),
    "shell.rules[].command": everywhere(changes(
        "make deploy", [RULE.format(d="deny", extra="")], [], ("deny", "allow"))),
    "shell.rules[].decision": everywhere(changes(
        "make deploy", [RULE.format(d="ask", extra="")], [RULE.format(d="deny", extra="")],
        ("ask", "deny"))),
    "shell.rules[].why": everywhere(says("make deploy", [RULE.format(d="deny", extra="")],
                                         "the probe says so")),
    "shell.rules[].hint": on(**{s: says("make deploy", [RULE.format(d="deny", extra="")],
                                        "use the pipeline") for s in SURFACES}),
    "shell.rules[].overrides": everywhere(changes(
        "sudo ls", ["shell: {rules: [{id: s, command: [sudo, ls], decision: allow, why: ok, "
                    "overrides: ask}]}"],
        ["shell: {rules: [{id: s, command: [sudo, ls], decision: allow, why: ok}]}"],
        ("allow", "ask"))),
    "shell.rules[].exact": everywhere(changes(
        "make deploy now", [RULE.format(d="deny", extra=", exact: true")],
        [RULE.format(d="deny", extra="")], ("allow", "deny"))),
    "shell.rules[].examples.match": everywhere(refuses(
        [RULE.format(d="deny", extra=", examples: {match: [ls]}")], "probe-rule")),
    "shell.rules[].examples.not_match": everywhere(refuses(
        [RULE.format(d="deny", extra=", examples: {not_match: [make deploy]}")],
        "probe-rule")),
    "executor.kind": executor_has("executor: {kind: bwrap}",
                                  lambda ex: type(ex).__name__ == "BwrapExecutor"),
    "executor.timeout_s": times_out("executor: {timeout_s: 0.2}", "0.2", asked=None),
    "executor.max_timeout_s": times_out("executor: {timeout_s: 0.1, max_timeout_s: 0.3}",
                                        "0.3", asked=30),
    "executor.max_concurrent": executor_has("executor: {max_concurrent: 3}",
                                            lambda ex: ex.limiter.capacity == 3),
    "executor.queue_timeout_s": executor_has("executor: {queue_timeout_s: 4}",
                                             lambda ex: ex.limits.queue_timeout_s == 4),
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


CASES = [(key, surface) for key in sorted(ROWS) for surface in SURFACES
         if surface in ROWS[key]]


@pytest.mark.parametrize(("key", "surface"), CASES)
def test_the_key_has_its_effect(key: str, surface: str, tmp_path: Path) -> None:
    ROWS[key][surface](surface, World(tmp_path))
