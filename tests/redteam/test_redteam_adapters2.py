"""Red team, the adapters, part two: the installed hook where `policy` is not on the agent's
PATH (it exited 127, which Claude Code and Gemini CLI read as "not blocked"), a person's deny at
the console whose note never reached the agent, a local allow-always file that answered for a
Guard whose approver is the service, and an MCP server that sends a 50 MB result or a
tool list without end.

Real parts only: the hook command is read from the settings file `policy hook install --write`
wrote and run with `sh -c` as the agents run it, with a PATH that holds no `policy`; the
approval service is `policy serve` under uvicorn on 127.0.0.1 (SQLite) and a person answers
through its API; the proxy is the real `policy mcp-proxy` over stdio in front of a real MCP
server (tests/integrations/mcp_demo_server.py and a flooding server written here).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import site
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from clawgate.approval import ApprovalRequest, ApprovalStore, ServerApprover
from clawgate.approval.server import TOKEN_ENV
from clawgate.errors import ToolError
from clawgate.guard import Guard

ROOT = Path(__file__).resolve().parents[2]
SRC = str(ROOT / "src")
DEMO = str(ROOT / "tests" / "integrations" / "mcp_demo_server.py")
CLIENT_PATH = "/usr/bin:/bin"  # an agent's PATH without clawgate's environment on it
EVENTS = {"claude-code": ("PreToolUse", "Bash", ".claude"),
          "gemini": ("BeforeTool", "run_shell_command", ".gemini")}
ASKING = """\
version: 1
shell:
  rules:
    - id: touch-asks
      command: [touch]
      decision: ask
      why: a person decides what is created here
      examples: {match: [touch x], not_match: [ls]}
