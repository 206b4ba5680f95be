"""``policy import``: every rule keeps its meaning in a manifest the real loader takes, or the
import stops with ``file:line``; ``--allow-lossy`` writes what it drops as comments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawgate.cli import main
from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.integrations.claude_code import ClaudeCode
from clawgate.integrations.hooks import HookOptions, answer
from clawgate.policy.importer import detect, from_claude, from_codex, from_gemini

CLAUDE = """{
  "permissions": {
    "allow": ["Bash(npm run test:*)", "Bash(git status)", "Read(./src/**)", "Bash(git diff *)",
              "Bash(ls*)", "WebFetch(domain:docs.python.org)", "mcp__notes__search"],
    "ask": ["Bash(git push:*)", "Bash(docker run * --privileged)"],
    "deny": ["Bash(rm -rf:*)", "Read(./.env)", "Edit(//etc/**)",
             "WebFetch(domain:evil.example)", "mcp__trash", "WebSearch"]
  }
}"""
CLAUDE_DENY_ALL = json.dumps({"permissions": {"allow": ["Bash(git status)"], "deny": ["Bash"]}})
CODEX = '''"""Codex rules."""
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
commandPrefix = "rm"
decision = "deny"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "terraform apply"
decision = "ask_user"

[[rule]]
toolName = "web_fetch"
decision = "deny"
'''


def imported_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str,
                    *flags: str) -> Path:
    source = tmp_path / name
    source.write_text(text)
    assert main(["import", *flags, str(source)]) == 0
    manifest = tmp_path / "imported.yaml"
    manifest.write_text(capsys.readouterr().out)
    return manifest


def hook(manifest: Path, workspace: Path, tool: str, tool_input: dict[str, object]) -> str:
    raw = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(workspace),
                      "tool_name": tool, "tool_input": tool_input})
    decided = answer(ClaudeCode(), raw, HookOptions(policies=(str(manifest),),
                                                    workspace=str(workspace)))
    return str(decided["hookSpecificOutput"]["permissionDecision"])


# The source's decision for each command, as Claude Code / Codex / Gemini CLI would make it.
@pytest.mark.parametrize(("name", "text", "table"), [
    ("settings.json", CLAUDE, [
        ("npm run test --watch", Outcome.ALLOW), ("git status", Outcome.ALLOW),
        ("git diff HEAD", Outcome.ALLOW), ("lsof", Outcome.ALLOW),
        ("git push origin main", Outcome.ASK), ("docker run --rm --privileged x", Outcome.ASK),
        ("rm -rf build", Outcome.DENY), ("rm -fr build", Outcome.DENY)]),
    ("settings.json", CLAUDE_DENY_ALL, [
        ("git status", Outcome.DENY), ("ls", Outcome.DENY), ("echo hi", Outcome.DENY)]),
    ("default.rules", CODEX, [
        ("git push origin main", Outcome.ASK), ("git fetch", Outcome.ASK),
        ("rm -rf x", Outcome.DENY), ("rm --recursive --force x", Outcome.DENY),
        ("ls -la", Outcome.ALLOW)]),
    ("policy.toml", GEMINI, [
        ("git status", Outcome.ALLOW), ("git log -n 3", Outcome.ALLOW),
        ("rm notes.txt", Outcome.DENY), ("terraform apply -auto-approve", Outcome.ASK)]),
])
def test_round_trip_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                             text: str, table: list[tuple[str, Outcome]]) -> None:
    engine = Engine.from_files(imported_engine(tmp_path, capsys, name, text, "--allow-lossy"))
    assert [(line, engine.check(line).outcome) for line, _ in table] == table


@pytest.mark.parametrize(("text", "tool", "tool_input", "expected"), [
    (CLAUDE, "Read", {"file_path": ".env"}, "deny"),
    (CLAUDE, "Read", {"file_path": "src/main.py"}, "allow"),
    (CLAUDE, "Write", {"file_path": "/etc/hosts", "content": "x"}, "deny"),
    (CLAUDE, "WebFetch", {"url": "https://evil.example/x", "prompt": "p"}, "deny"),
    (CLAUDE, "WebFetch", {"url": "https://other.example/x", "prompt": "p"}, "deny"),
    (CLAUDE, "WebSearch", {"query": "q"}, "deny"),
    (CLAUDE, "mcp__trash__empty", {}, "deny"),
    (CLAUDE, "mcp__notes__search", {"q": "x"}, "allow"),
    (CLAUDE_DENY_ALL, "Bash", {"command": "git status"}, "deny"),
    (CLAUDE_DENY_ALL, "Read", {"file_path": "notes.txt"}, "allow"),
])
def test_round_trip_claude_tools(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                                 tool: str, tool_input: dict[str, object], expected: str) -> None:
    manifest = imported_engine(tmp_path, capsys, "settings.json", text)
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    assert hook(manifest, workspace, tool, tool_input) == expected


def test_claude_rules_and_notes() -> None:
    imported = from_claude(CLAUDE)
    assert imported.dropped == []
    assert imported.tools_deny == ["mcp:trash", "web_search"]
    assert imported.also_allow == ["notes__search"]
    assert imported.forbidden == [".env", "/etc"]
    assert (imported.allowed_domains, imported.blocked_domains) == (
        ["docs.python.org"], ["evil.example"])
    table = {r["id"]: (r["command"], r["decision"], r.get("exact", False))
             for r in imported.rules}
    assert table == {
        "claude-allow-npm-run-test": (["npm", "run", "test"], "allow", False),
        "claude-allow-git-status": (["git", "status"], "allow", True),
        "claude-allow-git-diff": (["git", "diff"], "allow", False),
        "claude-allow-ls": (["ls*"], "allow", False),
        "claude-ask-git-push": (["git", "push"], "ask", False),
        "claude-ask-docker-run-privileged": (["docker", "run", "--privileged"], "ask", False),
        "claude-deny-rm-rf": (["rm", "-rf"], "deny", False),
    }
    assert "line 3: Read(./src/**): kept: inside the workspace" in imported.notes[0]


@pytest.mark.parametrize(("rule", "forbidden"), [
    ("Read(./.env)", ".env"), ("Read(.env)", ".env"), ("Read(./)", "."), ("Read(./**)", "."),
    ("Edit(secrets/**)", "secrets"), ("Read(~/.aws/**)", "~/.aws"), ("Read(//etc/shadow)",
                                                                      "/etc/shadow"),
    ("Read(///)", "/"), ("Read(//**)", "/"),
])
def test_a_denied_path_is_forbidden(rule: str, forbidden: str) -> None:
    assert from_claude(json.dumps({"permissions": {"deny": [rule]}})).forbidden == [forbidden]


def test_a_deny_of_every_command_stays_one() -> None:
    imported = from_claude(CLAUDE_DENY_ALL)
    assert imported.tools_deny == ["exec_shell"]
    assert [(r["command"], r["decision"]) for r in imported.rules] == [
        (["git", "status"], "allow"), (["*"], "deny")]


def test_codex() -> None:
    imported = from_codex(CODEX)
    assert [(r["command"], r["decision"]) for r in imported.rules] == [
        (["git", ["push", "fetch"]], "ask"), (["rm", "-rf"], "deny"), (["ls"], "allow")]
    assert imported.rules[0]["examples"] == {"match": ["git push origin main", "git fetch"],
                                             "not_match": ["git status"]}
    assert imported.rules[0]["why"] == "talks to the remote"


def test_gemini() -> None:
    imported = from_gemini(GEMINI)
    assert [(r["command"], r["decision"]) for r in imported.rules] == [
        (["git", "status"], "allow"), (["git", "log"], "allow"), (["rm"], "deny"),
        (["terraform", "apply"], "ask")]
    assert imported.tools_deny == ["web_fetch"]


UNREADABLE = [
    ("bad.json", "auto", "{bad", "bad.json:1: not valid JSON: Expecting property name"),
    ("bad.json", "auto", '{\n  "permissions": {"allow": [\n "Bash(ls)",,]}}',
     "bad.json:3: not valid JSON"),
    ("notes.txt", "auto", "hello world\n", "notes.txt:1: 'hello world' is not a Claude Code"),
    ("policy.toml", "codex", GEMINI, "policy.toml:2: not a Codex rules file"),
    ("policy.toml", "claude", GEMINI, "policy.toml:2: not valid JSON"),
    ("settings.json", "gemini", CLAUDE, "settings.json:1: not valid TOML"),
    ("x.rules", "auto", "prefix_rule(pattern=[\n", "x.rules:1: not a Codex rules file"),
    ("empty.json", "auto", "{}", "empty.json:1: no permission rules"),
    ("empty.rules", "auto", "# nothing\n", "empty.rules:1: no prefix_rule"),
    ("empty.toml", "auto", "", "empty.toml:1: a Gemini CLI policy file holds [[rule]]"),
    ("perm.json", "auto", '{"permissions": ["Bash"]}', "perm.json:1: 'permissions' must be"),
]


@pytest.mark.parametrize(("name", "kind", "text", "said"), UNREADABLE)
def test_unreadable_input_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           name: str, kind: str, text: str, said: str) -> None:
    source = tmp_path / name
    source.write_text(text)
    assert main(["import", "--from", kind, "--allow-lossy", str(source)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"{tmp_path}/{said}")
    assert err.count("\n") == 1


LOSSY = [
    ("settings.json", json.dumps({"permissions": {"deny": ["Read(**/.env)"]}}), 1,
     "Read(**/.env)", "clawgate forbids whole directories or files, not glob patterns"),
    ("settings.json", json.dumps({"permissions": {"deny": ["Bash(run_in_background:true)"]}}),
     1, "Bash(run_in_background:true)", "a Tool(parameter:value) rule"),
    ("settings.json", json.dumps({"permissions": {"deny": ["Read(src**)"]}}), 1,
     "Read(src**)", "clawgate forbids whole directories or files, not glob patterns"),
    ("settings.json", json.dumps({"permissions": {"ask": ["Read(./secrets)"]}}), 1,
     "Read(./secrets)", "clawgate cannot ask before a path is used"),
    ("settings.json", json.dumps({"permissions": {"allow": ["Bash(git * main)"]}}), 1,
     "Bash(git * main)", "a * inside the pattern may span several words"),
    ("settings.json", json.dumps({"permissions": {"allow": ["Read(//home/x)"]}}), 1,
     "Read(//home/x)", "clawgate allows no path outside the workspace"),
    ("settings.json", json.dumps({"permissions": {"deny": ["Frobnicate"]}}), 1,
     "Frobnicate", "clawgate does not know the Claude Code tool 'Frobnicate'"),
    ("settings.json", json.dumps({"permissions": {"ask": ["WebFetch(domain:x.example)"]}}), 1,
     "WebFetch(domain:x.example)", "clawgate can only allow or block plain domain names"),
    ("settings.json", json.dumps({"permissions": {"defaultMode": "plan"}}), 1,
     'permissions.defaultMode: "plan"', "not a permission rule"),
    ("settings.json", json.dumps({"permissions": {"allow": ["Bash(git push --force=1)"]}}), 1,
     "Bash(git push --force=1)", "match the flag name only"),
    ("a.rules", 'prefix_rule(pattern=["x"], decision="maybe")\n', 1,
     'prefix_rule(pattern=["x"], decision="maybe")', "decision 'maybe' is not allow"),
    ("a.rules", 'x = 1\nprefix_rule(pattern=["ls"])\nhost_rule(h="x")\n', None, "", ""),
    ("p.toml", '[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "rm .*"\n'
     'decision = "deny"\n', 1, "", "commandRegex cannot be expressed"),
    ("p.toml", '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git"\n'
     'decision = "deny"\npriority = 1\n\n[[rule]]\ntoolName = "run_shell_command"\n'
     'commandPrefix = "git status"\ndecision = "allow"\npriority = 5\n', 7, "",
     "outranks the stricter rule on line 1 (priority)"),
]


@pytest.mark.parametrize(("name", "text", "line", "rule", "why"), LOSSY)
def test_a_rule_clawgate_cannot_express_stops_or_is_a_comment(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str,
        line: int | None, rule: str, why: str) -> None:
    source = tmp_path / name
    source.write_text(text)
    if line is None:  # not a rules file at all: no --allow-lossy makes it one
        assert main(["import", "--allow-lossy", str(source)]) == 2
        assert capsys.readouterr().err.startswith(f"{source}:1: not a Codex rules file")
        return
    assert main(["import", str(source)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    first = err.splitlines()[0]
    assert first.startswith(f"{source}:{line}: cannot import {rule}")
    assert why in first
    assert main(["import", "--allow-lossy", str(source)]) == 0
    out, err = capsys.readouterr()
    comments = [c for c in out.splitlines() if c.startswith("# dropped: ")]
    assert len(comments) == 1
    assert comments[0].startswith(f"# dropped: line {line}: {rule}")
    assert why in comments[0]
    assert err == ("policy import: dropped 1 rules that clawgate cannot express "
                   "(see comments)\n")
    manifest = tmp_path / "out.yaml"
    manifest.write_text(out)
    Engine.from_files(manifest)  # what was kept loads


def test_a_stricter_exact_rule_under_a_prefix_allow_stops(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    source = tmp_path / "settings.json"
    source.write_text('{"permissions": {\n"allow": ["Bash(git push:*)"],\n'
                      '"deny": ["Bash(git push)"]}}')
    assert main(["import", str(source)]) == 2
    assert capsys.readouterr().err.startswith(
        f"{source}:2: cannot import Bash(git push:*): the exact deny rule on line 3")


@pytest.mark.parametrize(("name", "text", "kind"), [
    ("settings.json", CLAUDE, "claude"), ("default.rules", CODEX, "codex"),
    ("policy.toml", GEMINI, "gemini")])
def test_detect(name: str, text: str, kind: str) -> None:
    assert detect(name, text) == kind


def test_gemini_every_command_and_priorities() -> None:
    text = ('[[rule]]\ntoolName = "run_shell_command"\ndecision = "deny"\npriority = 1\n\n'
            '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git status"\n'
            'decision = "allow"\npriority = 0\n\n'
            '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "ls"\n'
            'decision = "allow"\npriority = 9\n')
    imported = from_gemini(text)
    assert imported.tools_deny == ["exec_shell"]
    assert [(r["command"], r["decision"]) for r in imported.rules] == [
        (["*"], "deny"), (["git", "status"], "allow")]
    assert [(d.line, d.why) for d in imported.dropped] == [
        (12, "outranks the stricter rule on line 1 (priority); in clawgate the strictest rule "
             "wins")]
