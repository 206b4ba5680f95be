"""Clients of the service: a Guard whose approver is the person at the console, and failing
closed when the service cannot be reached."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import httpx
from servekit import ANSWER_S, Server, free_port, until

from clawgate import Guard
from clawgate.approval import ApprovalAnswer, ApprovalRequest, ServerApprover
from clawgate.executors import ExecRequest, ExecResult, FakeExecutor


def answer_next(server: Server, choice: str, scope: str = "once") -> threading.Thread:
    """A person at the console: answers the first request that shows up."""
    def person() -> None:
        with server.client("approver") as approver:
            pending = until(lambda: approver.get("/v1/approvals").json()["pending"])
            if pending:
                approver.post(f"/v1/approvals/{pending[0]['id']}",
                              json={"answer": choice, "scope": scope})

    thread = threading.Thread(target=person)
    thread.start()
    return thread


def agent_token(server: Server, name: str) -> str:
    from servekit import in_process_token

    return in_process_token(server, "agent", name)


def test_a_guard_waits_for_the_console_and_runs_what_a_person_allowed(
        server: Server, tmp_path: Path) -> None:
    ran: list[str] = []

    def run(request: ExecRequest) -> ExecResult:
        ran.append(str(request.command))
        return ExecResult(0, "deployed\n")

    executor = FakeExecutor(run, workspace=tmp_path)
    approver = ServerApprover(server.url, agent_token(server, "guarded"), timeout_s=ANSWER_S)
    guard = Guard.from_files(_policy(tmp_path), workspace=tmp_path,
                             executor=executor, approver=approver,
                             audit_log=tmp_path.parent / f"{tmp_path.name}-audit.jsonl")
    person = answer_next(server, "allow")
    result = guard.call("exec_shell", {"command": "deploy-prod --now"})
    person.join(ANSWER_S)
    assert ran == ["deploy-prod --now"]
    assert "deployed" in str(result)


def test_a_deny_at_the_console_stops_the_guard(server: Server, tmp_path: Path) -> None:
    approver = ServerApprover(server.url, agent_token(server, "denied"), timeout_s=ANSWER_S)
    person = answer_next(server, "deny")
    answer = approver.approve(ApprovalRequest("exec_shell", {"command": "deploy-prod x"}))
    person.join(ANSWER_S)
    assert answer is ApprovalAnswer.DENY
    assert approver.last_error is not None
    assert approver.last_error.startswith("denied by approver-")  # who; no note was given


def test_an_unreachable_service_is_a_deny_that_says_so() -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    approver = ServerApprover(dead, "cg_x_y", timeout_s=5, request_timeout_s=2)
    answer = approver.approve(ApprovalRequest("exec_shell", {"command": "deploy-prod x"}))
    assert answer is ApprovalAnswer.DENY
    assert approver.last_error is not None
    assert "could not be reached" in approver.last_error


def test_a_second_url_is_tried_when_the_first_is_down(server: Server) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    approver = ServerApprover([dead, server.url], agent_token(server, "failover"),
                              timeout_s=ANSWER_S)
    person = answer_next(server, "allow")
    answer = approver.approve(ApprovalRequest("exec_shell", {"command": "deploy-prod y"}))
    person.join(ANSWER_S)
    assert answer is ApprovalAnswer.ALLOW_ONCE
    assert httpx.get(f"{server.url}/healthz").json()["ok"]


def _policy(tmp_path: Path) -> Path:
    from servekit import POLICY

    path = tmp_path / "guard-policy.yaml"
    path.write_text(POLICY)
    return path


class _Unavailable(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.send_response(503)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


def test_a_service_answering_503_is_a_deny() -> None:
    httpd = HTTPServer(("127.0.0.1", 0), _Unavailable)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        approver = ServerApprover(f"http://127.0.0.1:{httpd.server_address[1]}", "cg_x_y",
                                  timeout_s=5)
        answer = approver.approve(ApprovalRequest("exec_shell", {"command": "deploy-prod"}))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert answer is ApprovalAnswer.DENY
    assert approver.last_error is not None and "503" in approver.last_error


def test_a_request_sent_again_with_its_key_is_the_same_request(server: Server) -> None:
    call = {"tool": "exec_shell", "args": {"command": "deploy-prod --twice"},
            "context": {"request_key": "k-0123456789abcdef"}}
    with server.client("agent", "retrier") as one, server.client("agent", "other") as two:
        first = one.post("/v1/calls", json=call).json()
        again = one.post("/v1/calls", json=call).json()
        someone_else = two.post("/v1/calls", json=call).json()
        # without the key, in another session: not the same request (in the same session, an
        # identical request still pending is merged with it)
        fresh = one.post("/v1/calls", json={**call, "context": {"session": "s2"}}).json()
    assert first["outcome"] == again["outcome"] == "ask"
    assert first["approval_id"] == again["approval_id"]
    assert len({first["approval_id"], someone_else["approval_id"], fresh["approval_id"]}) == 3