"""
NOTE = "no downloads today"


# -- item 13: the installed hook, run as the agent runs it ----------------------------------

def payload(agent: str, cwd: Path, command: str) -> str:
    event, tool, _ = EVENTS[agent]
    return json.dumps({"session_id": "s", "cwd": str(cwd), "hook_event_name": event,
                       "tool_name": tool, "tool_input": {"command": command}})


def install(python: str, agent: str, project: Path, *extra: str,
            pythonpath: str = SRC) -> dict[str, Any]:
    """`python -m clawgate hook install AGENT --write`; the hook entry it wrote."""
    done = subprocess.run([python, "-m", "clawgate", "hook", "install", agent, "--write",
                           "--project", str(project), *extra],
                          env={**os.environ, "PYTHONPATH": pythonpath}, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-800:]
    settings = json.loads((project / EVENTS[agent][2] / "settings.json").read_text())
    hook: dict[str, Any] = settings["hooks"][EVENTS[agent][0]][0]["hooks"][0]
    return hook


def client_env(tmp_path: Path, pythonpath: str = SRC) -> dict[str, str]:
    return {"PATH": CLIENT_PATH, "HOME": str(tmp_path), "PYTHONPATH": pythonpath,
            "CLAWGATE_STATE_HOME": str(tmp_path.parent / f"{tmp_path.name}-state"),
            "CLAWGATE_NO_DAEMON": "1"}  # no resident decider left behind by a test


def as_client(command: str, stdin: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The hook command run as Claude Code and Gemini CLI run it: ``sh -c``."""
    return subprocess.run(["sh", "-c", command], input=stdin, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def decision(agent: str, stdout: str) -> tuple[str, str]:
    said = json.loads(stdout)
    if agent == "claude-code":
        shown = said["hookSpecificOutput"]
        return shown["permissionDecision"], shown["permissionDecisionReason"]
    return said["decision"], said["reason"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_the_installed_hook_decides_without_policy_on_path(agent: str, project: Path,
                                                           tmp_path: Path) -> None:
    assert shutil.which("policy", path=CLIENT_PATH) is None
    hook = install(sys.executable, agent, project)
    env = client_env(tmp_path)
    said = {line: as_client(hook["command"], payload(agent, project, line), env)
            for line in ("rm -rf /", "ls")}
    assert [done.returncode for done in said.values()] == [0, 0], said["ls"].stderr[-400:]
    assert decision(agent, said["rm -rf /"].stdout)[0] == "deny"
    assert decision(agent, said["ls"].stdout)[0] == "allow"


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_the_installed_hook_blocks_when_its_python_is_gone(agent: str, project: Path,
                                                          tmp_path: Path) -> None:
    """The environment clawgate was installed from is removed (a venv deleted): the hook
    cannot start, and the call is blocked (exit 2, the reason on stderr)."""
    env_dir = tmp_path / "venv" / "bin"
    env_dir.mkdir(parents=True)
    python = env_dir / "python"
    python.symlink_to(sys.executable)
    paths = os.pathsep.join([SRC, *site.getsitepackages()])
    hook = install(str(python), agent, project, pythonpath=paths)
    assert str(python) in hook["command"]
    shutil.rmtree(tmp_path / "venv")
    done = as_client(hook["command"], payload(agent, project, "rm -rf ./src"),
                     client_env(tmp_path, paths))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "the hook failed (exit 127) and gave no decision; the call is blocked" \
        in done.stderr


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_the_installed_hook_blocks_when_clawgate_cannot_be_imported(agent: str, project: Path,
                                                                   tmp_path: Path) -> None:
    broken = tmp_path / "broken" / "clawgate"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('a half-removed install')\n")
    hook = install(sys.executable, agent, project)
    done = as_client(hook["command"], payload(agent, project, "rm -rf ./src"),
                     client_env(tmp_path, f"{broken.parent}{os.pathsep}{SRC}"))
    assert done.returncode == 2
    assert "the hook failed (exit 1) and gave no decision; the call is blocked" in done.stderr


@pytest.mark.parametrize(("agent", "unit"), [("claude-code", 1.0), ("gemini", 0.001)])
def test_the_hook_answers_deny_at_its_deadline_before_the_agent_s_timeout(
        agent: str, unit: float, project: Path, tmp_path: Path) -> None:
    """The agent kills a hook at its settings' timeout and lets the call go on; so the hook's
    own deadline comes first: an input that never ends (stdin left open) is a deny at it."""
    hook = install(sys.executable, agent, project, "--deadline", "3")
    assert hook["timeout"] * unit > 3
    process = subprocess.Popen(["sh", "-c", hook["command"]], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=client_env(tmp_path))
    assert process.stdin is not None
    process.stdin.write(payload(agent, project, "ls")[:-1])  # never finished, never closed
    process.stdin.flush()
    try:
        process.wait(timeout=120)  # a hang guard only; stdin stays open meanwhile
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        pytest.fail("the hook outlived its deadline")
    finally:
        process.stdin.close()
    assert process.stdout is not None and process.stderr is not None
    out, err = process.stdout.read(), process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    assert process.returncode == 0, err[-400:]
    verdict, reason = decision(agent, out)
    assert verdict == "deny"
    assert "clawgate did not decide within 3 s (the hook's deadline); failing closed" in reason


def test_a_default_install_waits_less_than_the_agent_s_timeout(project: Path) -> None:
    from clawgate.integrations.hooks import HOOK_DEADLINE_S, approval_wait

    for agent, unit in (("claude-code", 1.0), ("gemini", 0.001)):
        hook = install(sys.executable, agent, project)
        assert "--deadline" not in hook["command"]
        assert approval_wait(HOOK_DEADLINE_S) < HOOK_DEADLINE_S < hook["timeout"] * unit


# -- item 15: a person's deny, with its note, reaches the agent ------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Service:
    url: str
    database: str


def token(service: Service, role: str, agent: str, workspace: Path | None = None) -> str:
    """A token of ``role``; an agent's names the workspace its hook or proxy works in (the
    service judges every call of the agent there)."""
    from clawgate.serve import tokens
    from clawgate.serve.db import connect

    engine = connect(service.database)
    try:
        return tokens.create(engine, role, agent, None if workspace is None else str(workspace))
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """`policy serve` on 127.0.0.1 over SQLite, asking for every `touch`."""
    tmp = tmp_path_factory.mktemp("serve")
    (tmp / "ws").mkdir()
    policy = tmp / "policy.yaml"
    policy.write_text(ASKING)
    port, database = free_port(), f"sqlite:///{tmp / 'serve.db'}"
    process = subprocess.Popen(
        [sys.executable, "-m", "clawgate", "serve", "--policy", str(policy), "--database",
         database, "--port", str(port), "--workspace", str(tmp / "ws")],
        env={**os.environ, "PYTHONPATH": SRC,
             "CLAWGATE_STATE_HOME": str(tmp.parent / f"{tmp.name}-state")})
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if process.poll() is not None:
                pytest.fail(f"policy serve exited with {process.returncode}")
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            pytest.fail("policy serve did not answer /healthz")
        yield Service(url, database)
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def person(service: Service, agent: str, answer: str, scope: str = "once",
           note: str | None = NOTE) -> Iterator[None]:
    """alice at the console, while the block runs: answers the first request of ``agent``
    that shows up (and stops looking when the block ends)."""
    alice = token(service, "approver", "alice")
    stop = threading.Event()

    def answer_it() -> None:
        with httpx.Client(base_url=service.url, timeout=30,
                          headers={"Authorization": f"Bearer {alice}"}) as client:
            while not stop.wait(0.05):
                mine = [r for r in client.get("/v1/approvals").json()["pending"]
                        if r["agent"] == agent]
                if mine:
                    client.post(f"/v1/approvals/{mine[0]['id']}",
                                json={"answer": answer, "scope": scope, "note": note})
                    return

    thread = threading.Thread(target=answer_it, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(60)


def guarded(service: Service, tmp_path: Path, agent: str) -> tuple[Guard, ApprovalStore, Path]:
    """A Guard on the host whose approver is the service, with a local grant file beside."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(ASKING)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    store = ApprovalStore(workspace, state_dir=tmp_path / "grants")
    approver = ServerApprover(service.url, token(service, "agent", agent), timeout_s=90)
    guard = Guard.from_files(policy, workspace=workspace, approver=approver,
                             approval_store=store)
    return guard, store, workspace


def test_the_guard_says_who_denied_and_why(service: Service, tmp_path: Path) -> None:
    guard, _, workspace = guarded(service, tmp_path, "guard-note")
    with person(service, "guard-note", "deny"), pytest.raises(ToolError) as refused:
        guard.call("exec_shell", {"command": "touch made.txt"})
    assert f"denied by alice: {NOTE}" in refused.value.message
    assert not (workspace / "made.txt").exists()


def test_a_local_grant_does_not_answer_for_the_service(service: Service,
                                                       tmp_path: Path) -> None:
    """A valid allow-always in the local file (signed with the real key) for exactly this
    call: the service is asked all the same, and its person's deny stands."""
    guard, store, workspace = guarded(service, tmp_path, "guard-grant")
    call = {"command": "touch made.txt"}
    store.remember(ApprovalRequest("exec_shell", call, summary="touch made.txt"))
    assert store.allows(ApprovalRequest("exec_shell", call))
    with person(service, "guard-grant", "deny"), pytest.raises(ToolError) as refused:
        guard.call("exec_shell", call)
    assert f"denied by alice: {NOTE}" in refused.value.message
    assert not (workspace / "made.txt").exists()


def test_the_service_s_allow_always_is_not_written_locally(service: Service,
                                                           tmp_path: Path) -> None:
    guard, store, workspace = guarded(service, tmp_path, "guard-always")
    with person(service, "guard-always", "allow", scope="always", note=None):
        guard.call("exec_shell", {"command": "touch made.txt"})
    assert (workspace / "made.txt").exists()
    assert store.list() == []


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_the_hooks_say_who_denied_and_why(agent: str, service: Service,
                                          tmp_path: Path) -> None:
    name = f"hook-{agent}"
    policy = tmp_path / "policy.yaml"
    policy.write_text(ASKING)
    with person(service, name, "deny"):
        done = subprocess.run(
            [sys.executable, "-m", "clawgate", "hook", agent, "--policy", str(policy),
             "--server", service.url], input=payload(agent, tmp_path, "touch made.txt"),
            env={**client_env(tmp_path), TOKEN_ENV: token(service, "agent", name, tmp_path)},
            capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-400:]
    verdict, reason = decision(agent, done.stdout)
    assert verdict == "deny"
    assert f"denied by alice: {NOTE}" in reason


def test_the_mcp_proxy_says_who_denied_and_why(service: Service, tmp_path: Path) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    policy = tmp_path / "policy.yaml"
    policy.write_text(ASKING)
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "clawgate", "mcp-proxy", "--name", "demo", "--policy", str(policy),
        "--workspace", str(tmp_path), "--server", service.url, "--", sys.executable, DEMO],
        env={**client_env(tmp_path), TOKEN_ENV: token(service, "agent", "proxy-note",
                                                          tmp_path)})

    async def session() -> str:
        with anyio.fail_after(120):
            async with Client(params) as client:
                result = await client.call_tool("run", {"command": "touch made.txt"})
        assert result.is_error
        return "\n".join(getattr(c, "text", "") for c in result.content)

    with person(service, "proxy-note", "deny"):
        said = anyio.run(session)
    assert f"denied by alice: {NOTE}" in said


# -- item 20: what a wrapped MCP server may send the proxy ----------------------------------

FLOOD = '''\
"""An MCP server over stdio written by hand, as a server in another language would answer
(the result first, the id last, as the TypeScript SDK writes it): MODE says how it floods."""
import json
import sys

MODE = sys.argv[1]


def tool(i, extra=""):
    return {"name": f"t{i}", "description": "a tool" + extra, "inputSchema": {"type": "object"}}


def answer(method, params):
    if method == "initialize":
        return {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": "flood", "version": "1"}}
    if method == "tools/list" and MODE == "many":
        return {"tools": [tool(i) for i in range(5000)]}
    if method == "tools/list" and MODE == "endless":
        page = int((params or {}).get("cursor") or 0)
        return {"tools": [tool(page * 10 + i) for i in range(10)], "nextCursor": str(page + 1)}
    if method == "tools/list" and MODE == "huge":
        return {"tools": [tool(0), tool(1, "x" * 1_000_000)]}
    if method == "tools/list":
        return {"tools": [tool(0)]}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": "z" * 50_000_000}]}
    return None


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue
    result = answer(message["method"], message.get("params"))
    said = {"result": result} if result is not None else {
        "error": {"code": -32601, "message": "no such method"}}
    sys.stdout.write(json.dumps({**said, "jsonrpc": "2.0", "id": message["id"]}) + "\\n")
    sys.stdout.flush()
'''


def proxied(tmp_path: Path, *server: str) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=[
        "-m", "clawgate", "mcp-proxy", "--name", "up", "--workspace", str(tmp_path), "--",
        *server], env=client_env(tmp_path))


