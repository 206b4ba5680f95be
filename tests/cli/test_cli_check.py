"""``policy check``: every exit code, the JSON shape, JSONL streaming and the explanation."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from clawgate.cli import main
from clawgate.cli.exitcodes import ExitCode, for_outcome
from clawgate.decision import Outcome

JSON_KEYS = {"command", "outcome", "risk", "misparsing", "reasons"}
REASON_KEYS = {"rule_id", "message", "hint", "command"}


@pytest.mark.parametrize(("argv", "code"), [
    (["check", "git status"], ExitCode.OK),
    (["check", "curl -s https://example.com"], ExitCode.ASK),
    (["check", "ls\x00x"], ExitCode.DENY),
    (["check"], ExitCode.USAGE),
    (["check", "--no-such-flag", "ls"], ExitCode.USAGE),
    (["nonsense"], ExitCode.USAGE),
    (["check", "--policy", "/nonexistent/policy.yaml", "ls"], ExitCode.USAGE),
])
def test_exit_codes(argv: list[str], code: ExitCode) -> None:
    assert main(argv) == code


def test_internal_error_is_exit_1_with_one_line(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import clawgate.cli.check as check_module

    def broken(policies: object) -> object:
        raise RuntimeError("engine could not be built")

    monkeypatch.setattr(check_module, "load_engine", broken)
    assert main(["check", "ls"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" in err


def test_every_outcome_has_an_exit_code() -> None:
    assert {for_outcome(o) for o in Outcome} == {ExitCode.OK, ExitCode.ASK, ExitCode.DENY}
    assert for_outcome(Outcome.ALLOW) is ExitCode.OK
    assert for_outcome(Outcome.ASK) is ExitCode.ASK
    assert for_outcome(Outcome.DENY) is ExitCode.DENY


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--json", "--", "ls\x00"]) == ExitCode.DENY
    out = json.loads(capsys.readouterr().out)
    assert set(out) == JSON_KEYS
    assert out["outcome"] == "deny" and out["misparsing"] is True
    assert out["risk"] in {"low", "medium", "high"}
    assert all(set(r) == REASON_KEYS for r in out["reasons"])
    assert out["reasons"][0]["rule_id"] == "CG-HYG-001"


def test_jsonl_in_order_with_newlines_cr_and_nul(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import io

    lines = [json.dumps("git status"), json.dumps({"command": "echo a\nls"}),
             json.dumps("echo a\rb"), json.dumps({"command": "a\x00b"}), "not json",
             json.dumps({"no": "command"})]
    stdin = io.TextIOWrapper(io.BytesIO(("\n".join(lines) + "\n").encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["check", "--jsonl"]) == ExitCode.OK
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["outcome"] for r in rows] == ["allow", "allow", "deny", "deny", "deny", "deny"]
    assert rows[1]["command"] == "echo a\nls"
    assert rows[3]["command"] == "a\x00b"
    assert rows[4]["reasons"][0]["rule_id"] == "CG-CLI-001"
    assert all(set(r) == JSON_KEYS for r in rows)


def test_explain_shows_each_simple_command_and_the_winner(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--explain", "ls | curl -s https://example.com"]) == ExitCode.ASK
    out = capsys.readouterr().out
    assert "simple command: ls" in out
    assert "simple command: curl -s https://example.com" in out
    assert "outcome: ask" in out


def test_console_script_entry_point_runs_as_a_module() -> None:
    done = subprocess.run([sys.executable, "-m", "clawgate", "check", "--json", "git status"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "allow"
