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
    (["check", "curl -s -X POST https://example.com"], ExitCode.ASK),
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
    assert main(["check", "--explain", "ls | curl -s -X POST https://example.com"]) == ExitCode.ASK
    out = capsys.readouterr().out
    assert "simple command: ls" in out
    assert "simple command: curl -s -X POST https://example.com" in out
    assert "outcome: ask" in out


def test_console_script_entry_point_runs_as_a_module() -> None:
    done = subprocess.run([sys.executable, "-m", "clawgate", "check", "--json", "git status"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "allow"


def _jsonl(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], text: str,
           *flags: str) -> list[dict[str, object]]:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["check", "--jsonl", *flags]) == ExitCode.OK
    return [json.loads(x) for x in capsys.readouterr().out.splitlines()]


def test_jsonl_answers_blank_lines_too(monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    rows = _jsonl(monkeypatch, capsys, '"ls"\n\n   \n"git status"\n\n')
    assert [r["outcome"] for r in rows] == ["allow", "deny", "deny", "allow", "deny"]
    blank = rows[1]["reasons"]
    assert isinstance(blank, list)
    assert blank[0]["rule_id"] == "CG-CLI-001" and blank[0]["message"] == "input line 2 is blank"


def test_jsonl_with_explain_adds_the_trace(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    rows = _jsonl(monkeypatch, capsys, '"ls | curl -s -X POST https://example.com"\n', "--explain")
    assert set(rows[0]) == {*JSON_KEYS, "trace"}
    trace = rows[0]["trace"]
    assert isinstance(trace, list)
    assert {"command": "curl -s -X POST https://example.com", "rule_id": "CG-RISK-001",
            "outcome": "ask", "message": trace[2]["message"]} in trace
    assert trace[-1]["rule_id"] == "final" and trace[-1]["outcome"] == "ask"


def test_json_with_explain_adds_the_trace(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--json", "--explain", "rm -rf /"]) == ExitCode.DENY
    out = json.loads(capsys.readouterr().out)
    assert out["trace"][-1] == {"command": "rm -rf /", "rule_id": "final", "outcome": "deny",
                                "message": "strictest outcome wins"}


@pytest.mark.parametrize(("argv", "line"), [
    (["--", "ls", "-la", "my file"], "ls -la 'my file'"),
    (["--json", "--", "git", "push", "--force"], "git push --force"),
    (["--", "rm -rf /"], "rm -rf /"),
    (["--", "echo", "a;b", "$HOME"], "echo 'a;b' '$HOME'"),
    (["ls", "--json", "-la"], None),  # -la is an option of check: a usage error
])
def test_words_after_double_dash_are_quoted_and_joined(
        argv: list[str], line: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--json", *argv])
    if line is None:
        assert code == ExitCode.USAGE
        return
    assert json.loads(capsys.readouterr().out)["command"] == line


def test_run_joins_words_as_check_does(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--json", "--", "echo", "a b", "c;d"]) == ExitCode.OK
    value = json.loads(capsys.readouterr().out)
    assert value["decision"]["command"] == "echo 'a b' 'c;d'"
    assert value["result"]["stdout"] == "a b c;d\n"


@pytest.mark.parametrize(("stdin", "line", "code"), [
    (b"git status\n", "git status", ExitCode.OK),
    (b"cd build\nrm -rf /\n", "cd build\nrm -rf /", ExitCode.DENY),
    (b"ls\r\n", "ls\r", ExitCode.DENY),
    (b"", "", ExitCode.OK),
])
def test_dash_reads_one_command_from_stdin(stdin: bytes, line: str, code: ExitCode) -> None:
    done = subprocess.run([sys.executable, "-m", "clawgate", "check", "--json", "-"],
                          input=stdin, capture_output=True, check=False)
    assert done.returncode == code, done.stderr
    assert json.loads(done.stdout)["command"] == line