def flood(tmp_path: Path, mode: str) -> Any:
    script = tmp_path / "flood_server.py"
    script.write_text(FLOOD)
    return proxied(tmp_path, sys.executable, str(script), mode)


def talk(params: Any, tool: str, args: dict[str, Any]) -> tuple[str, str]:
    """(what tools/list said, what the call said) through the real proxy; errors marked."""
    import anyio
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    async def session() -> tuple[str, str]:
        with anyio.fail_after(600):  # a hang guard only
            async with Client(params) as client:
                try:
                    listed = f"{len((await client.list_tools()).tools)} tools"
                except MCPError as exc:
                    listed = f"error: {exc}"
                result = await client.call_tool(tool, args)
        said = "\n".join(getattr(c, "text", "") for c in result.content)
        return listed, f"error: {said}" if result.is_error else f"{len(said)} characters"

    return anyio.run(session)


MESSAGE_BOUND = "the bound is 8388608 bytes (hooks.budgets.max_message_bytes)"


def test_a_50_mb_result_is_refused_with_the_bound(tmp_path: Path) -> None:
    """The MCP SDK's own reader joins every chunk to what came before: 50 MB took about a
    minute and then went through. Now it is refused as it is read, naming the bound."""
    listed, said = talk(proxied(tmp_path, sys.executable, DEMO), "big",
                        {"count": 1, "size": 50_000_000})
    assert listed == "18 tools"
    assert said.startswith("error: the wrapped server 'up' failed during big: ")
    assert MESSAGE_BOUND in said


