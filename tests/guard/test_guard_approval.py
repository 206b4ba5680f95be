"""Approvers (a real pty for the terminal one), the allow-always store, and the CLI."""

from __future__ import annotations

import json
import os
import select
import threading
import time
from collections.abc import Iterator
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
from clawgate.cli import main
from clawgate.decision import Reason
from clawgate.errors import ClawgateError

REQ = ApprovalRequest("shell", {"command": "npm publish"}, summary="npm publish",
                      reasons=(Reason("CG-NET-010", "publishes a package"),))


@pytest.mark.parametrize(("a", "b", "same"), [
    (("shell", {"command": "ls -la"}), ("Shell ", {"command": "  ls -la\n"}), True),
    (("write", {"path": "a", "mode": 1}), ("write", {"mode": 1, "path": "a"}), True),
    (("shell", {"command": "echo 'a  b'"}), ("shell", {"command": "echo 'a b'"}), False),
    (("shell", {"command": "ls"}), ("read", {"command": "ls"}), False),
    (("shell", {"command": "ls", "cwd": "/a"}), ("shell", {"command": "ls", "cwd": "/b"}), False),
])
def test_request_normalisation(a: tuple[str, dict[str, object]], b: tuple[str, dict[str, object]],
                               same: bool) -> None:
    ra, rb = ApprovalRequest(*a), ApprovalRequest(*b)
    assert (ra.key == rb.key) is same
    assert (ra.id == rb.id) is same
    assert len(ra.id) == 12
    assert (hash(ra) == hash(rb)) is same


def test_deny_all() -> None:
    assert DenyAllApprover().approve(REQ) is ApprovalAnswer.DENY


def _raise(request: ApprovalRequest) -> ApprovalAnswer:
    raise RuntimeError("approver broke")


_RELEASE = threading.Event()


def _slow(request: ApprovalRequest) -> ApprovalAnswer:
    _RELEASE.wait(60)  # answers only once the test has its verdict (or after a minute)
    return ApprovalAnswer.ALLOW_ONCE


@pytest.mark.parametrize(("fn", "expected"), [
    (lambda r: ApprovalAnswer.ALLOW_ONCE, ApprovalAnswer.ALLOW_ONCE),
    (lambda r: ApprovalAnswer.ALLOW_ALWAYS, ApprovalAnswer.ALLOW_ALWAYS),
    (lambda r: "allow-once", ApprovalAnswer.DENY),
    (lambda r: True, ApprovalAnswer.DENY),
    (_raise, ApprovalAnswer.DENY),
], ids=["once", "always", "plain-string", "bool", "raises"])
def test_callback_approver(fn: object, expected: ApprovalAnswer) -> None:
    assert CallbackApprover(fn).approve(REQ) is expected  # type: ignore[arg-type]


def test_callback_timeout_is_a_deny() -> None:
    # The callback would say allow, but not before the verdict: the timeout decided.
    _RELEASE.clear()
    try:
        assert CallbackApprover(_slow, timeout_s=0.05).approve(REQ) is ApprovalAnswer.DENY
    finally:
        _RELEASE.set()


# --- the terminal approver on a real pseudo-terminal ------------------------------------


@pytest.fixture
def pty() -> Iterator[tuple[int, str]]:
    master, slave = os.openpty()
    yield master, os.ttyname(slave)
    os.close(master)
    os.close(slave)


def read_until(fd: int, marker: bytes, timeout: float = 60.0) -> bytes:
    """What the terminal showed, up to ``marker`` (the timeout only stops a hang)."""
    data = b""
    deadline = time.monotonic() + timeout
    while marker not in data and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            data += os.read(fd, 4096)
    return data


def answer_on(pty: tuple[int, str], reply: bytes | None, request: ApprovalRequest = REQ,
              timeout: float = 120.0) -> tuple[ApprovalAnswer, bytes]:
    """The approver's answer with a person replying at the terminal: it returns as soon as the
    reply is read, so ``timeout`` is a hang guard (5 s ran out beside CPU-bound processes)."""
    master, device = pty
    shown: list[bytes] = []

    def person() -> None:
        shown.append(read_until(master, b"Allow?"))
        if reply is not None:
            os.write(master, reply)

    thread = threading.Thread(target=person)
    thread.start()
    answer = TerminalApprover(timeout_s=timeout, device=device).approve(request)
    thread.join()
    return answer, shown[0]


@pytest.mark.parametrize(("reply", "expected"), [
    (b"y\n", ApprovalAnswer.ALLOW_ONCE), (b"yes\n", ApprovalAnswer.ALLOW_ONCE),
    (b"a\n", ApprovalAnswer.ALLOW_ALWAYS), (b"ALWAYS\n", ApprovalAnswer.ALLOW_ALWAYS),
    (b"n\n", ApprovalAnswer.DENY), (b"\n", ApprovalAnswer.DENY), (b"sure\n", ApprovalAnswer.DENY),
])
def test_terminal_answers(pty: tuple[int, str], reply: bytes, expected: ApprovalAnswer) -> None:
    answer, shown = answer_on(pty, reply)
    assert answer is expected
    assert b"npm publish" in shown
    assert b"CG-NET-010: publishes a package" in shown


def test_terminal_timeout_is_a_deny(pty: tuple[int, str]) -> None:
    answer, _ = answer_on(pty, None, timeout=0.3)  # nobody answers
    assert answer is ApprovalAnswer.DENY
    assert b"denied" in read_until(pty[0], b"denied")


