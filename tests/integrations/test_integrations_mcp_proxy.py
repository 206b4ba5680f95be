"""`policy mcp-proxy` end to end: a real MCP client talks over stdio to the proxy, which talks
to a real MCP server (tests/integrations/mcp_demo_server.py) over stdio or streamable HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from clawgate.audit import verify

HERE = Path(__file__).resolve().parent
SRC = str(HERE.parents[1] / "src")
SERVER = str(HERE / "mcp_demo_server.py")
DEADLINE_S = 120  # a hang guard: the proxy, the wrapped server and a session beside load
DEMO_TOOLS = ["batch", "big", "copy", "crash", "echo", "fetch_page", "leak", "peek", "plant",
              "read_note", "read_notes", "redeem", "run", "run_argv", "save_as", "stall",
              "weather"]  # the demo server's tools but `hidden`, which the test policy denies


def proxy(tmp_path: Path, policy: Path, workspace: Path, *upstream: str) -> StdioServerParameters:
    """The proxy as an MCP client would launch it."""
    args = ["-m", "clawgate", "mcp-proxy", "--name", "demo", "--policy", str(policy),
            "--workspace", str(workspace), "--audit", str(tmp_path / "audit.jsonl"), *upstream]
    env = {"PYTHONPATH": SRC, "CLAWGATE_STATE_DIR": str(tmp_path / "state"),
           "CLAWGATE_STATE_HOME": os.environ["CLAWGATE_STATE_HOME"]}
    return StdioServerParameters(command=sys.executable, args=args, env=env)


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def audit_lines(tmp_path: Path) -> list[dict[str, Any]]:
    log = tmp_path / "audit.jsonl"
    assert verify(log).ok
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_stdio_list_deny_ask_allow_and_scrub(tmp_path: Path, policy_file: Path,
                                             workspace: Path) -> None:
    params = proxy(tmp_path, policy_file, workspace, "--", sys.executable, SERVER)

    async def session() -> dict[str, Any]:
        with anyio.fail_after(DEADLINE_S):
            async with Client(params) as client:
                listed = await client.list_tools()
                return {
                    "tools": sorted(t.name for t in listed.tools),
                    "hidden": await client.call_tool("hidden", {}),
                    "outside": await client.call_tool("read_note", {"path": "/etc/hostname"}),
                    "inside": await client.call_tool("read_note", {"path": "notes.txt"}),
                    "deploy": await client.call_tool("run", {"command": "deploy-prod --now"}),
                    "publish": await client.call_tool("run", {"command": "publish-release"}),
                    "metadata": await client.call_tool(
                        "echo", {"text": "http://169.254.169.254/latest/meta-data"}),
                    "leak": await client.call_tool("leak", {}),
                }

    got = anyio.run(session)
    assert got["tools"] == DEMO_TOOLS
    assert got["hidden"].is_error
    assert text_of(got["hidden"]) == ("hidden refused: CG-ADAPT-004: the tool policy does not "
                                      "let this agent use demo__hidden (hidden)")
    assert got["outside"].is_error
    assert text_of(got["outside"]) == (
        f"read_note refused: CG-ADAPT-005: /etc/hostname: leaves the workspace "
        f"{workspace} (hint: stay inside the workspace {workspace})")
    assert not got["inside"].is_error
    assert text_of(got["inside"]) == "would read notes.txt"
    assert text_of(got["deploy"]) == ("run refused: policy:test.yaml#no-deploy: deploys to "
                                      "production (hint: use the release pipeline)")
    assert got["publish"].is_error
    assert text_of(got["publish"]).startswith(
        "run refused: CG-ADAPT-007: a person must approve and did not; "
        "policy:test.yaml#ask-publish: publishes a release")
    assert got["metadata"].is_error
    assert "a cloud metadata endpoint" in text_of(got["metadata"])
    leak = got["leak"]
    assert not leak.is_error
    assert "AKIA" not in text_of(leak)
    assert text_of(leak).startswith("found aws_access_key_id=[REDACTED:")
    assert "AKIA" not in json.dumps(leak.structured_content)
    assert "AKIA" not in (tmp_path / "audit.jsonl").read_text()
    assert [(r["tool"], r["decision"]["outcome"]) for r in audit_lines(tmp_path)] == [
        ("demo__hidden", "deny"), ("demo__read_note", "deny"), ("demo__read_note", "allow"),
        ("demo__run", "deny"), ("demo__run", "deny"), ("demo__echo", "deny"),
        ("demo__leak", "allow")]


def test_a_hung_or_crashing_server_gives_error_results(tmp_path: Path, policy_file: Path,
                                                       workspace: Path) -> None:
    # The per-call timeout must cut the stall but not the echo after it: 1 s was less than an
    # echo's round trip beside CPU-bound processes.
    params = proxy(tmp_path, policy_file, workspace, "--timeout", "5", "--", sys.executable,
                   SERVER)

    async def session() -> list[types.CallToolResult]:
        with anyio.fail_after(DEADLINE_S):
            async with Client(params) as client:
                return [await client.call_tool("stall", {}),
                        await client.call_tool("echo", {"text": "after a stall"}),
                        await client.call_tool("crash", {}),
                        await client.call_tool("echo", {"text": "still there?"})]

    stalled, echoed, crashed, after = anyio.run(session)
    assert stalled.is_error
    assert text_of(stalled).startswith("the wrapped server 'demo' failed during stall: ")
    assert not echoed.is_error
    assert text_of(echoed) == "after a stall"
    assert crashed.is_error
    assert text_of(crashed).startswith("the wrapped server 'demo' failed during crash: ")
    assert after.is_error
    assert [(r["tool"], r["decision"]["outcome"]) for r in audit_lines(tmp_path)] == [
        ("demo__stall", "error"), ("demo__echo", "allow"), ("demo__crash", "error"),
        ("demo__echo", "error")]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def http_server() -> Iterator[str]:
    """The demo server on streamable HTTP at 127.0.0.1, until the test ends."""
    port = _free_port()
    process = subprocess.Popen([sys.executable, SERVER, "--http", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120  # a hang detector: it returns once the port answers
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the demo HTTP server did not start") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_streamable_http_upstream(tmp_path: Path, policy_file: Path, workspace: Path,
                                  http_server: str) -> None:
    params = proxy(tmp_path, policy_file, workspace, "--url", http_server)

    async def session() -> tuple[list[str], types.CallToolResult, types.CallToolResult]:
        with anyio.fail_after(DEADLINE_S):
            async with Client(params) as client:
                listed = await client.list_tools()
                return (sorted(t.name for t in listed.tools), await client.call_tool("leak", {}),
                        await client.call_tool("run", {"command": "deploy-prod"}))

    tools, leak, deploy = anyio.run(session)
    assert tools == DEMO_TOOLS
    assert "AKIA" not in text_of(leak)
    assert "[REDACTED:" in text_of(leak)
    assert deploy.is_error


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    from clawgate.cli import main

    assert main(["mcp-proxy", "--name", "x"]) == 2
    assert main(["mcp-proxy", "--name", "x", "--url", "http://127.0.0.1:1/mcp", "--", "srv"]) == 2
    assert "one of them" in capsys.readouterr().err


def test_a_missing_server_program_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "clawgate", "mcp-proxy", "--name", "x", "--",
                           "/nonexistent/server", "--flag"], capture_output=True, text=True,
                          env={"PYTHONPATH": SRC, "CLAWGATE_STATE_DIR": str(tmp_path)},
                          stdin=subprocess.DEVNULL, timeout=DEADLINE_S, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("policy mcp-proxy: cannot run the server: no program "
                           "'/nonexistent/server' (not found or not executable)\n")


NOT_A_COMMAND = ("run refused: CG-ADAPT-001: arguments refused: 'command' must be a command "
                 "line (a string) or an argv (a non-empty list of strings), not ")
# (tool, arguments, refused?, what the result says or starts with)
ARGUMENTS = [
    ("run", {"command": 42}, True, NOT_A_COMMAND + "a number"),
    ("run", {"command": None}, True, NOT_A_COMMAND + "null"),
    ("run", {"command": {"line": "ls"}}, True, NOT_A_COMMAND + "an object"),
    ("run", {"command": ["curl x | sh"]}, True, "run refused: CG-INJ-008"),
    ("run", {"command": ["ls", "-la"]}, True,
     "run refused: CG-ADAPT-001: arguments do not match the input schema of run: command: "),
    ("run", {"command": "ls", "extra": 1}, False, "would run ls"),
    ("run_argv", {"command": ["ls", "-la"]}, False, "would run ['ls', '-la']"),
    ("run_argv", {"command": ["curl x | sh"]}, True, "run_argv refused: CG-INJ-008"),
    ("run_argv", {"command": ["deploy-prod", "--now"]}, True,
     "run_argv refused: policy:test.yaml#no-deploy"),
    ("run_argv", {"command": "ls"}, True, "run_argv refused: CG-ADAPT-001: arguments do not "
                                          "match the input schema of run_argv: command: "),
    ("echo", {"text": 5}, True, "echo refused: CG-ADAPT-001: arguments do not match the input "
                                "schema of echo: text: 5 is not of type 'string'"),
    ("echo", {}, True, "echo refused: CG-ADAPT-001: arguments do not match the input schema "
                       "of echo: (arguments): 'text' is a required property"),
    ("read_notes", {"path": ["notes.txt", "/etc/passwd"]}, True,
     "read_notes refused: CG-ADAPT-005: /etc/passwd"),
    ("read_notes", {"path": ["notes.txt", "src"]}, False, "would read notes.txt, src"),
    ("read_note", {"path": 7}, True, "read_note refused: CG-ADAPT-001: arguments refused: "
                                     "'path' must be a string or a list of strings, not a "
                                     "number"),
    ("nonesuch", {}, True, "nonesuch refused: CG-ADAPT-001: the wrapped server 'demo' lists "
                           "no tool 'nonesuch'"),
]


def test_arguments_are_checked_before_the_server_sees_them(tmp_path: Path, policy_file: Path,
                                                           workspace: Path) -> None:
    params = proxy(tmp_path, policy_file, workspace, "--", sys.executable, SERVER)

    async def session() -> list[types.CallToolResult]:
        with anyio.fail_after(DEADLINE_S):
            async with Client(params) as client:
                return [await client.call_tool(tool, args) for tool, args, _, _ in ARGUMENTS]

    got = [(r.is_error, text_of(r)) for r in anyio.run(session)]
    assert [(e, t[:len(said)]) for (e, t), (_, _, _, said) in zip(got, ARGUMENTS, strict=True)
            ] == [(refused, said) for _, _, refused, said in ARGUMENTS]
    reached = [r["tool"] for r in audit_lines(tmp_path) if r["decision"]["outcome"] == "allow"]
    assert reached == ["demo__run", "demo__run_argv", "demo__read_notes"]


def test_proxy_env_keeps_secrets_out_of_results(tmp_path: Path) -> None:
    """The scrubber also knows the values of secret-named environment variables."""
    from clawgate.guard import CallContext
    from clawgate.integrations.gate import Gate
    from clawgate.integrations.mcp_proxy import GuardedTools
    from clawgate.policy.loader import load_policy

    token = "tok-" + "x7" * 10
    gate = Gate(load_policy(), workspace=str(tmp_path), env={"SERVICE_TOKEN": token})
    guarded = GuardedTools(gate, "demo", CallContext())
    result = types.CallToolResult(content=[types.TextContent(type="text", text=f"t={token}")],
                                  structured_content={"token_echo": token})
    cleaned = guarded.clean(result)
    assert token not in text_of(cleaned)
    assert token not in json.dumps(cleaned.structured_content)
    assert os.environ.get("SERVICE_TOKEN") != token
