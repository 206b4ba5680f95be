"""Asking through ``policy serve``: a person answers in the console, the agent waits here.

``ServerApprover(url, token)`` sends each ASK to the service as a tool call
(``POST /v1/calls``), then long-polls ``GET /v1/approvals/{id}?wait=S`` until a person answers
or the request expires. It fails closed: a service that cannot be reached, answers an error, or
says anything but *allowed* is a deny, and ``last_error`` says why: a person's deny as
``denied by alice: <their note>``, which the Guard, the hooks and the MCP proxy pass on to the
agent. Only the standard library is used, so the client needs no extra.

The service is the authority on allow-always grants (it keeps them, and an admin revokes them
there): ``keeps_grants`` tells ``seek_approval`` never to answer from, nor write to, a local
grant file for this approver.

Several service URLs may be given (replicas behind no load balancer): a request that fails on
one is tried on the next, and a wait interrupted by a replica's death goes on at another (the
queue lives in the shared database).
"""

from __future__ import annotations

import http.client
import json
import secrets
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from typing import Any

from clawgate.approval.model import ApprovalAnswer, ApprovalRequest

WAIT_STEP_S = 25.0  # one long poll; the whole wait is ``timeout_s``
MAX_NOTE_CHARS = 500  # of a person's note, passed on to the agent
TOKEN_ENV = "CLAWGATE_SERVER_TOKEN"  # where the CLI clients read their token (never a flag)


class ServiceUnreachable(Exception):
    """No replica answered (or every one answered an error)."""


class ServerApprover:
    """An approver whose person is at the ``policy serve`` console."""

    keeps_grants = True  # allow-always grants live in the service, never in a local file

    def __init__(self, url: str | Sequence[str], token: str, *, timeout_s: float = 600.0,
                 request_timeout_s: float = 10.0, workspace: str | None = None) -> None:
        self.urls = [url] if isinstance(url, str) else list(url)
        if not self.urls:
            raise ValueError("ServerApprover needs at least one service URL")
        self._token = token
        self.timeout_s = timeout_s
        self.request_timeout_s = request_timeout_s
        self.workspace = workspace
        self.last_error: str | None = None

    def __repr__(self) -> str:  # never the token
        return f"ServerApprover({self.urls!r})"

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.last_error = None
        if not self._token:
            self.last_error = f"no token for the approval service (set {TOKEN_ENV})"
            return ApprovalAnswer.DENY
        try:
            opened = self._open(request)
            if isinstance(opened, ApprovalAnswer):
                return opened
            return self._wait(opened)
        except ServiceUnreachable as exc:
            self.last_error = f"the approval service could not be reached: {exc}"
            return ApprovalAnswer.DENY

    def _open(self, request: ApprovalRequest) -> str | ApprovalAnswer:
        """The id of the request a person will answer, or the service's answer outright (a
        grant it holds allows; its policy may deny)."""
        # One key for this request: a retry on another replica finds the same request.
        context = {"session": request.session or "", "workspace": self.workspace,
                   "request_key": secrets.token_hex(16)}
        answer = self._send("POST", "/v1/calls", {"tool": request.tool,
                                                  "args": dict(request.args),
                                                  "context": context})
        outcome = answer.get("outcome")
        if outcome == "allow":
            return ApprovalAnswer.ALLOW_ONCE
        if outcome == "ask" and answer.get("approval_id"):
            return str(answer["approval_id"])
        self.last_error = f"the service decided {outcome!r}{_why(answer.get('reasons'))}"
        return ApprovalAnswer.DENY

    def _wait(self, request_id: str) -> ApprovalAnswer:
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            step = min(WAIT_STEP_S, max(deadline - time.monotonic(), 0.0))
            shown = self._send("GET", f"/v1/approvals/{urllib.parse.quote(request_id)}"
                                      f"?wait={step:.1f}", None, extra_s=step)
            status = shown.get("status")
            if status == "allowed":
                return ApprovalAnswer.ALLOW_ALWAYS if shown.get("scope") == "always" \
                    else ApprovalAnswer.ALLOW_ONCE
            if status != "pending":
                self.last_error = _refusal(shown)
                return ApprovalAnswer.DENY
        self.last_error = "nobody answered in time"
        return ApprovalAnswer.DENY

    def _send(self, method: str, path: str, body: dict[str, Any] | None,
              extra_s: float = 0.0) -> dict[str, Any]:
        problems = []
        for url in self.urls:
            try:
                return _exchange(url.rstrip("/") + path, method, body, self._token,
                                 self.request_timeout_s + extra_s)
            except (OSError, ValueError, http.client.HTTPException) as exc:
                problems.append(f"{url}: {_said(exc)}")
        raise ServiceUnreachable("; ".join(problems))


def _exchange(url: str, method: str, body: dict[str, Any] | None, token: str,
              timeout_s: float) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        answer = json.loads(response.read())
    if not isinstance(answer, dict):
        raise ValueError("the service did not answer a JSON object")
    return answer


def _refusal(shown: dict[str, Any]) -> str:
    """Why a request that is no longer pending was not allowed: ``denied by alice: <note>``
    for a person's deny (the note on one line, capped), else its status."""
    status = shown.get("status")
    if status != "denied":
        return f"the request was {status}"
    who, note = shown.get("answered_by"), shown.get("note")
    said = f"denied by {_one_line(who) if isinstance(who, str) and who else 'a person'}"
    if isinstance(note, str) and note.strip():
        said += f": {_one_line(note)}"
    return said


def _one_line(text: str) -> str:
    """``text`` with control characters as spaces, runs of spaces as one, capped."""
    flat = " ".join("".join(" " if not c.isprintable() else c for c in text).split())
    return flat if len(flat) <= MAX_NOTE_CHARS else flat[:MAX_NOTE_CHARS - 1] + "…"


def _why(reasons: Any) -> str:
    """The service's reasons, as ``: RULE: message; ...`` (nothing when it gave none)."""
    said = [f"{r.get('rule_id')}: {r.get('message')}" for r in
            (reasons if isinstance(reasons, list) else [])[:3] if isinstance(r, dict)]
    return f": {'; '.join(said)}" if said else ""


def _said(exc: Exception) -> str:
    """What went wrong, in words (an HTTP error's status, never the request's headers)."""
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return str(exc.reason)
    return str(exc) or type(exc).__name__
