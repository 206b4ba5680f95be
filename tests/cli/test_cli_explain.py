"""``policy explain-program``: text and JSON of what the catalog knows, and unknown names."""

from __future__ import annotations

import json

import pytest

from clawgate.cli import main
from clawgate.cli.exitcodes import ExitCode


def test_text_names_options_tiers_and_examples(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain-program", "git"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "unique prefixes of long options accepted" in out
    assert "push: high" in out
    assert "--output: writes the file it is given" in out
    assert "git log --outp=/etc/x  -> ASK" in out


def test_json_by_alias(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain-program", "gsed", "--json"]) == ExitCode.OK
    info = json.loads(capsys.readouterr().out)
    assert info["program"] == "sed"
    assert info["language"] == "sed"
    assert "-e" in info["options"]["code"]
    assert all(row["decision"] in ("allow", "ask", "deny") for row in info["examples"])


def test_unknown_program(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain-program", "no-such-tool"]) == ExitCode.USAGE
    assert "does not know" in capsys.readouterr().err


@pytest.mark.parametrize(("line", "code", "rule"), [
    ("rm -rf /", ExitCode.DENY, "CG-"),
    ("git push -f origin main", ExitCode.ASK, "policy:default.yaml#git-force-push"),
    ("ls -la", ExitCode.OK, "final"),
])
def test_explain_is_check_with_its_trace(line: str, code: ExitCode, rule: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--json", line]) == code
    shown = json.loads(capsys.readouterr().out)
    assert main(["check", "--explain", "--json", line]) == code
    assert json.loads(capsys.readouterr().out) == shown
    assert any(entry["rule_id"].startswith(rule) for entry in shown["trace"])


def test_a_program_known_from_data_shows_its_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain-program", "fzf"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "learned from data: fish-shell share/completions/fzf.fish at " in out
    assert "--preview: runs the command it is given" in out
    assert "  examples:\n" in out


def test_json_of_a_program_known_from_a_manual_page(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain-program", "gpgtar", "--json"]) == ExitCode.OK
    info = json.loads(capsys.readouterr().out)
    assert info["source"]["project"] == "Debian manual pages"
    assert info["source"]["path"] == "/usr/share/man/man1/gpgtar.1.gz"
    assert info["source"]["package"].startswith("gnupg-utils ")
    assert "-o" in info["options"]["write"]
