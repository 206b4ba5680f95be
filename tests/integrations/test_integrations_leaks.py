"""Secrets planted in every place a text can reach the model through the MCP proxy: none comes
back raw, and the result as a whole stays under the cap. A real MCP client talks to the real
proxy, which runs the real demo server (tests/integrations/mcp_demo_server.py); the secrets
are made at run time and handed to the server in its environment."""

from __future__ import annotations

import json
import os
import secrets
import string
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from clawgate.integrations.mcp_proxy.cleaning import text_bytes

HERE = Path(__file__).resolve().parent


def state_home() -> dict[str, str]:
    """Where the suite keeps the guard's keyed state (tests/conftest.py), passed on."""
    return {k: os.environ[k] for k in ("CLAWGATE_STATE_HOME",) if k in os.environ}

SRC = str(HERE.parents[1] / "src")
SERVER = str(HERE / "mcp_demo_server.py")
DEADLINE_S = 60
CAP = 65536

# where the demo server's `plant` tool puts the secret
PLACES = ("text", "text_error", "resource_text", "resource_uri", "blob_uri", "link_uri",
          "link_name", "link_title", "link_description", "block_meta", "image_meta",
          "tail_of_huge", "many_blocks", "structured", "structured_key", "structured_list",
          "result_meta", "tool_error", "rpc_error")


def made_secrets() -> dict[str, str]:
    """A GitHub-shaped token (found by its shape) and a shapeless value kept in a
    secret-named environment variable (found because the proxy knows its environment)."""
    alphabet = string.ascii_letters + string.digits
    return {"shaped": "ghp_" + "".join(secrets.choice(alphabet) for _ in range(36)),
            "env": "v" + secrets.token_hex(16)}


def proxy(tmp_path: Path, workspace: Path, planted: dict[str, str]) -> StdioServerParameters:
    policy = tmp_path / "web.yaml"
    policy.write_text("version: 1\nrate_limit: {calls_per_minute: 1000, burst: 1000}\n")
    args = ["-m", "clawgate", "mcp-proxy", "--name", "demo", "--policy", str(policy),
            "--workspace", str(workspace), "--audit", str(tmp_path / "audit.jsonl"), "--",
            sys.executable, SERVER]
    env = {"PYTHONPATH": SRC, "CLAWGATE_STATE_DIR": str(tmp_path / "state"),
           "DEMO_PLANT": planted["shaped"], "DEMO_API_TOKEN": planted["env"],
           **state_home()}
    return StdioServerParameters(command=sys.executable, args=args, env=env)


def calls(secret: str, which: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(label, tool, arguments): the places a secret is planted for one kind of secret."""
    planted = [(f"plant:{where}", "plant", {"where": where, "which": which})
               for where in PLACES]
    return [*planted,
            ("pydantic error echoing input", "redeem", {"code": secret}),
            ("schema error echoing input", "echo", {"text": [secret]}),
            ("path refusal echoing the path", "read_note", {"path": f"/srv/{secret}"}),
            ("URL refusal echoing the URL", "fetch_page",
             {"address": f"http://a.example/'{secret}"}),
            ("command echoed by the server", "run", {"command": f"deploy --key {secret}"})]


def test_no_planted_secret_comes_back(tmp_path: Path, workspace: Path) -> None:
    planted = made_secrets()
    table = [(which, *row) for which, secret in planted.items()
             for row in calls(secret, which)]

    async def session() -> tuple[list[types.Tool], list[types.CallToolResult]]:
        with anyio.fail_after(DEADLINE_S):
            async with Client(proxy(tmp_path, workspace, planted)) as client:
                listed = await client.list_tools()
                return listed.tools, [await client.call_tool(tool, args)
                                      for _, _, tool, args in table]

    tools, results = anyio.run(session)
    leaks = [(which, label) for (which, label, _, _), result in zip(table, results, strict=True)
             if planted[which] in result.model_dump_json(by_alias=True)]
    assert leaks == []
    unmarked = [(which, label) for (which, label, _, _), result in zip(table, results,
                                                                       strict=True)
                if "[REDACTED:" not in result.model_dump_json(by_alias=True)]
    assert unmarked == []  # each place really held the secret, and it was redacted there
    listing = json.dumps([t.model_dump(by_alias=True, mode="json") for t in tools])
    assert [w for w, s in planted.items() if s in listing] == []
    weather = next(t for t in tools if t.name == "weather")
    assert "[REDACTED:" in str(weather.description)
    assert "[REDACTED:" in json.dumps(weather.input_schema)
    audit = (tmp_path / "audit.jsonl").read_text()
    assert [w for w, s in planted.items() if s in audit] == []


def test_the_whole_result_is_capped(tmp_path: Path, workspace: Path) -> None:
    """500 blocks of 16 KiB (8 MB; each under the old per-string cap) come back as at most
    64 KiB in all: the head, a marker, the tail."""
    async def session() -> tuple[types.CallToolResult, types.CallToolResult]:
        with anyio.fail_after(DEADLINE_S):
            async with Client(proxy(tmp_path, workspace, made_secrets())) as client:
                return (await client.call_tool("big", {"count": 500, "size": CAP // 4}),
                        await client.call_tool("big", {"count": 3, "size": 100}))

    huge, small = anyio.run(session)
    texts = [b.text for b in huge.content if isinstance(b, types.TextContent)]
    total = text_bytes([b.model_dump(by_alias=True, mode="json") for b in huge.content])
    assert total <= CAP
    assert texts[0].startswith("<0>")
    assert texts[-1].endswith("<499>")
    markers = [t for t in texts if t.startswith("[clawgate: ")]
    assert len(markers) == 1
    assert "of 500 content blocks" in markers[0]
    assert [b.text for b in small.content if isinstance(b, types.TextContent)] == [
        f"<{i}>" + "y" * 94 + f"<{i}>" for i in range(3)]
