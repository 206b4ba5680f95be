"""The surfaces a manifest reaches, driven for real, for ``test_policy_every_key.py``.

Each function loads the given manifests (over the embedded default) the way that surface
does and reports what it decided: ``policy check`` and ``policy run`` through ``main``, the
Guard through ``Guard.from_files``, the hooks through ``hooks.answer`` with the adapters' own
JSON, the MCP proxy through its gate (``build_gate``) and ``GuardedTools`` (the wrapped
server's side is a local coroutine: the proxy's decisions are what is under test).
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types

from clawgate.approval import ApprovalStore
from clawgate.cli import main
from clawgate.errors import ClawgateError, ToolError
from clawgate.guard import CallContext, Guard
from clawgate.integrations.arguments import mcp_call
from clawgate.integrations.claude_code import ClaudeCode
from clawgate.integrations.gemini import Gemini
from clawgate.integrations.hooks import HookOptions, answer
from clawgate.integrations.mcp_proxy.guarded import GuardedTools
from clawgate.integrations.mcp_proxy.server import ProxyOptions, build_gate

SURFACES = ("check", "run", "guard", "claude-code", "gemini", "mcp-proxy")
CODES = {0: "allow", 3: "ask", 4: "deny"}
# how each surface names the agent and provider (the hooks' defaults; the others set them)
AGENT = {"guard": "bot", "claude-code": "claude-code", "gemini": "gemini", "mcp-proxy": "bot"}
PROVIDER = {"guard": "openai", "claude-code": "anthropic", "gemini": "google",
            "mcp-proxy": "openai"}
# a tool that runs commands, as each surface names it in the policy
SHELL_TOOL = {"guard": "exec_shell", "claude-code": "exec_shell", "gemini": "exec_shell",
              "mcp-proxy": "srv__run"}
FETCH = {"claude-code": ("WebFetch", "url"), "gemini": ("web_fetch", "prompt")}


class World:
    """A workspace and manifests in a temporary directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ws = root / "ws"
        self.ws.mkdir(exist_ok=True)
        self.count = 0

    def manifests(self, texts: Sequence[str]) -> list[str]:
        paths = []
        for text in texts:
            self.count += 1
            path = self.root / f"m{self.count}.yaml"
            path.write_text("version: 1\n" + text if not text.startswith("version") else text)
            paths.append(str(path))
        return paths

    def guard(self, texts: Sequence[str], **kwargs: Any) -> Guard:
        kwargs.setdefault("approval_store",
                          ApprovalStore(self.ws, state_dir=self.root / "approvals"))
        return Guard.from_files(*self.manifests(texts), workspace=self.ws, **kwargs)


