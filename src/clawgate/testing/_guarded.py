"""A real ``clawgate.Guard`` for the ``audit`` invariant: generated command lines go through
``exec_shell`` the whole way (policy, approval, rate limit, executor, audit log), and what the
executor ran is held against what the audit log says.

The executor is the ``FakeExecutor``: it records each request and runs nothing, so generated
``rm -rf /`` lines are safe to send. The workspace and the audit log live in a temporary
directory (on ``/dev/shm`` where there is one: the log is fsynced on every call).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from clawgate.approval import ApprovalAnswer, ApprovalRequest, ApprovalStore, CallbackApprover
from clawgate.errors import ToolError
from clawgate.executors import FakeExecutor

_SHM = "/dev/shm"


class GuardedShell:
    """One guard over ``policies`` (the embedded default first) in a temporary workspace."""

    def __init__(self, policies: Sequence[str], stack: ExitStack) -> None:
        from clawgate.guard import Guard

        base = _SHM if os.path.isdir(_SHM) and os.access(_SHM, os.W_OK) else None
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="clawgate-audit-",
                                                                    dir=base)))
        self.workspace = root / "workspace"
        self.workspace.mkdir()
        self.log = root / "audit.jsonl"
        self.executor = FakeExecutor()
        self.approve_next = False
        self.approved: list[str] = []  # the commands the approver said yes to
        self.guard = Guard.from_files(
            *policies, workspace=self.workspace, executor=self.executor,
            approver=CallbackApprover(self._answer), audit_log=self.log,
            approval_store=ApprovalStore(self.workspace, state_dir=root / "state"))
        self.trusted = self.guard.setup.trusted
        self._read = 0  # audit bytes already returned
        self._calls = 0

    def _answer(self, request: ApprovalRequest) -> ApprovalAnswer:
        if not self.approve_next:
            return ApprovalAnswer.DENY
        self.approved.append(str(request.args.get("command")))
        return ApprovalAnswer.ALLOW_ONCE  # never allow-always: nothing outlives the example

    def run(self, lines: Sequence[str], approve: bool) -> tuple[list[str], list[dict[str, Any]]]:
        """Send ``lines`` as ``exec_shell`` calls (the approver answers ``approve`` to every
        ASK); returns the commands the executor ran and the audit records of these calls."""
        from clawgate.guard import CallContext

        self.approve_next = approve
        self.approved.clear()
        ran_before = len(self.executor.requests)
        for line in lines:
            self._calls += 1  # a session per call: neither the rate limit nor the turn budget
            ctx = CallContext(session=f"fuzz-{self._calls}")  # refuses what the policy allows
            with contextlib.suppress(ToolError):  # refused or failed: then it must not have run
                self.guard.call("exec_shell", {"command": line}, ctx)
        ran = [str(r.command) for r in self.executor.requests[ran_before:]]
        return ran, self._records()

    def _records(self) -> list[dict[str, Any]]:
        with self.log.open("rb") as handle:
            handle.seek(self._read)
            data = handle.read()
        self._read += len(data)
        records = []
        for raw in data.splitlines():
            entry = json.loads(raw)
            if entry.get("tool") != "exec_shell":
                continue
            command = entry.get("args", {}).get("command")
            outcome = entry.get("decision", {}).get("outcome")
            approved = outcome == "ask" and (self.trusted or command in self.approved or
                                             self.redact(command) in map(self.redact,
                                                                         self.approved))
            records.append({"command": command, "outcome": outcome, "approved": approved})
        return records

    def redact(self, text: str) -> str:
        """``text`` as the audit log writes it (credentials scrubbed)."""
        scrubbed = self.guard.setup.scrubber.scrub_value(text)
        return scrubbed if isinstance(scrubbed, str) else text
