"""The CLI clients of the service: ``policy hook claude-code|gemini --server URL`` and ``policy
mcp-proxy --server URL`` send an ASK to the service, wait for the person at the console, and
fail closed (a deny that says why) when the service cannot be reached or no token is set. Each
agent's token names the workspace its hook or proxy works in (the service judges a call there,
and refuses a request that names another one). Real
processes only: the hook and the proxy run as the agent would start them, the service under
uvicorn, the wrapped MCP server is tests/integrations/mcp_demo_server.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from servekit import ANSWER_S, POLICY, SRC, Server, free_port, in_process_token
from test_serve_clients import answer_next

from clawgate.approval.server import TOKEN_ENV

DEMO = str(Path(__file__).resolve().parents[1] / "integrations" / "mcp_demo_server.py")


def _policy(tmp_path: Path) -> Path:
    path = tmp_path / "local.yaml"  # the agent's own policy asks for deploys too
    path.write_text(POLICY)
    return path


def _env(tmp_path: Path, token: str | None) -> dict[str, str]:
    env = {"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin",
           "CLAWGATE_STATE_HOME": str(tmp_path.parent / f"{tmp_path.name}-state"),
           "CLAWGATE_NO_DAEMON": "1"}
    if token is not None:
        env[TOKEN_ENV] = token
    return env


def hook(tmp_path: Path, agent: str, servers: list[str], token: str | None,
         payload: dict[str, Any]) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    args = [sys.executable, "-m", "clawgate", "hook", agent, "--policy", str(_policy(tmp_path))]
    for url in servers:
        args += ["--server", url]
    done = subprocess.run(args, input=json.dumps(payload), capture_output=True, text=True,
                          env=_env(tmp_path, token), timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done


def claude(cwd: Path, command: str) -> dict[str, Any]:
    return {"session_id": "cc-1", "cwd": str(cwd), "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}}


def gemini(cwd: Path, command: str) -> dict[str, Any]:
    return {"session_id": "g-1", "cwd": str(cwd), "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command", "tool_input": {"command": command}}


def test_claude_code_hook_waits_for_the_console_and_allows(server: Server,
                                                            tmp_path: Path) -> None:
    token = in_process_token(server, "agent", "claude-hook", tmp_path)
    person = answer_next(server, "allow")
    said, done = hook(tmp_path, "claude-code", [server.url], token,
                      claude(tmp_path, "deploy-prod --now"))
    person.join(ANSWER_S)
    assert said["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert token not in done.stdout + done.stderr


def test_gemini_hook_gets_the_console_s_deny(server: Server, tmp_path: Path) -> None:
    token = in_process_token(server, "agent", "gemini-hook", tmp_path)
    person = answer_next(server, "deny")
    said, _ = hook(tmp_path, "gemini", [server.url], token, gemini(tmp_path, "deploy-prod x"))
    person.join(ANSWER_S)
    assert said["decision"] == "deny"
    assert "CG-ADAPT-007: a person must approve and did not: denied by approver-" \
        in said["reason"]


def test_a_hook_whose_service_is_down_denies_and_says_so(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    said, _ = hook(tmp_path, "claude-code", [dead], "cg_not_a_live_token",
                   claude(tmp_path, "deploy-prod --now"))
    shown = said["hookSpecificOutput"]
    assert shown["permissionDecision"] == "deny"
    assert "the approval service could not be reached" in shown["permissionDecisionReason"]
    assert dead in shown["permissionDecisionReason"]


def test_a_hook_with_no_token_denies_and_names_the_variable(server: Server,
                                                            tmp_path: Path) -> None:
    said, _ = hook(tmp_path, "gemini", [server.url], None, gemini(tmp_path, "deploy-prod x"))
    assert said["decision"] == "deny"
    assert f"no token for the approval service (set {TOKEN_ENV})" in said["reason"]


def test_a_hook_tries_the_next_replica(server: Server, tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    token = in_process_token(server, "agent", "hook-failover", tmp_path)
    person = answer_next(server, "allow")
    said, _ = hook(tmp_path, "claude-code", [dead, server.url], token,
                   claude(tmp_path, "deploy-prod --later"))
    person.join(ANSWER_S)
    assert said["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_a_rejected_token_is_a_deny_with_the_status(server: Server, tmp_path: Path) -> None:
    said, _ = hook(tmp_path, "claude-code", [server.url], "cg_forged_token",
                   claude(tmp_path, "deploy-prod --now"))
    reason = said["hookSpecificOutput"]["permissionDecisionReason"]
    assert said["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "HTTP 401" in reason and "cg_forged_token" not in reason


def _proxy(tmp_path: Path, servers: list[str], token: str | None) -> StdioServerParameters:
    args = ["-m", "clawgate", "mcp-proxy", "--name", "demo", "--policy", str(_policy(tmp_path)),
            "--workspace", str(tmp_path)]
    for url in servers:
        args += ["--server", url]
    return StdioServerParameters(command=sys.executable, args=[*args, "--", sys.executable, DEMO],
                                 env=_env(tmp_path, token))


def _call(params: StdioServerParameters, command: str) -> types.CallToolResult:
    async def session() -> types.CallToolResult:
        with anyio.fail_after(90):
            async with Client(params) as client:
                return await client.call_tool("run", {"command": command})

    return anyio.run(session)


def _text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


@pytest.mark.parametrize(("choice", "allowed"), [("allow", True), ("deny", False)])
def test_the_mcp_proxy_asks_the_console(server: Server, tmp_path: Path, choice: str,
                                        allowed: bool) -> None:
    token = in_process_token(server, "agent", f"proxy-{choice}", tmp_path)
    person = answer_next(server, choice)
    result = _call(_proxy(tmp_path, [server.url], token), "deploy-prod --now")
    person.join(ANSWER_S)
    if allowed:
        assert not result.is_error and _text(result) == "would run deploy-prod --now"
    else:
        assert result.is_error
        assert "a person must approve and did not: denied by approver-" in _text(result)


def test_the_mcp_proxy_denies_when_the_service_is_down(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    result = _call(_proxy(tmp_path, [dead], "cg_not_a_live_token"), "deploy-prod --now")
    assert result.is_error
    assert "the approval service could not be reached" in _text(result)
