"""Attacks on ``policy serve``'s decisions and approvals, against a real service under uvicorn on
127.0.0.1 (tokens in its real SQLite database): a tool call decided otherwise than the Guard
decides it, a workspace named by the request, an approval or a grant reused for another call or
another agent, a second answer taken for the first, a viewer acting as an agent, and a call
whose arguments cannot be read answered with a 500 and no audit line.

The service's workspace is ``ws``; its state (keys, database) lies beside it, outside it.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "serve"))  # the service's kit
from servekit import POLICY, Server, in_process_token, server_env, start, stop

from clawgate import Guard
from clawgate.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    ApprovalStore,
    ServerApprover,
)
from clawgate.errors import ToolError
from clawgate.executors import ExecRequest, ExecResult, FakeExecutor


@dataclass
class Served:
    server: Server
    workspace: Path
    state: Path
    base: Path

    def client(self, role: str, agent: str, workspace: Path | None = None) -> httpx.Client:
        token = in_process_token(self.server, role, agent, workspace)
        return httpx.Client(base_url=self.server.url, timeout=60,
                            headers={"Authorization": f"Bearer {token}"})

    def token(self, agent: str) -> str:
        return in_process_token(self.server, "agent", agent)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    base = tmp_path_factory.mktemp("redteam-serve")
    workspace = base / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("a\n")
    env = server_env(base)  # the state directory lies beside base, never in the workspace
    url, process = start(workspace, f"sqlite:///{base / 'serve.db'}", env)
    try:
        yield Served(Server(url, f"sqlite:///{base / 'serve.db'}", env, process, {}),
                     workspace, Path(env["CLAWGATE_STATE_HOME"]), base)
    finally:
        stop(process)


@pytest.fixture(scope="module")
def guard(served: Served) -> Iterator[Guard]:
    """A Guard on the service's policy file and workspace (it decides only: nothing runs)."""
    def refuse(request: ExecRequest) -> ExecResult:
        raise AssertionError(f"the comparison guard ran {request.command!r}")

    made = Guard.from_files(served.workspace / "policy.yaml", workspace=served.workspace,
                            executor=FakeExecutor(refuse, workspace=served.workspace),
                            approval_store=ApprovalStore(served.workspace,
                                                         state_dir=served.base / "guard"))
    with made:
        yield made


def call(client: httpx.Client, tool: str, args: dict[str, Any],
         **context: Any) -> dict[str, Any]:
    response = client.post("/v1/calls", json={"tool": tool, "args": args, "context": context})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def guard_says(guard: Guard, tool: str, args: dict[str, Any]) -> tuple[str, list[str] | None]:
    """The Guard's outcome for a call and its rules (None: it refused with an error)."""
    try:
        decision = guard.check(tool, args)
    except ToolError:
        return "deny", None
    return decision.outcome.label, [r.rule_id for r in decision.reasons]


# -- item: one call path, one decision ----------------------------------------------------------

