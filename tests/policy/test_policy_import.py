"""``policy import``: Claude Code, Codex and Gemini CLI rules into manifests that load."""

from __future__ import annotations

import json

import pytest

from clawgate.cli import main
from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.policy.importer import detect, from_claude, from_codex, from_gemini

CLAUDE = json.dumps({"permissions": {
    "allow": ["Bash(npm run test:*)", "Bash(git status)", "Read(./src/**)", "Bash(git diff *)"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Bash(rm -rf:*)", "Bash"],
}})
CODEX = '''
prefix_rule(
    pattern = ["git", ["push", "fetch"]],
    decision = "prompt",
    justification = "talks to the remote",
    match = ["git push origin main", ["git", "fetch"]],
    not_match = ["git status"],
)
prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")
prefix_rule(pattern = ["ls"])
'''
GEMINI = '''
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status", "git log"]
decision = "allow"
priority = 10

[[rule]]
toolName = "run_shell_command"
commandRegex = "rm .*"
decision = "deny"

[[rule]]
toolName = "read_file"
decision = "allow"
'''


def test_claude():
    imported = from_claude(CLAUDE)
    table = {r["id"]: (r["command"], r["decision"], r.get("exact", False))
             for r in imported.rules}
    assert table == {
        "claude-deny-rm-rf": (["rm", "-rf"], "deny", False),
        "claude-ask-git-push": (["git", "push"], "ask", False),
        "claude-allow-npm-run-test": (["npm", "run", "test"], "allow", False),
        "claude-allow-git-status": (["git", "status"], "allow", True),
        "claude-allow-git-diff": (["git", "diff"], "allow", False),
    }
    assert imported.skipped == ["Bash: a rule for every command is not imported"]


def test_codex():
    imported = from_codex(CODEX)
    assert [(r["command"], r["decision"]) for r in imported.rules] == [
        (["git", ["push", "fetch"]], "ask"), (["rm", "-rf"], "deny"), (["ls"], "allow")]
    assert imported.rules[0]["examples"] == {"match": ["git push origin main", "git fetch"],
                                             "not_match": ["git status"]}
    assert imported.rules[0]["why"] == "talks to the remote"


def test_gemini():
    imported = from_gemini(GEMINI)
    assert [(r["command"], r["decision"]) for r in imported.rules] == [
        (["git", "status"], "allow"), (["git", "log"], "allow")]
    assert "commandRegex" in imported.skipped[0]


@pytest.mark.parametrize(("name", "text", "kind"), [
    ("settings.json", CLAUDE, "claude"), ("default.rules", CODEX, "codex"),
    ("policy.toml", GEMINI, "gemini")])
def test_cli_output_loads_and_decides(tmp_path, capsys, name, text, kind):
    source = tmp_path / name
    source.write_text(text)
    assert detect(name, text) == kind
    assert main(["import", str(source)]) == 0
    manifest = tmp_path / "imported.yaml"
    manifest.write_text(capsys.readouterr().out)
    engine = Engine.from_files(manifest)
    if kind == "claude":
        assert engine.check("rm -fr build").outcome is Outcome.DENY
        assert engine.check("git push origin").outcome is Outcome.ASK
    if kind == "codex":
        assert engine.check("rm --recursive --force x").outcome is Outcome.DENY
    assert engine.check("git status").outcome is Outcome.ALLOW
