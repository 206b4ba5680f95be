"""The audit log: chaining, threads, a killed writer, tampering, and the CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from clawgate.audit import GENESIS, AuditLog, AuditRecord, VerifyResult, verify
from clawgate.audit import line_hash as keyed_hash
from clawgate.cli import main
from clawgate.decision import Reason
from clawgate.statedir import state_key

SRC = str(Path(__file__).resolve().parents[2] / "src")


def record(n: int = 0, **extra: object) -> AuditRecord:
    return AuditRecord(session="s1", agent="coder", tool="shell",
                       args={"command": f"echo {n}", **extra}, outcome="allow",
                       reasons=(Reason("CG-TEST-001", "fine"),),
                       result={"exit_code": 0, "bytes": 2}, duration_ms=1.23456)


def line_hash(line: bytes) -> str:
    return keyed_hash(state_key("audit"), line)


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def test_lines_are_chained_and_complete(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditLog(path, clock=lambda: 1_700_000_000.5) as log:
        hashes = [log.append(record(n)) for n in range(3)]
        assert log.head() == hashes[-1]
    raw = lines_of(path)
    entries = [json.loads(line) for line in raw]
    assert [e["prev"] for e in entries] == [GENESIS, line_hash(raw[0]), line_hash(raw[1])]
    assert hashes == [line_hash(line) for line in raw]
    assert entries[0] == {
        "time": "2023-11-14T22:13:20.500Z", "session": "s1", "agent": "coder", "tool": "shell",
        "args": {"command": "echo 0"},
        "decision": {"outcome": "allow", "reasons": [{"rule_id": "CG-TEST-001",
                     "message": "fine", "hint": None, "command": None}]},
        "result": {"exit_code": 0, "bytes": 2}, "duration_ms": 1.235, "prev": GENESIS,
        "mac": entries[0]["mac"],
    }
    assert verify(path) == VerifyResult(True, 3, None, "3 lines, chain intact")
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_secrets_in_arguments_are_scrubbed(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    token = "ghp_" + "Z9" * 18
    with AuditLog(path) as log:
        log.append(record(1, header=f"Authorization: token {token}", password="pw-123456"))
    text = path.read_text()
    leaked = token in text or "pw-123456" in text
    assert not leaked
    assert "[REDACTED:" in text


def test_integrity_under_eight_threads_and_two_handles(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    logs = [AuditLog(path), AuditLog(path)]  # two descriptors: flock must order them too

    def work(index: int) -> None:
        for n in range(25):
            logs[index % 2].append(record(index * 100 + n))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for log in logs:
        log.close()
    assert verify(path) == VerifyResult(True, 200, None, "200 lines, chain intact")
    commands = sorted(json.loads(line)["args"]["command"] for line in lines_of(path))
    assert commands == sorted(f"echo {i * 100 + n}" for i in range(8) for n in range(25))


CHILD = """
import os, sys, time
from clawgate.audit import AuditLog, AuditRecord
path = sys.argv[1]
with AuditLog(path) as log:
    for n in range(3):
        log.append(AuditRecord("s", "a", "shell", {"n": n}, "allow"))
# what a writer killed inside write() leaves: the first part of a record, no newline
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
os.write(fd, b'{"time":"2026-01-01T00:00:00.000Z","session":"s","agent":"a","tool":"sh')
print("mid-line", flush=True)
time.sleep(60)
"""


def test_writer_killed_mid_line_is_reported_then_sealed(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    env = {**os.environ, "PYTHONPATH": SRC}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], env=env,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline() == "mid-line\n"
    child.send_signal(signal.SIGKILL)
    assert child.wait(timeout=10) == -signal.SIGKILL
    child.stdout.close()

    torn = verify(path)
    assert (torn.ok, torn.first_bad_line) == (False, 4)
    assert torn.why.startswith("torn line")

    with AuditLog(path) as log:  # the next writer seals the fragment and keeps going
        log.append(record(9))
    raw = lines_of(path)
    assert len(raw) == 6
    seal, last = json.loads(raw[4]), json.loads(raw[5])
    assert seal["event"] == "torn-line-sealed"
    assert seal["torn_bytes"] == len(raw[3])
    assert seal["prev"] == line_hash(raw[3])
    assert last["prev"] == line_hash(raw[4])
    after = verify(path)
    assert (after.ok, after.first_bad_line) == (False, 4)  # the evidence stays visible
    assert verify(path, start=5).ok


def tampered(path: Path, change: str) -> list[bytes]:
    raw = lines_of(path)
    if change == "edit":
        raw[1] = raw[1].replace(b'"tool":"shell"', b'"tool":"read"')
    elif change == "delete":
        del raw[1]
    elif change == "swap":
        raw[1], raw[2] = raw[2], raw[1]
    elif change == "insert":
        raw.insert(2, raw[1])
    elif change == "first-prev":
        raw[0] = raw[0].replace(GENESIS.encode(), b"1" * 64)
    elif change == "garbage":
        raw[2] = b"not json"
    return raw


@pytest.mark.parametrize(("change", "bad_line"), [
    ("edit", 2), ("delete", 2), ("swap", 2), ("insert", 3), ("first-prev", 1), ("garbage", 3),
])
def test_tampering_is_detected(tmp_path: Path, change: str, bad_line: int) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditLog(path) as log:
        for n in range(4):
            log.append(record(n))
    path.write_bytes(b"\n".join(tampered(path, change)) + b"\n")
    result = verify(path)
    assert (result.ok, result.first_bad_line) == (False, bad_line)


def test_cli_verify_and_tail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditLog(path) as log:
        for n in range(4):
            log.append(record(n))
    assert main(["audit", "verify", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: intact (4 lines, chain intact, anchor holds)\n"

    assert main(["audit", "tail", "-n", "2", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["args"]["command"] for line in out] == ["echo 2", "echo 3"]

    path.write_bytes(b"\n".join(tampered(path, "edit")) + b"\n")
    assert main(["audit", "verify", "--json", str(path)]) == 4
    captured = capsys.readouterr()
    assert f"{path}:2: its mac does not match" in captured.err
    assert json.loads(captured.out)["first_bad_line"] == 2
    assert main(["audit", "verify", str(path)]) == 4
    assert capsys.readouterr().out.startswith(f"{path}:2: its mac does not match")

    assert main(["audit", "verify", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["audit", "tail", str(tmp_path / "missing.jsonl")]) == 2


WRITER = """
import sys
from clawgate.audit import AuditLog, AuditRecord
with AuditLog(sys.argv[1]) as log:
    for n in range(30):
        log.append(AuditRecord("s", sys.argv[2], "shell", {"n": n}, "allow"))
"""


def test_integrity_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    env = {**os.environ, "PYTHONPATH": SRC}
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"p{i}"], env=env)
               for i in range(3)]
    assert [w.wait(timeout=60) for w in writers] == [0, 0, 0]
    assert verify(path) == VerifyResult(True, 90, None, "90 lines, chain intact")
    agents = [json.loads(line)["agent"] for line in lines_of(path)]
    assert sorted(set(agents)) == ["p0", "p1", "p2"]
