"""MCP arguments are checked by what they mean, not by a fixed list of keys: demo-server tools
whose arguments have unusual names, formats, descriptions and nesting, through the real proxy
and server. And the same reading, unit by unit."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from clawgate.integrations.arguments import mcp_call
from clawgate.integrations.meaning import Meaning, meaning_of, value_meaning

HERE = Path(__file__).resolve().parent


def state_home() -> dict[str, str]:
    """Where the suite keeps the guard's keyed state (tests/conftest.py), passed on."""
    return {k: os.environ[k] for k in ("CLAWGATE_STATE_HOME",) if k in os.environ}

SRC = str(HERE.parents[1] / "src")
SERVER = str(HERE / "mcp_demo_server.py")
DEADLINE_S = 30

# (tool, arguments, the rule that refuses it or None when it reaches the server)
CALLS: list[tuple[str, dict[str, Any], str | None]] = [
    ("copy", {"source": "/etc/hostname", "destination": "copied.txt"}, "CG-ADAPT-005"),
    ("copy", {"source": "notes.txt", "destination": "../../escape.txt"}, "CG-ADAPT-005"),
    ("copy", {"source": "notes.txt", "destination": ".git/hooks/pre-commit"}, "CG-PROT-001"),
    ("copy", {"source": "notes.txt", "destination": "src/notes.bak"}, None),
    ("save_as", {"filePath": "~/.bashrc", "body": "x"}, "CG-ADAPT-005"),
    ("save_as", {"filePath": "  /etc/cron.d/x", "body": "x"}, "CG-ADAPT-005"),
    ("save_as", {"filePath": "docs/readme.md", "body": "see /etc/hosts"}, None),
    ("fetch_page", {"address": "  HTTP://127.0.0.1:9/admin"}, "CG-ADAPT-006"),
    ("fetch_page", {"address": "hTtP://169.254.169.254/latest"}, "CG-ADAPT-006"),
    ("batch", {"jobs": [{"where": "ok.txt"}, {"where": "/etc/hostname"}]}, "CG-ADAPT-005"),
    ("batch", {"jobs": [{"where": "AGENTS.md", "label": "x"}]}, "CG-PROT-001"),
    ("batch", {"jobs": [{"where": "out/a.txt"}]}, None),
    ("echo", {"text": " /etc/hostname"}, "CG-ADAPT-005"),
    ("echo", {"text": "../../../etc/hostname"}, "CG-ADAPT-005"),
    ("echo", {"text": " https://127.0.0.1/x"}, "CG-ADAPT-006"),
    ("echo", {"text": "hello world"}, None),
    ("peek", {"loc": ".git/config"}, None),  # declared read-only: reading git config is fine
    ("peek", {"loc": "/etc/hostname"}, "CG-ADAPT-005"),
]


def test_arguments_by_meaning_through_the_proxy(tmp_path: Path, workspace: Path) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text("version: 1\nrate_limit: {calls_per_minute: 1000, burst: 1000}\n")
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "clawgate", "mcp-proxy", "--name", "demo", "--policy", str(policy),
        "--workspace", str(workspace), "--", sys.executable, SERVER], env={
        "PYTHONPATH": SRC, "CLAWGATE_STATE_DIR": str(tmp_path / "state"), **state_home()})

    async def session() -> list[types.CallToolResult]:
        with anyio.fail_after(DEADLINE_S):
            async with Client(params) as client:
                return [await client.call_tool(tool, args) for tool, args, _ in CALLS]

    results = anyio.run(session)
    got = []
    for result in results:
        text = " ".join(b.text for b in result.content if isinstance(b, types.TextContent))
        rule = next((r for r in ("CG-ADAPT-005", "CG-ADAPT-006", "CG-PROT-001")
                     if r in text), "other") if result.is_error else None
        got.append(rule)
    assert got == [rule for _, _, rule in CALLS]


@pytest.mark.parametrize(("key", "schema", "meaning"), [
    ("paths", None, Meaning.PATH), ("filePath", None, Meaning.PATH),
    ("FILE-PATH", None, Meaning.PATH), ("workingDirectory", None, Meaning.PATH),
    ("outputDir", None, Meaning.PATH), ("baseUrl", None, Meaning.URL),
    ("webhook", None, Meaning.URL), ("shellCommand", None, Meaning.COMMAND),
    ("include", None, Meaning.GLOB), ("q", {"type": "string", "format": "uri"}, Meaning.URL),
    ("q", {"type": "string", "description": "Absolute path to the file"}, Meaning.PATH),
    ("q", {"type": "string", "description": "The shell command to run"}, Meaning.COMMAND),
    ("path", {"type": "integer"}, Meaning.NONE),
    ("q", {"anyOf": [{"type": "string", "format": "uri"}, {"type": "null"}]}, Meaning.URL),
    ("body", {"type": "string", "description": "File contents to write"}, Meaning.NONE),
    ("transcript", None, Meaning.NONE), ("description", None, Meaning.NONE),
    ("pattern", {"type": "string", "description": "A regular expression to search for"},
     Meaning.NONE),
    ("pattern", {"type": "string", "format": "regex"}, Meaning.NONE),
    ("pattern", {"type": "string", "description": "Glob pattern of files"}, Meaning.GLOB),
])
def test_meaning_of(key: str, schema: dict[str, Any] | None, meaning: Meaning) -> None:
    assert meaning_of(key, schema) is meaning


@pytest.mark.parametrize(("value", "meaning"), [
    ("/etc/passwd", Meaning.PATH), ("~/.ssh/id_rsa", Meaning.PATH), ("a/../../b", Meaning.PATH),
    (" HTTPS://x.example/", Meaning.URL), ("file:///etc", Meaning.URL),
    ("hello world", Meaning.NONE), ("src/main.py", Meaning.NONE), ("", Meaning.NONE),
    ("line one\n/etc/passwd", Meaning.NONE),
    (".git/hooks/pre-commit", Meaning.PATH), ("CLAUDE.md", Meaning.PATH),
    ("sub/.vscode/tasks.json", Meaning.PATH), ("update CLAUDE.md today", Meaning.NONE),
    ("docs/guide.md", Meaning.NONE),
])
def test_value_meaning(value: str, meaning: Meaning) -> None:
    assert value_meaning(value) is meaning


def test_nested_schema_refs_are_followed() -> None:
    schema = {"type": "object", "$defs": {"Job": {"type": "object", "properties": {
        "q": {"type": "string", "description": "Path of the file to write"}}}},
        "properties": {"jobs": {"type": "array", "items": {"$ref": "#/$defs/Job"}}}}
    call = mcp_call("s__t", {"jobs": [{"q": "x.txt"}, {"q": "y.txt"}]}, schema=schema)
    assert call.reads == ("x.txt", "y.txt")
    assert call.written() == ("x.txt", "y.txt")
    assert mcp_call("s__t", {"jobs": [{"q": "x.txt"}]}, schema=schema,
                    read_only=True).written() == ()
