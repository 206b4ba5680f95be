"""The tool visibility pipeline, step by step, as tables."""

from __future__ import annotations

import pytest

from clawgate.policy.catalog import BUILTIN_TOOLS
from clawgate.policy.visibility import ToolContext

MCP = ("claude-flow__memory_get", "claude-flow__memory_set", "claude-flow__swarm", "gh__issue")
ALL = (*BUILTIN_TOOLS, *MCP)
FS = {"read_file", "write_file", "edit_file", "list_directory", "glob", "grep"}
CODING = FS | {"exec_shell", "spawn", "web_fetch", "web_search", "memory_read", "memory_write"}

ISSUE_EXAMPLE = """
version: 1
tools:
  profile: coding
  allow: [group:fs, exec_shell]
  deny: [web_fetch]
  alsoAllow: [web_search]
  byProvider: {openai: {profile: minimal, allow: [read_file]}}
  agents:
    reviewer: {allow: [read_file, grep], deny: [], alsoAllow: [],
               byProvider: {anthropic: {allow: [read_file]}}}
  subagents: {deny: [message], leafDeny: [spawn], maxDepth: 1}
"""


def steps(policy, ctx: ToolContext) -> dict[str, set[str]]:
    return {name: set(s) for name, s in policy.visible_tools(ALL, ctx).steps}


@pytest.mark.parametrize(("ctx", "step", "expected"), [
    (ToolContext(), "profile", CODING),
    (ToolContext(), "provider profile", CODING),
    (ToolContext(provider="openai"), "provider profile", {"read_file", "list_directory"}),
    (ToolContext(), "global allow", FS | {"exec_shell"}),
    (ToolContext(provider="openai"), "global allow", {"read_file", "list_directory"}),
    (ToolContext(provider="openai"), "provider allow", {"read_file"}),
    (ToolContext(agent="reviewer"), "agent allow", {"read_file", "grep"}),
    (ToolContext(agent="reviewer", provider="anthropic"), "agent+provider allow", {"read_file"}),
    (ToolContext(), "global deny", FS | {"exec_shell"}),
    (ToolContext(), "global alsoAllow", FS | {"exec_shell", "web_search"}),
    (ToolContext(agent="reviewer"), "agent alsoAllow", {"read_file", "grep", "web_search"}),
    (ToolContext(subagent_depth=1), "subagent deny", FS | {"exec_shell", "web_search"}),
    (ToolContext(subagent_depth=1), "leaf deny", FS | {"exec_shell", "web_search"}),
])
def test_issue_example_each_step(load, ctx, step, expected):
    assert steps(load(ISSUE_EXAMPLE), ctx)[step] == expected


def test_steps_are_the_pipeline_in_order(load):
    names = [n for n, _ in load(ISSUE_EXAMPLE).visible_tools(ALL, ToolContext()).steps]
    assert names == ["profile", "provider profile", "global allow", "provider allow",
                     "agent allow", "agent+provider allow", "group allow", "global deny",
                     "agent deny", "global alsoAllow", "agent alsoAllow", "subagent deny",
                     "leaf deny"]


@pytest.mark.parametrize(("profile", "expected"), [
    ("full", set(ALL)),
    ("coding", CODING),
    ("messaging", {"message", "memory_read", "memory_write", "web_search"}),
    ("minimal", {"read_file", "list_directory"}),
])
def test_profiles(load, profile, expected):
    policy = load(f"version: 1\ntools: {{profile: {profile}}}\n")
    assert set(policy.visible_tools(ALL).tools) == expected


@pytest.mark.parametrize(("entries", "expected"), [
    ("[mcp]", set(MCP)),
    ("['mcp:claude-flow']", {t for t in MCP if t.startswith("claude-flow__")}),
    ("['claude-flow__memory_*']", {"claude-flow__memory_get", "claude-flow__memory_set"}),
    ("[group:web, gh__issue]", {"web_fetch", "web_search", "gh__issue"}),
    ("[group:mine]", {"read_file", "web_search"}),
    ("[]", set()),
])
def test_allow_entries(load, entries, expected):
    policy = load(f"""
        version: 1
        tools:
          allow: {entries}
          groups: {{"group:mine": [read_file, group:inner], "group:inner": [web_search]}}
        """)
    assert set(policy.visible_tools(ALL).tools) == expected


def test_group_allow_and_agent_deny(load):
    policy = load("""
        version: 1
        tools:
          byGroup: {family: {allow: [group:messaging, group:fs]}}
          agents: {bot: {deny: [write_file]}}
        """)
    ctx = ToolContext(agent="bot", group="family")
    result = steps(policy, ctx)
    assert result["group allow"] == FS | {"message"}
    assert result["agent deny"] == (FS - {"write_file"}) | {"message"}


def test_leaf_at_max_depth(load):
    policy = load("""
        version: 1
        tools: {subagents: {deny: [message], leafDeny: [spawn], maxDepth: 2}}
        """)
    at = {d: set(policy.visible_tools(ALL, ToolContext(subagent_depth=d)).tools)
          for d in (0, 1, 2, 3)}
    assert {"message", "spawn"} <= at[0]
    assert "message" not in at[1]
    assert "spawn" in at[1]
    assert not {"message", "spawn"} & at[2]
    assert at[3] == at[2]


def test_custom_tools_join_groups(load):
    policy = load("""
        version: 1
        tools:
          profile: minimal
          alsoAllow: [group:ui]
          custom: {canvas: {description: draw, groups: [group:ui]}}
        """)
    assert policy.visible_tools([*ALL, "canvas"]).tools == ["canvas", "list_directory",
                                                             "read_file"]
    assert policy.tools.custom["canvas"].description == "draw"


def test_alsoallow_cannot_readd_what_a_locked_layer_denies(load):
    admin = "version: 1\nlocked: true\ntools: {deny: [exec_shell]}\n"
    user = "version: 1\ntools: {alsoAllow: [exec_shell, message]}\n"
    for order in ((admin, user), (user, admin)):
        tools = load(*order).visible_tools(ALL).tools
        assert "exec_shell" not in tools
        assert "message" in tools


def test_as_dict_shape(load):
    result = load(ISSUE_EXAMPLE).visible_tools(ALL).as_dict()
    assert result["tools"] == sorted(FS | {"exec_shell", "web_search"})
    assert result["steps"][0] == {"step": "profile", "tools": sorted(CODING)}
