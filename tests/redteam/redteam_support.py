"""What the red team's attack modules share: a Guard over a policy written in the test, the
real sandboxes, and the process table."""

from __future__ import annotations

import random
import time
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


def unique_sleep() -> str:
    """A ``sleep`` argument no other process on the machine uses: the marker to look for."""
    return f"{random.randint(100_000, 999_999)}.{random.randint(1, 9)}"


def alive_with(marker: str) -> list[int]:
    """PIDs of live (not zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def gone(marker: str, within_s: float = 60.0) -> bool:
    """True once no live process carries the marker. The wait is a hang detector, not a
    bound: it returns as soon as the process is gone."""
    deadline = time.monotonic() + within_s
    while alive_with(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
