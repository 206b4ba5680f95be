"""The audit chain is keyed and anchored: edit-and-rechain, a forged whole log, an edited last
line, cut-off lines and an emptied file all fail `verify`, in the library and the CLI."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest

from clawgate.audit import GENESIS, Anchor, AuditLog, AuditRecord, anchor_path, verify
from clawgate.cli import main
from clawgate.errors import ClawgateError
from clawgate.statedir import state_key

KEY = b"k" * 32


def write_log(path: Path, count: int = 4, key: bytes | None = None) -> None:
    with AuditLog(path, key=key) as log:
        for n in range(count):
            log.append(AuditRecord("s", "a", "exec_shell", {"command": f"echo {n}"}, "allow"))


def rechain(lines: list[bytes], key: bytes) -> list[bytes]:
    """What a forger does: recompute every prev and mac, with the key it has."""
    out: list[bytes] = []
    prev = GENESIS
    for raw in lines:
        entry = json.loads(raw)
        entry.pop("mac", None)
        entry["prev"] = prev
        body = json.dumps(entry, separators=(",", ":")).encode()
        mac = hmac.new(key, body, hashlib.sha256).hexdigest()
        line = body[:-1] + f',"mac":"{mac}"}}'.encode()
        out.append(line)
        prev = hmac.new(key, line, hashlib.sha256).hexdigest()
    return out


@pytest.mark.parametrize("forger_key", [b"x" * 32, b""])
def test_edit_and_rechain_without_the_key_fails(tmp_path: Path, forger_key: bytes) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path, key=KEY)
    lines = path.read_bytes().splitlines()
    lines[1] = lines[1].replace(b'"outcome":"allow"', b'"outcome":"deny"')
    path.write_bytes(b"\n".join(rechain(lines, forger_key)) + b"\n")
    result = verify(path, key=KEY)
    assert (result.ok, result.first_bad_line) == (False, 1)
    assert "mac does not match" in result.why


def test_a_forged_whole_log_fails(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path, key=b"y" * 32)  # a log somebody made with their own key
    assert not verify(path, key=KEY).ok


def test_editing_the_last_line_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path, key=KEY)
    lines = path.read_bytes().splitlines()
    lines[-1] = lines[-1].replace(b"echo 3", b"echo 4")
    path.write_bytes(b"\n".join(lines) + b"\n")
    result = verify(path, key=KEY)
    assert (result.ok, result.first_bad_line) == (False, 4)


def test_the_right_key_and_the_anchor_hold(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path)
    anchor = json.loads(anchor_path(path).read_text())
    assert (anchor["lines"], anchor["log"]) == (4, str(path.resolve()))
    assert verify(path, anchor=Anchor(anchor["lines"], anchor["head"])).ok


@pytest.mark.parametrize("cut", ["truncate", "empty", "drop-last"])
def test_cut_off_lines_fail_against_the_anchor(tmp_path: Path, cut: str) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path)
    stored = json.loads(anchor_path(path).read_text())
    anchor = Anchor(stored["lines"], stored["head"])
    lines = path.read_bytes().splitlines()
    kept = {"truncate": lines[:2], "empty": [], "drop-last": lines[:-1]}[cut]
    path.write_bytes(b"".join(line + b"\n" for line in kept))
    assert verify(path).ok  # the chain alone cannot see it
    result = verify(path, anchor=anchor)
    assert not result.ok
    assert "cut off" in result.why


def test_verify_needs_the_key_and_never_mints_one(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path)
    monkeypatch.setenv("CLAWGATE_STATE_HOME", str(tmp_path / "elsewhere"))
    with pytest.raises(ClawgateError, match="no such key"):
        verify(path)
    assert not (tmp_path / "elsewhere" / "keys" / "audit.key").exists()


def test_a_key_others_can_read_is_refused(tmp_path: Path) -> None:
    state_key("probe", root=tmp_path)
    key_file = tmp_path / "keys" / "probe.key"
    key_file.chmod(0o644)
    with pytest.raises(ClawgateError, match="mode 0600"):
        state_key("probe", root=tmp_path)


def test_cli_anchor_and_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path)
    assert main(["audit", "anchor", str(path)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["lines"] == 4
    kept = tmp_path / "anchor.json"
    kept.write_text(json.dumps(printed))
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:3]))
    anchor_path(path).unlink()  # the attacker removed the stored anchor too
    assert main(["audit", "verify", str(path)]) == 0  # nothing to compare with
    capsys.readouterr()
    assert main(["audit", "verify", "--anchor", str(kept), str(path)]) == 4
    assert "cut off" in capsys.readouterr().out
    assert main(["audit", "verify", "--anchor", f"4:{printed['head']}", str(path)]) == 4
    assert main(["audit", "verify", "--anchor", "bogus:x", str(path)]) == 2


def test_cli_verify_uses_the_stored_anchor(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "audit.jsonl"
    write_log(path)
    path.write_bytes(b"")
    assert main(["audit", "verify", str(path)]) == 4
    assert "emptied" in capsys.readouterr().out
