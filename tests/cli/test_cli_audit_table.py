"""``policy audit tail`` on a terminal: a table with the time, agent, tool, call, outcome and
rules of each record, read from a real log through a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from clawgate.audit import AuditLog, AuditRecord
from clawgate.decision import Reason
from ptykit import read_all


def test_tail_on_a_terminal_is_a_table(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditLog(path) as log:
        log.append(AuditRecord("s1", "ci-bot", "exec_shell", {"command": "rm -rf /"}, "deny",
                               (Reason("CG-DEST-002", "wipes the root"),)))
        log.append(AuditRecord("s1", "ci-bot", "read_file", {"path": "notes.md"}, "allow"))
    with path.open("ab") as handle:
        handle.write(b"not json\n")
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    with subprocess.Popen([sys.executable, "-m", "clawgate", "audit", "tail", str(path)],
                          stdout=follower, stderr=subprocess.DEVNULL, env=env) as child:
        os.close(follower)
        shown = read_all(leader)
        os.close(leader)
        assert child.wait(timeout=120) == 0
    lines = shown.splitlines()
    assert any("time" in line and "outcome" in line and "rules" in line for line in lines)
    (deny,) = [line for line in lines if "rm -rf /" in line]
    assert "ci-bot" in deny and "exec_shell" in deny and "deny" in deny
    assert "CG-DEST-002" in deny
    assert any("notes.md" in line and "allow" in line for line in lines)
    assert any("(not a record)" in line for line in lines)
