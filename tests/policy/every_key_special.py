"""The probes of ``test_policy_every_key.py`` that need more than a decision: executors,
environments, custom tools, budgets, rate limits, trust, the search endpoint, the workspace."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from typing import Any

import pytest
from every_key import World, _main, _proxy, decide, proxy_call
from every_key_probes import Probe, _norm, guard_only

from clawgate.approval import ApprovalStore
from clawgate.cli import run as run_module
from clawgate.errors import SandboxUnavailable, ToolError
from clawgate.executors import executor_from_settings
from clawgate.guard import CallContext, Guard
from clawgate.integrations.arguments import mcp_call
from clawgate.policy.loader import load_policy

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
        # compared, not printed: echoing a secret is itself asked about (CG-SEC-003)
        said = custom_call(world, "command: 'test \"$TOKEN\" = s3 && echo same', "
                                  "env: {TOKEN: CLAWGATE_PROBE_SECRET}")
        assert said["stdout"] == "same\n"
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