def test_type_ahead_does_not_answer(pty: tuple[int, str]) -> None:
    master, device = pty
    os.write(master, b"y\n")
    time.sleep(0.05)
    assert TerminalApprover(timeout_s=0.3, device=device).approve(REQ) is ApprovalAnswer.DENY


def test_control_characters_are_shown_escaped(pty: tuple[int, str]) -> None:
    sneaky = ApprovalRequest("shell", {"command": "x"}, summary="rm -rf ~\x1b[2K\rls -l")
    answer, shown = answer_on(pty, b"n\n", request=sneaky)
    assert answer is ApprovalAnswer.DENY
    assert b"\x1b" not in shown
    assert b"rm -rf ~\\x1b[2K\\rls -l" in shown


@pytest.mark.parametrize("device", ["/nonexistent/tty", "file"])
def test_no_terminal_is_a_deny(tmp_path: Path, device: str) -> None:
    if device == "file":
        device = str(tmp_path / "not-a-tty")
        Path(device).write_text("y\n")
    assert TerminalApprover(timeout_s=1, device=device).approve(REQ) is ApprovalAnswer.DENY


# --- the store ------------------------------------------------------------------------


def test_store_round_trip(tmp_path: Path) -> None:
    ws, state = tmp_path / "ws", tmp_path / "state"
    ws.mkdir()
    store = ApprovalStore(ws, state_dir=state)
    assert not store.allows(REQ)
    entry = store.remember(REQ)
    store.remember(REQ)  # remembering twice keeps one entry
    again = ApprovalStore(ws, state_dir=state)  # a new process would see the same
    assert again.allows(REQ)
    assert [(e.id, e.tool, e.summary) for e in again.list()] == [(REQ.id, "shell", "npm publish")]
    assert not again.allows(ApprovalRequest("shell", {"command": "npm publish --tag x"}))
    assert not ApprovalStore(tmp_path, state_dir=state).allows(REQ)  # another workspace
    assert store.path.parent == state
    assert not store.path.is_relative_to(ws)
    assert again.revoke(entry.id)
    assert not again.revoke(entry.id)
    assert not store.allows(REQ)
    assert not [p for p in state.iterdir() if p.name.endswith(".tmp")]


def test_store_keeps_no_raw_secret(tmp_path: Path) -> None:
    token = "ghp_" + "S" * 36
    request = ApprovalRequest("shell", {"command": f"gh auth login --with-token {token}"},
                              summary=f"gh auth login --with-token {token}")
    store = ApprovalStore(tmp_path, state_dir=tmp_path / "state")
    store.remember(request)
    leaked = token in store.path.read_text()
    assert not leaked
    assert store.allows(request)


def test_corrupt_store_allows_nothing(tmp_path: Path) -> None:
    store = ApprovalStore(tmp_path, state_dir=tmp_path / "state")
    store.remember(REQ)
    store.path.write_text("{not json")
    assert not store.allows(REQ)
    with pytest.raises(ClawgateError, match="unreadable"):
        store.list()
    with pytest.raises(ClawgateError):
        store.remember(REQ)
    assert store.path.read_text() == "{not json"  # evidence is not overwritten


def test_seek_approval(tmp_path: Path) -> None:
    store = ApprovalStore(tmp_path, state_dir=tmp_path / "state")
    asked: list[str] = []

    def person(answer: ApprovalAnswer) -> CallbackApprover:
        return CallbackApprover(lambda r: asked.append(r.id) or answer)

    assert seek_approval(REQ, person(ApprovalAnswer.ALLOW_ONCE), store) is ApprovalAnswer.ALLOW_ONCE
    assert not store.allows(REQ)
    assert seek_approval(REQ, person(ApprovalAnswer.DENY), store) is ApprovalAnswer.DENY
    assert seek_approval(REQ, person(ApprovalAnswer.ALLOW_ALWAYS), store).allowed
    assert len(asked) == 3
    assert seek_approval(REQ, person(ApprovalAnswer.DENY), store) is ApprovalAnswer.ALLOW_ALWAYS
    assert len(asked) == 3  # remembered: nobody was asked
    # nobody who could say yes is there: a remembered grant is no way around that
    assert seek_approval(REQ, DenyAllApprover(), store) is ApprovalAnswer.DENY
    assert seek_approval(REQ, DenyAllApprover()) is ApprovalAnswer.DENY


def test_cli_list_and_revoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CLAWGATE_STATE_DIR", str(tmp_path / "state"))
    ws = tmp_path / "ws"
    ws.mkdir()
    ApprovalStore(ws).remember(REQ)
    assert main(["approvals", "list", "--workspace", str(ws)]) == 0
    out = capsys.readouterr()
    assert out.out.startswith(f"{REQ.id}  ")
    assert out.out.rstrip().endswith("shell  npm publish")
    assert main(["approvals", "list", "--json", "--workspace", str(ws)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [a["id"] for a in data["approvals"]] == [REQ.id]
    assert main(["approvals", "revoke", REQ.id, "--workspace", str(ws)]) == 0
    assert main(["approvals", "revoke", REQ.id, "--workspace", str(ws)]) == 2
    assert f"no approval {REQ.id}" in capsys.readouterr().err
    assert main(["approvals", "list", "--workspace", str(ws)]) == 0
    assert capsys.readouterr().out == ""