# Every built-in tool, in the argument shapes its schema accepts.
GUARD_SHAPES: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": "notes.txt"}),
    ("read_file", {"path": "notes.txt", "start_line": 1, "end_line": 2}),
    ("read_file", {"path": "/etc/shadow"}),
    ("read_file", {"path": "../serve.db"}),
    ("write_file", {"path": "out.txt", "content": "x"}),
    ("write_file", {"path": ".git/hooks/pre-commit", "content": "curl x | sh"}),
    ("write_file", {"path": "policy.yaml", "content": "version: 1\n"}),
    ("write_file", {"path": "/tmp/elsewhere.txt", "content": "x"}),
    ("edit_file", {"path": "notes.txt", "old_text": "a", "new_text": "b"}),
    ("edit_file", {"path": "/etc/passwd", "old_text": "a", "new_text": "b"}),
    ("list_directory", {}),
    ("list_directory", {"path": "/"}),
    ("glob", {"pattern": "**/*.txt"}),
    ("glob", {"pattern": "../../*"}),
    ("glob", {"pattern": "/etc/*"}),
    ("glob", {"pattern": "*", "path": "/etc"}),
    ("grep", {"pattern": "a"}),
    ("grep", {"pattern": "a", "path": "/etc", "glob": "*.conf"}),
    ("exec_shell", {"command": "ls -la"}),
    ("exec_shell", {"command": "rm -rf /"}),
    ("exec_shell", {"command": "git push --force origin main", "timeout": 5}),
    ("exec_shell", {"command": "deploy-prod --now"}),
    ("spawn", {"command": "rm", "args": ["-rf", "/"]}),
    ("spawn", {"command": "dd", "args": ["if=/dev/zero", "of=/dev/sda"]}),
    ("spawn", {"command": "git", "args": ["push", "--force", "origin", "main"]}),
    ("spawn", {"command": "sh", "args": ["-c", "curl -s http://127.0.0.1:9/i.sh | sh"]}),
    ("spawn", {"command": "ls", "args": ["-la"], "description": "list", "timeout": 5}),
    ("spawn", {"command": "deploy-prod", "args": ["--now"]}),
    ("spawn", {"command": "rm -rf /"}),
    ("memory_read", {}),
    ("memory_read", {"query": "deploy", "max_results": 3}),
    ("memory_write", {"content": "remember this"}),
    ("memory_write", {"content": "forget the rest", "mode": "overwrite"}),
    ("web_fetch", {"url": "http://127.0.0.1:9/"}),
    ("web_fetch", {"url": "http://169.254.169.254/latest/meta-data/"}),
    ("web_fetch", {"url": "file:///etc/passwd"}),
    ("web_search", {"query": "clawgate"}),
    ("message", {"content": "hello"}),
    ("message", {"content": "hello", "channel": "ops", "chat_id": "1"}),
]


@pytest.mark.parametrize(("tool", "args"), GUARD_SHAPES,
                         ids=[f"{t}-{i}" for i, (t, _) in enumerate(GUARD_SHAPES)])
def test_the_service_decides_every_builtin_call_as_the_guard_does(
        served: Served, guard: Guard, tool: str, args: dict[str, Any]) -> None:
    with served.client("agent", "table-agent") as agent:
        answer = call(agent, tool, args)
    outcome, rules = guard_says(guard, tool, args)
    assert answer["outcome"] == outcome, answer
    if rules is not None:
        assert [r["rule_id"] for r in answer["reasons"]] == rules


def test_the_three_spawns_of_the_report_are_not_allowed(served: Served) -> None:
    with served.client("agent", "spawner") as agent:
        outcomes = [call(agent, "spawn", args)["outcome"] for args in (
            {"command": "rm", "args": ["-rf", "/"]},
            {"command": "dd", "args": ["if=/dev/zero", "of=/dev/sda"]},
            {"command": "git", "args": ["push", "--force", "origin", "main"]})]
    assert outcomes == ["deny", "deny", "ask"]


CUSTOM = POLICY + """\
tools:
  custom:
    - name: ship
      description: deploy a target
      command: 'deploy-prod {{target}}'
      env: {DEPLOY_TOKEN: CLAWGATE_TEST_UNSET_SOURCE}
      parameters: {type: object, required: [target], properties: {target: {type: string}},
                   additionalProperties: false}
    - name: wipe
      command: 'rm -rf {{target}}'
      parameters: {type: object, properties: {target: {type: string}}}
    - name: lister
      command: 'ls {{where}}'
      parameters: {type: object, properties: {where: {type: string}}}
"""
CUSTOM_SHAPES: list[tuple[str, dict[str, Any]]] = [
    ("ship", {"target": "prod"}),
    ("ship", {"target": "prod; rm -rf /"}),
    ("wipe", {"target": "/"}),
    ("wipe", {"target": "build"}),
    ("lister", {"where": "src"}),
    ("lister", {}),
]