def _main(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def _hook(surface: str, world: World, texts: Sequence[str], tool: str,
          tool_input: dict[str, Any], explicit_workspace: bool = True,
          **options: Any) -> tuple[str, str]:
    adapter = ClaudeCode() if surface == "claude-code" else Gemini()
    event = "PreToolUse" if surface == "claude-code" else "BeforeTool"
    payload = {"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": str(world.ws),
               "hook_event_name": event, "tool_name": tool, "tool_input": tool_input,
               "permission_mode": "default", "tool_use_id": "t"}
    opts = HookOptions(tuple(world.manifests(texts)), options.get("agent") or AGENT[surface],
                       options.get("provider") or PROVIDER[surface],
                       workspace=str(world.ws) if explicit_workspace else None)
    said = answer(adapter, json.dumps(payload), opts)
    if surface == "claude-code":
        inner = said["hookSpecificOutput"]
        return inner["permissionDecision"], inner["permissionDecisionReason"]
    return said["decision"], said["reason"]


def _proxy(world: World, texts: Sequence[str], explicit_workspace: bool = True,
           **options: Any) -> GuardedTools:
    opts = ProxyOptions("srv", ("unused",), policies=tuple(world.manifests(texts)),
                        workspace=str(world.ws) if explicit_workspace else None,
                        agent=options.get("agent", AGENT["mcp-proxy"]),
                        provider=options.get("provider", PROVIDER["mcp-proxy"]))
    gate = build_gate(opts)
    ctx = CallContext(session="s", agent=opts.agent, provider=opts.provider)
    return GuardedTools(gate, "srv", ctx)


def decide(surface: str, world: World, texts: Sequence[str], command: str,
           explicit_workspace: bool = True) -> tuple[str, str]:
    """(outcome, reasons as text) for a shell command line; ("error", text) when the
    manifests do not load (a hook answers deny, naming the failure)."""
    paths = [a for p in world.manifests(texts) for a in ("--policy", p)]
    if surface == "check":
        code, out, err = _main(["check", "--json", *paths, "--cwd", str(world.ws), command])
        return (CODES[code], out) if code in CODES else ("error", err)
    if surface == "run":
        code, out, err = _main(["run", "--json", *paths, "--workspace", str(world.ws), "--",
                                command])
        if not out:  # refused before deciding: a usage error or a bad manifest
            return "error", err
        decision = json.loads(out)["decision"]
        return decision["outcome"], json.dumps(decision["reasons"])
    if surface == "guard":
        try:
            found = world.guard(texts).check("exec_shell", {"command": command})
        except ClawgateError as exc:
            return "error", str(exc)
        return found.outcome.label, json.dumps([r.__dict__ if hasattr(r, "__dict__") else
                                                 str(r) for r in found.reasons], default=str)
    if surface in ("claude-code", "gemini"):
        tool = "Bash" if surface == "claude-code" else "run_shell_command"
        return _hook(surface, world, texts, tool, {"command": command},
                     explicit_workspace=explicit_workspace)
    try:
        tools = _proxy(world, texts, explicit_workspace=explicit_workspace)
    except ClawgateError as exc:
        return "error", str(exc)
    found = tools.gate.decide(mcp_call("srv__run", {"command": command}, agent_tool="run"),
                              tools.ctx)
    return found.outcome.label, " ".join(f"{r.rule_id}: {r.message} {r.hint}"
                                         for r in found.reasons)


def visible(surface: str, world: World, texts: Sequence[str], tool: str | None = None,
            **ctx: Any) -> bool:
    """Whether the surface lets the agent use ``tool`` (default: its command tool)."""
    tool = tool or SHELL_TOOL[surface]
    if surface == "guard":
        call_ctx = CallContext(agent=ctx.get("agent", AGENT["guard"]),
                               provider=ctx.get("provider", PROVIDER["guard"]),
                               subagent_depth=ctx.get("depth", 0), group=ctx.get("group"))
        return tool in world.guard(texts).visible_tools(call_ctx)
    if surface in ("claude-code", "gemini"):
        assert tool == "exec_shell", tool
        name = "Bash" if surface == "claude-code" else "run_shell_command"
        _verdict, reason = _hook(surface, world, texts, name, {"command": "ls"}, **ctx)
        return "CG-ADAPT-004" not in reason
    proxy = _proxy(world, texts, **ctx)
    server_name = tool.partition("__")[2]
    shown = proxy.visible([types.Tool(name=server_name, input_schema={"type": "object"})])
    return bool(shown)


def fetch(surface: str, world: World, texts: Sequence[str], url: str) -> bool:
    """Whether a URL fetch is let through (the Guard is asked for its decision only)."""
    if surface == "guard":
        try:
            world.guard(texts).check("web_fetch", {"url": url})
        except ToolError:
            return False
        return True
    if surface in FETCH:
        tool, key = FETCH[surface]
        verdict, _ = _hook(surface, world, texts, tool, {key: url, "prompt": f"read {url}"})
        return verdict == "allow"
    tools = _proxy(world, texts)
    found = tools.gate.decide(mcp_call("srv__get", {"url": url}, agent_tool="get"), tools.ctx)
    return found.outcome.label == "allow"


def proxy_call(world: World, texts: Sequence[str], tool: str, times: int,
               text: str = "ok") -> list[types.CallToolResult]:
    """``times`` calls of ``tool`` through the proxy; the server answers ``text``."""
    proxy = _proxy(world, texts)

    async def forward(name: str, args: dict[str, Any]) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def calls() -> list[types.CallToolResult]:
        return [await proxy.call(tool, {}, forward) for _ in range(times)]

    return anyio.run(calls)
