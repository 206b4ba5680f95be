"""``policy lint``: findings, their lines and the exit codes (0 clean, 3 warnings, 2 errors)."""

from __future__ import annotations

import pytest

from clawgate.cli import main
from clawgate.policy.embedded import policies_dir
from clawgate.policy.lint import lint_file
from clawgate.policy.redos import catastrophic

MESSY = """\
version: 1
tools:
  allow: [group:fs, exec_shel, claude-flow__memory_*, gh__issue]
  deny: [web_fetch]
  alsoAllow: [group:web]
  agents: {bot: {allow: []}}
shell:
  rules:
    - {id: push, command: [git, push], decision: deny, why: x}
    - {id: push-f, command: [git, push, -f], decision: ask, why: y}
    - {id: py, command: [python3], decision: allow, why: z}
    - {id: re, command: [grep, {re: "(a+)+$"}], decision: deny, why: z}
    - {id: again, command: [git, push, origin], decision: deny, why: z}
"""


def test_findings_with_lines(write):
    found = [(f.line, f.level, f.message.split(": ")[0]) for f in lint_file(str(write(MESSY)))]
    assert found == [
        (3, "warning", "MCP tool 'gh__issue'"),
        (3, "error", "unknown tool 'exec_shel'"),
        (5, "warning", "alsoAllow 'group:web' re-adds web_fetch that deny removes"),
        (6, "warning", "an empty allow list allows nothing"),
        (10, "warning", "rule push-f"),
        (11, "warning", "rule py"),
        (12, "error", "rule re"),
        (13, "warning", "rule again"),
    ]
    messages = " ".join(f.message for f in lint_file(str(write(MESSY))))
    assert "unreachable: policy:p.yaml#push (deny)" in messages
    assert "shadowed: policy:p.yaml#push already" in messages


@pytest.mark.parametrize(("text", "code"), [
    ("version: 1\ntools: {deny: [web_fetch]}\n", 0),
    ("version: 1\nshell: {rules: [{id: b, command: [bash], decision: allow, why: w}]}\n", 3),
    ("version: 1\ntools: {deny: [nope]}\n", 2),
    ("version: 1\nautonomy: yolo\n", 2),
])
def test_exit_codes(write, capsys, text, code):
    assert main(["lint", str(write(text))]) == code
    out = capsys.readouterr().out
    assert (out == "") is (code == 0)


def test_shipped_policies_are_clean(capsys):
    import glob
    import os

    files = sorted(glob.glob(os.path.join(policies_dir(), "*.yaml")))
    assert len(files) == 4
    assert main(["lint", *files]) == 0, capsys.readouterr().out


def test_load_errors_are_findings(write):
    found = lint_file(str(write("version: 1\nautonomy: yolo\nworkspace: [1]\n")))
    assert [(f.line, f.level) for f in found] == [(2, "error"), (3, "error")]


@pytest.mark.parametrize(("pattern", "risky"), [
    ("(a+)+", True), (r"(\w*)*x", True), ("(a|aa)*b", True), ("(a|)*", True), ("(.*)*", True),
    ("v[0-9]+", False), ("^[a-z][a-z0-9_-]*$", False), (r"(\d+\.)+\d+", False),
    ("(ab|cd)*", False), (".*foo.*", False), ("(a*b)*", False),
])
def test_catastrophic_regexes(pattern, risky):
    assert (catastrophic(pattern) is not None) is risky


def test_shipped_policies_are_clean_wherever_they_are_read_from(tmp_path, capsys):
    """As after ``pip install .``: the file linted is not the file the default is loaded from
    (the default's own rules once warned as shadowed by themselves)."""
    import glob
    import os
    import shutil

    copies = []
    for source in sorted(glob.glob(os.path.join(policies_dir(), "*.yaml"))):
        copies.append(str(tmp_path / os.path.basename(source)))
        shutil.copyfile(source, copies[-1])
    assert len(copies) == 4
    assert main(["lint", *copies]) == 0, capsys.readouterr().out


@pytest.mark.parametrize(("command", "missed"), [
    ('[git, push, "*", main]', ["git push origin HEAD:main", "git push origin +main",
                                "git push origin refs/heads/main",
                                "git push origin HEAD:refs/heads/main"]),
    ("[git, push, origin, release]", ["git push origin HEAD:release",
                                      "git push origin +release",
                                      "git push origin refs/heads/release",
                                      "git push origin HEAD:refs/heads/release"]),
    ("[git, push, \"*\", {re: '\\\\+?(.*:)?(refs/heads/)?main'}]", []),
    ('[git, push, "*", "*main"]', []),  # a glob that takes every spelling
    ("[git, push, origin]", []),
    ("[git, log, origin, main]", []),
])
def test_rules_that_miss_spellings_of_their_own_operands(write, command, missed):
    """A push to main written as a refspec is still a push to main: each spelling is put
    through the rule itself, and lint names the ones it misses."""
    text = f"version: 1\nshell:\n  rules:\n    - id: r\n      command: {command}\n" \
           "      decision: deny\n      why: w\n"
    found = [f.message for f in lint_file(str(write(text))) if "mean the same" in f.message]
    if not missed:
        assert found == []
        return
    (message,) = found
    assert all(f"`{line}`" in message for line in missed[:3])
    assert f"and {len(missed) - 3} more" in message
