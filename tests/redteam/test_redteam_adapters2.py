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
            "CLAWGATE_STATE_HOME": str(tmp_path / "state")}


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


def token(service: Service, role: str, agent: str) -> str:
    from clawgate.serve import tokens
    from clawgate.serve.db import connect

    engine = connect(service.database)
    try:
        return tokens.create(engine, role, agent)
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
        env={**os.environ, "PYTHONPATH": SRC, "CLAWGATE_STATE_HOME": str(tmp / "state")})
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
            env={**client_env(tmp_path), TOKEN_ENV: token(service, "agent", name)},
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
        env={**client_env(tmp_path), TOKEN_ENV: token(service, "agent", "proxy-note")})

    async def session() -> str:
        with anyio.fail_after(120):
            async with Client(params) as client:
                result = await client.call_tool("run", {"command": "touch made.txt"})
        assert result.is_error
        return "\n".join(getattr(c, "text", "") for c in result.content)

    with person(service, "proxy-note", "deny"):
        said = anyio.run(session)
    assert f"denied by alice: {NOTE}" in said
