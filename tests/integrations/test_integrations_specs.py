"""`policy tools --format openai|anthropic|mcp`: the specs of exactly the tools a context may
call. Building the command tools needs `clawgate.executors` (their executor is never run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawgate.cli import main

pytest.importorskip("clawgate.executors")

POLICY = """\
version: 1
tools:
  deny: [exec_shell]
  agents:
    reviewer: {allow: [read_file, grep, lint]}
  custom:
    lint:
      description: Run the linter on one path.
      command: "ruff check {{path}}"
      parameters: {type: object, properties: {path: {type: string}}, required: [path]}
hooks:
  deny_tools: [message]
"""
LINT_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


@pytest.fixture
def policy(tmp_path: Path) -> str:
    path = tmp_path / "specs.yaml"
    path.write_text(POLICY)
    return str(path)


def specs(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[list[dict[str, object]], str]:
    assert main(["tools", *args]) == 0
    out = capsys.readouterr()
    value: list[dict[str, object]] = json.loads(out.out)
    return value, out.err


def test_openai(capsys: pytest.CaptureFixture[str], policy: str) -> None:
    got, _ = specs(capsys, "--policy", policy, "--format", "openai")
    names = [s["function"]["name"] for s in got]  # type: ignore[index]
    assert "exec_shell" not in names and "message" not in names
    assert {"read_file", "write_file", "web_fetch", "lint"} <= set(names)
    lint = next(s for s in got if s["function"]["name"] == "lint")  # type: ignore[index]
    assert lint == {"type": "function", "function": {
        "name": "lint", "description": "Run the linter on one path.", "parameters": LINT_SCHEMA}}


@pytest.mark.parametrize(("fmt", "schema_key"), [("anthropic", "input_schema"),
                                                 ("mcp", "inputSchema")])
def test_anthropic_and_mcp_for_an_agent(capsys: pytest.CaptureFixture[str], policy: str,
                                        fmt: str, schema_key: str) -> None:
    got, _ = specs(capsys, "--policy", policy, "--format", fmt, "--agent", "reviewer")
    assert [s["name"] for s in got] == ["grep", "lint", "read_file"]
    assert got[1] == {"name": "lint", "description": "Run the linter on one path.",
                      schema_key: LINT_SCHEMA}


def test_a_tool_without_a_schema_is_named_on_stderr(capsys: pytest.CaptureFixture[str],
                                                    policy: str) -> None:
    got, err = specs(capsys, "--policy", policy, "--format", "mcp", "--tool", "fs__read")
    assert "fs__read" not in [s["name"] for s in got]
    assert "fs__read: no schema here" in err
