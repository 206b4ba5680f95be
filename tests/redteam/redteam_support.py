"""What the red team's attack modules share: a Guard over a policy written in the test, the
real sandboxes, and the process table."""

from __future__ import annotations

from pathlib import Path

from clawgate.approval import ApprovalStore, Approver
from clawgate.guard import Guard
from sandboxes import IMAGE

EXECUTORS = {
    "host": "executor: {kind: host}\n",
    "bwrap": "executor: {kind: bwrap}\n",
    "docker": f"executor: {{kind: docker, docker: {{image: '{IMAGE}'}}}}\n",
}


def guard_for(tmp_path: Path, text: str = "", *, approver: Approver | None = None,
              audit: bool = False) -> Guard:
    """A Guard over ``version: 1`` plus ``text``, on the workspace ``tmp_path/ws``, with its
    state (grants, keys) under ``tmp_path/state``."""
    path = tmp_path / "redteam-policy.yaml"
    path.write_text("version: 1\n" + text)
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    store = ApprovalStore(workspace, state_dir=tmp_path / "state")
    return Guard.from_files(path, workspace=workspace, approver=approver,
                            approval_store=store,
                            audit_log=tmp_path / "audit.jsonl" if audit else None)
