"""How layers combine: concatenated denies, intersected allows, last explicit wins, locks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.errors import PolicyError
from clawgate.policy.catalog import BUILTIN_TOOLS
from clawgate.policy.layers import CONCAT, INTERSECT, WHOLE, Shapes
from clawgate.policy.loader import load_policy
from clawgate.policy.settings import Autonomy

USER = """
version: 1
autonomy: full
forbidden_paths: [/srv/a]
hooks: {trusted: true, deny_tools: [web_fetch]}
tools: {allow: [group:fs, group:web, exec_shell], deny: [write_file]}
executor: {timeout_s: 60, max_timeout_s: 120}
shell:
  rules:
    - {id: dist, command: [make, dist], decision: allow, why: user releases}
"""
PROJECT = """
version: 1
forbidden_paths: [/srv/b]
hooks: {trusted: false, deny_tools: [spawn]}
tools: {allow: [group:fs, exec_shell], deny: [edit_file]}
executor: {timeout_s: 20}
"""
ADMIN = """
version: 1
locked: true
autonomy: supervised
permissions: {write: true, shell: true}
tools: {deny: [exec_shell]}
executor: {kind: docker, max_concurrent: 2}
shell:
  rules:
    - {id: no-dist, command: [make, dist], decision: ask, why: admin reviews releases}
"""


def test_denies_concatenate_and_allows_intersect(load):
    policy = load(USER, PROJECT)
    tools = set(policy.visible_tools(BUILTIN_TOOLS).tools)
    assert tools == {"read_file", "list_directory", "glob", "grep", "exec_shell"}
    assert set(policy.engine_settings().forbidden_paths) >= {"/srv/a", "/srv/b"}
    assert policy.hooks.deny_tools == ("web_fetch", "spawn")


def test_last_explicit_value_wins(load):
    policy = load(USER, PROJECT)
    assert policy.hooks.trusted is False
    assert policy.executor.timeout_s == 20
    assert policy.executor.max_timeout_s == 120
    assert policy.engine_settings().autonomy is Autonomy.FULL
    assert load(PROJECT, USER).hooks.trusted is True


def test_an_admin_layer_cannot_be_widened(load):
    for layers in ((USER, PROJECT, ADMIN), (ADMIN, USER, PROJECT)):
        policy = load(*layers)
        settings = policy.engine_settings()
        assert settings.autonomy is Autonomy.SUPERVISED, layers
        assert "exec_shell" not in policy.visible_tools(BUILTIN_TOOLS).tools
        assert policy.executor.kind == "docker"
        assert policy.executor.max_concurrent == 2
        # the user's allow rule is ignored under a lock; the admin's ask stands
        decision = Engine(settings).check("make dist")
        assert decision.outcome is Outcome.ASK
        admin = f"policy:layer{layers.index(ADMIN)}.yaml#no-dist"
        assert [r.rule_id for r in decision.reasons] == [admin]


def test_a_lower_layer_may_narrow_a_locked_value(load):
    narrower = "version: 1\nautonomy: readonly\nexecutor: {max_concurrent: 1}\n"
    wider = "version: 1\nexecutor: {max_concurrent: 9, kind: host}\n"
    policy = load(ADMIN, narrower, wider)
    assert policy.engine_settings().autonomy is Autonomy.READONLY
    assert policy.executor.max_concurrent == 1
    assert policy.executor.kind == "docker"


def test_unlocked_allow_rules_still_count_without_a_lock(load):
    settings = load(USER).engine_settings()
    assert Engine(settings).check("make dist").outcome is Outcome.ALLOW


def test_combined_sections_are_checked(load):
    with pytest.raises(PolicyError, match="executor after layering: timeout_s is larger"):
        load("version: 1\nexecutor: {timeout_s: 100}\n", "version: 1\nexecutor: "
             "{max_timeout_s: 50, timeout_s: 40}\n", "version: 1\nexecutor: {timeout_s: 90}\n")


def test_same_basename_layers_get_distinct_labels(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    rule = "version: 1\nshell: {rules: [{id: r, command: [make, x], decision: ask, why: w}]}\n"
    (tmp_path / "a" / "policy.yaml").write_text(rule)
    (tmp_path / "b" / "policy.yaml").write_text(rule)
    policy = load_policy(tmp_path / "a" / "policy.yaml", tmp_path / "b" / "policy.yaml")
    assert [layer.label for layer in policy.layers] == ["default.yaml", "policy.yaml",
                                                        "policy.yaml[2]"]
    decision = Engine(policy.engine_settings()).check("make x")
    assert {r.rule_id for r in decision.reasons} == {"policy:policy.yaml#r",
                                                     "policy:policy.yaml[2]#r"}


@pytest.mark.parametrize(("layers", "shadow", "timeout_s"), [
    ((), True, 0.2),  # the default: on, 200 ms
    (("shell: {shadow: false, shadow_timeout_ms: 50}",), False, 0.05),
    # under a lock, turning the shadow off or giving it less time would widen: not taken
    (("locked: true", "shell: {shadow: false, shadow_timeout_ms: 50}"), True, 0.2),
    (("locked: true\nshell: {shadow: false}", "shell: {shadow: true}"), True, 0.2),
    (("locked: true", "shell: {shadow_timeout_ms: 500}"), True, 0.5),
])
def test_the_shadow_keys_layer_and_narrow(load, layers: tuple[str, ...], shadow: bool,
                                          timeout_s: float) -> None:
    settings = load(*(f"version: 1\n{text}\n" for text in layers)).engine_settings()
    assert (settings.shadow, settings.shadow_timeout_s) == (shadow, timeout_s)


def _walked(path: tuple[str, ...], patterns: tuple[tuple[str, ...], ...]) -> bool:
    """What a pattern means, read one pattern and one key at a time."""
    return any(len(p) == len(path) and all(a in ("*", b) for a, b in zip(p, path, strict=True))
               for p in patterns)


_KEYS = sorted({key for table in (CONCAT, INTERSECT, WHOLE) for p in table for key in p}
               | {"x", "agents", "deny", "*"})


@given(st.lists(st.sampled_from(_KEYS), min_size=0, max_size=7).map(tuple))
def test_shapes_match_as_the_patterns_read(path: tuple[str, ...]) -> None:
    for table in (CONCAT, INTERSECT, WHOLE):
        assert (path in Shapes(table)) is _walked(path, table)


@pytest.mark.parametrize(("path", "table", "expected"), [
    (("tools", "agents", "coder", "deny"), CONCAT, True),
    (("tools", "agents", "coder", "byProvider", "openai", "allow"), INTERSECT, True),
    (("tools", "agents", "coder", "byProvider", "allow"), INTERSECT, False),
    (("tools", "custom", "mine"), WHOLE, True),
    (("tools", "custom"), WHOLE, False),
    (("forbidden_paths",), CONCAT, True),
])
def test_shapes_table(path: tuple[str, ...], table: tuple[tuple[str, ...], ...],
                      expected: bool) -> None:
    assert (path in Shapes(table)) is expected