def test_a_50_mb_result_whose_id_comes_last_is_refused_with_the_bound(tmp_path: Path) -> None:
    listed, said = talk(flood(tmp_path, "one"), "t0", {})
    assert listed == "1 tools"
    assert said.startswith("error: the wrapped server 'up' failed during t0: ")
    assert "a message of 50000" in said and MESSAGE_BOUND in said


@pytest.mark.parametrize(("mode", "bound"), [
    ("many", "it lists more than 500 tools; the bound is 500 (hooks.budgets.max_listed_tools)"),
    ("endless", "it lists more than 500 tools; the bound is 500 "
                "(hooks.budgets.max_listed_tools)"),
    ("huge", "its tool 't1' is defined in 1000"),
])
def test_a_tool_list_over_the_bounds_is_an_error_naming_them(mode: str, bound: str,
                                                             tmp_path: Path) -> None:
    listed, said = talk(flood(tmp_path, mode), "t0", {})
    for text in (listed, said):
        assert text.startswith("error: ") and "failed to list its tools: " in text, text[:300]
        assert bound in text
    if mode == "huge":
        assert "the bound is 65536 bytes (hooks.budgets.max_tool_bytes)" in listed


@pytest.fixture
def demo_over_http() -> Iterator[str]:
    """The demo server on streamable HTTP at 127.0.0.1, until the test ends."""
    port = free_port()
    process = subprocess.Popen([sys.executable, DEMO, "--http", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(2400):  # a hang guard: it goes on once the port answers
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None:
                    pytest.fail("the demo HTTP server did not start")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_50_mb_result_over_http_is_refused_with_the_bound(tmp_path: Path,
                                                            demo_over_http: str) -> None:
    from mcp import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "clawgate", "mcp-proxy", "--name", "up", "--workspace", str(tmp_path), "--url",
        demo_over_http], env=client_env(tmp_path))
    listed, said = talk(params, "big", {"count": 1, "size": 50_000_000})
    assert listed == "18 tools"
    assert said.startswith("error: the wrapped server 'up' failed during big: ")
    assert MESSAGE_BOUND in said


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_installing_again_replaces_the_bare_entry_an_earlier_install_wrote(
        agent: str, project: Path, tmp_path: Path) -> None:
    event, _, folder = EVENTS[agent]
    settings = project / folder / "settings.json"
    settings.parent.mkdir()
    bare = {"type": "command", "command": f"policy hook {agent}"}
    lint = {"type": "command", "command": "./lint.sh"}
    settings.write_text(json.dumps({"hooks": {event: [{"matcher": "Bash", "hooks": [lint]},
                                                      {"matcher": "*", "hooks": [bare]}]}}))
    install(sys.executable, agent, project)
    groups = json.loads(settings.read_text())["hooks"][event]
    assert [len(g["hooks"]) for g in groups] == [1, 1]
    assert groups[0]["hooks"] == [lint]
    done = as_client(groups[1]["hooks"][0]["command"], payload(agent, project, "rm -rf /"),
                     client_env(tmp_path))
    assert done.returncode == 0, done.stderr[-400:]
    assert decision(agent, done.stdout)[0] == "deny"


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_the_hook_program_itself_blocks_on_a_failure_of_its_own(agent: str,
                                                                tmp_path: Path) -> None:
    """Without the installed wrapper too: a hook that cannot even read its input (stdin
    closed) exits 2 with the reason, never 1 (which both agents read as "go on")."""
    done = subprocess.run(["sh", "-c", 'exec "$0" -m clawgate hook "$1" <&-', sys.executable,
                           agent], env=client_env(tmp_path), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 2
    assert "clawgate: the hook failed (AttributeError: " in done.stderr
    assert "the call is blocked" in done.stderr