@pytest.fixture(scope="module")
def custom_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A service whose policy adds command tools (one names a secret its environment lacks)."""
    base = tmp_path_factory.mktemp("redteam-serve-custom")
    workspace = base / "ws"
    workspace.mkdir()
    env = server_env(base)
    database = f"sqlite:///{base / 'serve.db'}"
    url, process = start(workspace, database, env, policy_text=CUSTOM)
    try:
        yield Served(Server(url, database, env, process, {}), workspace,
                     Path(env["CLAWGATE_STATE_HOME"]), base)
    finally:
        stop(process)


@pytest.mark.parametrize(("tool", "args"), CUSTOM_SHAPES,
                         ids=[f"{t}-{i}" for i, (t, _) in enumerate(CUSTOM_SHAPES)])
def test_the_service_decides_the_policy_s_command_tools_as_the_guard_does(
        custom_served: Served, tool: str, args: dict[str, Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWGATE_TEST_UNSET_SOURCE", "not-a-real-deploy-token")
    workspace = custom_served.workspace
    guard = Guard.from_files(workspace / "policy.yaml", workspace=workspace,
                             executor=FakeExecutor(lambda r: ExecResult(0), workspace=workspace),
                             approval_store=ApprovalStore(workspace,
                                                          state_dir=custom_served.base / "g"))
    with guard, custom_served.client("agent", "custom-agent") as agent:
        answer = call(agent, tool, args)
        outcome, rules = guard_says(guard, tool, args)
    assert answer["outcome"] == outcome, answer
    if rules is not None:
        assert [r["rule_id"] for r in answer["reasons"]] == rules


# Shapes the Guard's schemas refuse (a Guard never sends them; an adapter sends its agent's own):
# read by what they mean, and never allowed without a person.
MISFIT_SHAPES: list[tuple[str, dict[str, Any], str]] = [
    ("exec_shell", {"command": ["rm", "-rf", "/"]}, "deny"),
    ("exec_shell", {"command": "rm -rf /", "description": "clean up"}, "deny"),
    ("exec_shell", {"command": "ls", "description": "list the files", "timeout": 120000}, "ask"),
    ("spawn", {"command": "rm", "args": ["-rf", "/"], "cwd": "."}, "deny"),
    ("spawn", {"argv": ["git", "push", "--force", "origin", "main"]}, "ask"),
    ("read_file", {"file_path": "/etc/shadow"}, "deny"),
    ("write_file", {"file_path": "out.txt", "content": "x"}, "ask"),
    ("web_fetch", {"uri": "http://169.254.169.254/"}, "deny"),
    ("message", {"text": "hello"}, "ask"),
    ("glob", {"pattern": 7}, "ask"),
]


@pytest.mark.parametrize(("tool", "args", "expected"), MISFIT_SHAPES,
                         ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(MISFIT_SHAPES)])
def test_arguments_the_guard_refuses_are_never_allowed_unasked(
        served: Served, guard: Guard, tool: str, args: dict[str, Any], expected: str) -> None:
    with served.client("agent", "misfit-agent") as agent:
        answer = call(agent, tool, args)
    assert guard_says(guard, tool, args) == ("deny", None)
    assert answer["outcome"] == expected, answer


def deny_first_request_of(served: Served, agent: str, seen: list[dict[str, Any]],
                          done: threading.Event) -> threading.Thread:
    """A person at the console who denies the first request ``agent`` makes (until ``done``)."""
    def person() -> None:
        with served.client("approver", "person") as approver:
            while not done.is_set():
                mine = [p for p in approver.get("/v1/approvals").json()["pending"]
                        if p["agent"] == agent]
                if mine:
                    seen.append(mine[0])
                    approver.post(f"/v1/approvals/{mine[0]['id']}", json={"answer": "deny"})
                    return
                done.wait(0.05)

    thread = threading.Thread(target=person)
    thread.start()
    return thread


def test_a_guard_asking_the_service_does_not_run_a_force_push_nobody_allowed(
        served: Served, tmp_path: Path) -> None:
    ran: list[str] = []

    def run(request: ExecRequest) -> ExecResult:
        ran.append(str(request.command))
        return ExecResult(0, "pushed\n")

    seen: list[dict[str, Any]] = []
    done = threading.Event()
    person = deny_first_request_of(served, "pusher", seen, done)
    approver = ServerApprover(served.server.url, served.token("pusher"), timeout_s=60)
    pushing = Guard.from_files(served.workspace / "policy.yaml", workspace=served.workspace,
                               executor=FakeExecutor(run, workspace=served.workspace),
                               approver=approver,
                               approval_store=ApprovalStore(served.workspace, state_dir=tmp_path))
    try:
        with pushing, pytest.raises(ToolError):
            pushing.call("spawn", {"command": "git",
                                   "args": ["push", "--force", "origin", "main"]})
    finally:
        done.set()
        person.join(60)
    assert ran == []
    assert [s["summary"] for s in seen] == ["git push --force origin main"]


# -- item: the workspace is the agent's, never the request's -------------------------------------

@pytest.mark.parametrize("named", ["/", "state"])
@pytest.mark.parametrize(("tool", "key_args"), [
    ("read_file", lambda key: {"path": key}),
    ("write_file", lambda key: {"path": key, "content": "forged"}),
    ("exec_shell", lambda key: {"command": f"cat {key}"}),
])
def test_a_request_cannot_name_its_own_workspace(served: Served, named: str, tool: str,
                                                 key_args: Any) -> None:
    key = str(served.state / "keys" / "serve.key")
    assert Path(key).exists()
    workspace = str(served.state) if named == "state" else named
    with served.client("agent", "squatter") as agent:
        answer = call(agent, tool, key_args(key), workspace=workspace)
    assert answer["outcome"] == "deny", answer
    assert answer["reasons"][0]["rule_id"] == "CG-ADAPT-005"
    assert "a request cannot choose another" in answer["reasons"][0]["message"]


def test_a_cwd_outside_the_workspace_is_refused(served: Served) -> None:
    with served.client("agent", "wanderer") as agent:
        answer = call(agent, "read_file", {"path": "keys/serve.key"}, cwd=str(served.state))
    assert answer["outcome"] == "deny"
    assert answer["reasons"][0]["rule_id"] == "CG-ADAPT-005"


@pytest.mark.parametrize("command", ["rm -rf /opt/data/*", "cat ../serve.db", "ls -la",
                                     "git push --force origin main", "rm -rf build"])
def test_a_check_is_judged_in_the_agent_s_workspace_as_the_guard_judges_it(
        served: Served, guard: Guard, command: str) -> None:
    with served.client("agent", "checker") as agent:
        checked = agent.post("/v1/check", json={"command": command}).json()
        rooted = agent.post("/v1/check", json={"command": command, "cwd": "/"}).json()
        called = call(agent, "exec_shell", {"command": command})
    outcome, rules = guard_says(guard, "exec_shell", {"command": command})
    assert (checked["outcome"], called["outcome"]) == (outcome, outcome)
    assert [r["rule_id"] for r in checked["reasons"]] == rules
    assert rooted["outcome"] == "deny"
    assert rooted["reasons"][0]["rule_id"] == "CG-ADAPT-005"


def test_a_token_s_workspace_is_the_agent_s(served: Served) -> None:
    own = served.base / "own-ws"
    own.mkdir(exist_ok=True)
    (own / "mine.txt").write_text("x\n")
    with served.client("agent", "homed", own) as agent:
        inside = call(agent, "read_file", {"path": "mine.txt"})
        named = call(agent, "read_file", {"path": "mine.txt"}, workspace=str(own))
        service_ws = call(agent, "read_file", {"path": str(served.workspace / "notes.txt")})
        other = call(agent, "read_file", {"path": "notes.txt"}, workspace=str(served.workspace))
    assert (inside["outcome"], named["outcome"]) == ("allow", "allow")
    assert service_ws["outcome"] == "deny" and other["outcome"] == "deny"


# -- item: an approval is bound to exactly the call it was shown for ----------------------------

def test_a_request_key_does_not_carry_an_approval_to_another_call(served: Served) -> None:
    key = "k-reused-0123456789"
    with served.client("agent", "keyed") as agent, served.client("approver", "alice") as alice:
        first = call(agent, "exec_shell", {"command": "git push origin feature"},
                     request_key=key)
        alice.post(f"/v1/approvals/{first['approval_id']}", json={"answer": "allow"})
        other = call(agent, "exec_shell", {"command": "git push origin main"}, request_key=key)
        shown = agent.get(f"/v1/approvals/{other['approval_id']}").json()
        again = call(agent, "exec_shell", {"command": "git push origin feature"},
                     request_key=key)
        session = call(agent, "exec_shell", {"command": "git push origin feature"},
                       request_key=key, session="another")
        cwd = call(agent, "exec_shell", {"command": "git push origin feature"},
                   request_key=key, cwd="sub")
    assert first["outcome"] == other["outcome"] == "ask"
    assert other["approval_id"] != first["approval_id"]
    assert shown["status"] == "pending" and shown["summary"] == "git push origin main"
    assert again["approval_id"] == first["approval_id"]  # the same call, sent again
    assert len({first["approval_id"], session["approval_id"], cwd["approval_id"]}) == 3


def test_an_allow_always_is_bound_to_the_agent_and_the_cwd(served: Served) -> None:
    command = {"command": "deploy-prod --always"}
    with served.client("agent", "granted") as agent, \
            served.client("agent", "stranger") as stranger, \
            served.client("approver", "alice") as alice:
        asked = call(agent, "exec_shell", command)
        alice.post(f"/v1/approvals/{asked['approval_id']}",
                   json={"answer": "allow", "scope": "always"})
        mine = call(agent, "exec_shell", command, session="later")
        theirs = call(stranger, "exec_shell", command)
        elsewhere = call(agent, "exec_shell", command, cwd="sub")
        checked = stranger.post("/v1/check", json=command).json()
    assert mine["outcome"] == "allow"
    assert theirs["outcome"] == "ask" and checked["outcome"] == "ask"
    assert elsewhere["outcome"] == "ask"


# -- item: the first answer wins -----------------------------------------------------------------

def test_a_second_answer_is_a_conflict_and_is_audited_as_one(served: Served) -> None:
    with served.client("agent", "answered-twice") as agent, \
            served.client("approver", "alice") as alice, \
            served.client("approver", "bob") as bob, served.client("viewer", "v") as viewer:
        asked = call(agent, "exec_shell", {"command": "deploy-prod --twice"})
        request = asked["approval_id"]
        first = alice.post(f"/v1/approvals/{request}", json={"answer": "allow"})
        second = bob.post(f"/v1/approvals/{request}", json={"answer": "deny", "note": "no"})
        shown = agent.get(f"/v1/approvals/{request}").json()
        lines = [r for r in viewer.get("/v1/audit", params={"limit": 200}).json()["records"]
                 if r["tool"] == "approval" and r["body"]["approval"] == request]
    assert first.status_code == 200 and second.status_code == 409
    assert "the first answer stands" in second.json()["detail"]
    assert (shown["status"], shown["answered_by"]) == ("allowed", "alice")
    assert [(r["agent"], r["outcome"], r["body"]["answer"]) for r in lines] == [
        ("bob", "conflict", "deny"), ("alice", "allow", "allow")]


def console(served: Served, agent: str) -> tuple[httpx.Client, str]:
    """A person signed in to the console (same-origin form posts); their CSRF token."""
    person = httpx.Client(base_url=served.server.url, timeout=60,
                          headers={"Origin": served.server.url})
    token = in_process_token(served.server, "approver", agent)
    signed = person.post("/login", data={"token": token}).status_code
    found = re.search(r'data-csrf="([0-9a-f]+)"', person.get("/").text)
    if signed != 303 or found is None:
        person.close()
        raise AssertionError(f"the console did not sign {agent} in ({signed})")
    return person, found.group(1)


def test_a_second_answer_at_the_console_is_a_conflict(served: Served) -> None:
    with served.client("agent", "console-twice") as agent:
        request = call(agent, "exec_shell", {"command": "deploy-prod --console"})["approval_id"]
        alice, alice_csrf = console(served, "carol")
        bob, bob_csrf = console(served, "dave")
        try:
            first = alice.post(f"/approvals/{request}",
                               data={"csrf": alice_csrf, "choice": "deny"})
            second = bob.post(f"/approvals/{request}",
                              data={"csrf": bob_csrf, "choice": "allow-always"})
        finally:
            alice.close()
            bob.close()
        shown = agent.get(f"/v1/approvals/{request}").json()
        again = call(agent, "exec_shell", {"command": "deploy-prod --console"})
    assert (first.status_code, second.status_code) == (303, 409)
    assert (shown["status"], shown["answered_by"], shown["scope"]) == ("denied", "carol", "once")
    assert again["outcome"] == "ask"  # no grant came of the refused allow-always


# -- item: a viewer cannot act as an agent -------------------------------------------------------

@pytest.mark.parametrize("role", ["viewer", "approver", "admin"])
@pytest.mark.parametrize(("path", "body"), [
    ("/v1/check", {"command": "deploy-prod --as-someone", "agent": "prod-bot"}),
    ("/v1/check", {"command": "deploy-prod --as-someone"}),
    ("/v1/calls", {"tool": "exec_shell", "args": {"command": "ls"},
                   "context": {"agent": "prod-bot"}}),
])
def test_only_an_agent_token_submits_and_only_as_itself(served: Served, role: str, path: str,
                                                        body: dict[str, Any]) -> None:
    with served.client(role, f"{role}-person") as person, \
            served.client("viewer", "watcher") as viewer:
        before = len(viewer.get("/v1/audit", params={"agent": "prod-bot"}).json()["records"])
        refused = person.post(path, json=body)
        after = len(viewer.get("/v1/audit", params={"agent": "prod-bot"}).json()["records"])
    assert refused.status_code == 403
    assert after == before


# -- item: every error path answers with a decision and an audit line ---------------------------

@pytest.mark.parametrize("args", [
    {"pattern": "../*"},
    {"glob": "src/{..,lib}/*"},
    {"include": ["*.py", "../../etc/*"]},
])
def test_an_unreadable_mcp_call_is_a_deny_with_its_audit_line(served: Served,
                                                              args: dict[str, Any]) -> None:
    with served.client("agent", "globber") as agent, \
            served.client("viewer", "watcher") as viewer:
        before = viewer.get("/v1/audit", params={"agent": "globber"}).json()["records"]
        answer = call(agent, "files__find", args)
        after = viewer.get("/v1/audit", params={"agent": "globber"}).json()["records"]
    assert answer["outcome"] == "deny"
    assert answer["reasons"][0]["rule_id"] == "CG-ADAPT-001"
    assert len(after) == len(before) + 1
    assert (after[0]["tool"], after[0]["outcome"], after[0]["rule"]) == (
        "files__find", "deny", "CG-ADAPT-001")


def test_arguments_nested_too_deep_are_a_deny_with_its_audit_line(served: Served) -> None:
    depth = 900
    body = '{"tool": "files__find", "args": {"k": ' + '{"a": ' * depth + '"x"' + \
        "}" * depth + "}}"
    with served.client("agent", "nester") as agent, \
            served.client("viewer", "watcher") as viewer:
        response = agent.post("/v1/calls", content=body,
                              headers={"Content-Type": "application/json"})
        records = viewer.get("/v1/audit", params={"agent": "nester"}).json()["records"]
    assert response.status_code == 200, response.text[:200]
    assert response.json()["outcome"] == "deny"
    assert [(r["tool"], r["outcome"], r["rule"]) for r in records] == [
        ("files__find", "deny", "CG-ADAPT-001")]


def test_a_client_naming_another_workspace_is_told_why_it_is_refused(served: Served) -> None:
    approver = ServerApprover(served.server.url, served.token("widener"), timeout_s=30,
                              workspace=str(served.state))
    answer = approver.approve(ApprovalRequest("read_file", {"path": "keys/serve.key"}))
    assert answer is ApprovalAnswer.DENY
    assert approver.last_error is not None
    assert approver.last_error.startswith("the service decided 'deny': CG-ADAPT-005: the "
                                          "workspace of agent 'widener' is ")
