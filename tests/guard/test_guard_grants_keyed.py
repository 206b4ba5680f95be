"""Allow-always grants are keyed: a grant written without the key is ignored and reported, and
no grant is consulted when no approver could say yes. The attack is run for real: a separate
process writes the store the way a command the guard allowed could."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from clawgate.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    ApprovalStore,
    CallbackApprover,
    DenyAllApprover,
    TerminalApprover,
    seek_approval,
)
from clawgate.approval.store import request_digest
from clawgate.cli import main

REQ = ApprovalRequest("exec_shell", {"command": "npm publish"}, summary="npm publish")
SRC = str(Path(__file__).resolve().parents[2] / "src")

FORGE = """
import json, sys
path, entry = sys.argv[1], json.loads(sys.argv[2])
try:
    data = json.load(open(path))
except FileNotFoundError:
    data = {"workspace": sys.argv[3], "approvals": []}
data["approvals"].append(entry)
json.dump(data, open(path, "w"))
"""


def forge(store: ApprovalStore, mac: str = "") -> None:
    """Append a grant for REQ as a command with write access to the store would."""
    store.path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"id": REQ.id, "tool": REQ.tool, "summary": "npm publish",
             "created": "2026-01-01T00:00:00Z", "digest": request_digest(REQ), "mac": mac}
    subprocess.run([sys.executable, "-c", FORGE, str(store.path), json.dumps(entry),
                    store.workspace], check=True)


@pytest.mark.parametrize("mac", ["", "0" * 64])
def test_a_grant_written_without_the_key_is_ignored(tmp_path: Path, mac: str) -> None:
    store = ApprovalStore(tmp_path / "ws", state_dir=tmp_path / "state")
    forge(store, mac)
    assert not store.allows(REQ)
    assert store.list() == []
    assert store.forged() == 1
    asked: list[str] = []
    person = CallbackApprover(lambda r: asked.append(r.id) or ApprovalAnswer.DENY)
    assert seek_approval(REQ, person, store) is ApprovalAnswer.DENY
    assert asked == [REQ.id]  # the person was asked; the forged grant did not answer


def test_a_grant_from_another_key_is_ignored(tmp_path: Path) -> None:
    ApprovalStore(tmp_path / "ws", state_dir=tmp_path / "state", key=b"a" * 32).remember(REQ)
    store = ApprovalStore(tmp_path / "ws", state_dir=tmp_path / "state", key=b"b" * 32)
    assert not store.allows(REQ)
    assert store.forged() == 1


def test_a_keyed_grant_moved_to_another_workspace_is_ignored(tmp_path: Path) -> None:
    first = ApprovalStore(tmp_path / "one", state_dir=tmp_path / "state", key=b"k" * 32)
    first.remember(REQ)
    second = ApprovalStore(tmp_path / "two", state_dir=tmp_path / "state", key=b"k" * 32)
    second.path.write_text(first.path.read_text())
    assert first.allows(REQ)
    assert not second.allows(REQ)


def test_the_key_lives_beside_the_store_with_mode_0600(tmp_path: Path) -> None:
    store = ApprovalStore(tmp_path / "ws", state_dir=tmp_path / "state")
    store.remember(REQ)
    key = tmp_path / "state" / "keys" / "approvals.key"
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    assert store.allows(REQ)


def test_no_grant_is_consulted_when_nobody_can_say_yes(tmp_path: Path) -> None:
    store = ApprovalStore(tmp_path / "ws", state_dir=tmp_path / "state")
    store.remember(REQ)
    assert seek_approval(REQ, DenyAllApprover(), store) is ApprovalAnswer.DENY
    no_terminal = TerminalApprover(device=str(tmp_path / "no-such-tty"))
    assert not no_terminal.can_approve
    assert seek_approval(REQ, no_terminal, store) is ApprovalAnswer.DENY
    assert seek_approval(REQ, CallbackApprover(lambda r: ApprovalAnswer.DENY), store).allowed


def test_cli_list_reports_forged_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CLAWGATE_STATE_DIR", str(tmp_path / "state"))
    ws = tmp_path / "ws"
    ws.mkdir()
    forge(ApprovalStore(ws))
    assert main(["approvals", "list", "--json", "--workspace", str(ws)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["forged"] == 1
    assert json.loads(captured.out)["approvals"] == []
    assert "fail their mac" in captured.err
