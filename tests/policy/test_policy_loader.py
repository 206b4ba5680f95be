"""Loading manifests: errors name the file, the line and the key; bad input is refused."""

from __future__ import annotations

import pytest

from clawgate.errors import PolicyError
from clawgate.policy.loader import load_policy
from clawgate.policy.yamlload import MAX_BYTES


def error_of(write, text: str, name: str = "p.yaml") -> str:
    with pytest.raises(PolicyError) as caught:
        load_policy(write(text, name))
    return str(caught.value)


@pytest.mark.parametrize(("text", "expected"), [
    ("version: 1\nautonomy: yolo\n", ":2: autonomy: Input should be"),
    ("version: 1\ntools:\n  profile: coding\n  colour: red\n", ":4: tools.colour: unknown key"),
    ("version: 1\ntools:\n  profile: huge\n", ":3: tools.profile: Input should be"),
    ("autonomy: full\n", ":1: version: Field required"),
    ("version: 2\n", ":1: version: Input should be 1"),
    ("version: 1\nexecutor: {max_concurrent: lots}\n", ":2: executor.max_concurrent: Input"),
    ("version: 1\nexecutor: {timeout_s: 900}\n", ":2: executor: timeout_s is larger"),
    ("version: 1\nshell:\n  rules:\n    - id: x\n      command: [ls]\n      decision: maybe\n"
     "      why: w\n", ":6: shell.rules[0].decision: Input should be"),
    ("version: 1\nshell:\n  rules:\n    - {id: a, command: [ls], decision: deny, why: w}\n"
     "    - {id: a, command: [cat], decision: deny, why: w}\n",
     ":5: shell.rules[1]: duplicate rule id 'a'"),
    ("version: 1\nshell:\n  rules:\n    - {id: a, command: [ls], decision: deny, why: w}\n"
     "    - {id: b, command: [ls], decision: allow, why: w}\n", "contradict"),
    ("version: 1\nshell:\n  rules:\n    - id: a\n      command: [git, push, -f]\n"
     "      decision: deny\n      why: w\n      examples: {match: [git push origin]}\n",
     ":8: shell.rules[0] (a): example 'git push origin' should match but does not"),
    ("version: 1\nshell:\n  rules:\n    - id: a\n      command: [git, push]\n"
     "      decision: deny\n      why: w\n      examples: {not_match: [git push -f]}\n",
     "should not match but does"),
    ("version: 1\ntools: {allow: [read_file], deny: [read_file]}\n",
     "read_file both in allow and in deny"),
    ("version: 1\ntools: {alsoAllow: [group:nope]}\n", ":2: tools.alsoAllow[0]: unknown group"),
    ("version: 1\ntools:\n  groups:\n    'group:a': [group:b]\n    'group:b': [group:a]\n",
     ":4: tools.groups.group:a: group cycle: group:a -> group:b -> group:a"),
    ("version: 1\ntools: {groups: {'group:fs': [read_file]}}\n", "built-in group"),
    ("version: 1\nautonomy: full\npermissions: {shell: true}\n", "contradicts permissions"),
    ("version: 1\nversion: 1\n", ":2: version: duplicate key"),
    ("version: 1\nautonomy: [\n", "invalid YAML"),
    ("- 1\n- 2\n", "a manifest is a mapping"),
    ("version: 1\nshell: {rules: [{id: a, command: [grep, {re: '('}], decision: deny, "
     "why: w}]}\n", "not a valid regular expression"),
    ("version: 1\nshell: {rules: [{id: a, command: [-rf], decision: deny, why: w}]}\n",
     "cannot be a flag"),
    ("version: 1\nshell: {rules: [{id: a, command: [ls], decision: deny, why: w, "
     "overrides: ask}]}\n", "only makes sense on an allow rule"),
])
def test_errors_name_file_line_and_key(write, text, expected):
    message = error_of(write, text)
    assert "p.yaml:" in message
    assert expected in message


def test_yaml_bomb_is_refused(write):
    lines = ["version: 1", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    message = error_of(write, "\n".join(lines) + "\n")
    assert "expand past" in message


def test_self_referring_alias_is_refused(write):
    assert "refers to itself" in error_of(write, "version: 1\nx: &a [*a]\n")


def test_large_file_is_refused(write):
    assert "larger than" in error_of(write, "version: 1\n" + "#" * MAX_BYTES + "\n")


def test_missing_file(tmp_path):
    with pytest.raises(PolicyError, match="cannot read"):
        load_policy(tmp_path / "absent.yaml")


def test_several_errors_are_all_reported(write):
    message = error_of(write, "version: 1\nautonomy: yolo\nworkspace: [1]\n")
    assert ":2: autonomy" in message
    assert ":3: workspace" in message


def test_typed_sections(write):
    policy = load_policy(write("""
        version: 1
        executor: {kind: docker, timeout_s: 10, docker: {memory: 1g}}
        hooks: {deny_tools: [Bash], deny_tool_prefixes: [mcp__evil], trusted: true}
        web: {blocked_domains: [evil.example]}
        """))
    assert policy.executor.kind == "docker"
    assert policy.executor.timeout_s == 10
    assert policy.executor.max_concurrent == 5
    assert policy.executor.docker.memory == "1g"
    assert policy.executor.docker.network == "none"
    assert policy.hooks.denies("bash")
    assert policy.hooks.denies("mcp__evil__x")
    assert not policy.hooks.denies("read_file")
    assert policy.hooks.trusted
    assert policy.hooks.budgets.max_tool_iterations == 20
    assert policy.hooks.budgets.max_result_bytes == 65_536
    assert "PATH" in policy.hooks.safe_env_names
    assert policy.web.blocked_domains == ("evil.example",)
    assert policy.rate_limit.burst == 20


def test_without_embedded_default(write):
    policy = load_policy(write("version: 1\n"), embedded_default=False)
    assert policy.engine_settings().rules.evaluate  # a RuleSet even when empty
    assert len(policy.layers) == 1
    assert policy.executor.timeout_s == 30
