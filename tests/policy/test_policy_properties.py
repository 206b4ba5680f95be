"""Properties of tool visibility and rule matching (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from clawgate.policy.catalog import BUILTIN_GROUPS, BUILTIN_TOOLS, PROFILES, Groups
from clawgate.policy.layers import Layer, merge
from clawgate.policy.matching import compile_rule
from clawgate.policy.visibility import ToolContext, visible_tools
from clawgate.shell import parse_one

MCP = ("fs__read", "fs__write", "gh__issue")
ALL = (*BUILTIN_TOOLS, *MCP)
ENTRY = st.sampled_from([*ALL, *(g for g, m in BUILTIN_GROUPS.items() if m), "mcp", "mcp:gh",
                         "fs__*", "*_file"])
ENTRIES = st.lists(ENTRY, max_size=4, unique=True)
CTX = st.builds(ToolContext, agent=st.sampled_from([None, "bot"]),
                provider=st.sampled_from([None, "openai"]))


@st.composite
def tools_section(draw: st.DrawFn, with_also: bool = True) -> dict[str, object]:
    tools: dict[str, object] = {"profile": draw(st.sampled_from(sorted(PROFILES)))}
    if draw(st.booleans()):
        tools["allow"] = draw(ENTRIES)
    tools["deny"] = draw(ENTRIES)
    if with_also:
        tools["alsoAllow"] = draw(ENTRIES)
    if draw(st.booleans()):
        tools["byProvider"] = {"openai": {"allow": draw(ENTRIES)}}
    if draw(st.booleans()):
        tools["agents"] = {"bot": {"deny": draw(ENTRIES), "alsoAllow": draw(ENTRIES)}}
    return tools


def visible(layers: list[dict[str, object]], ctx: ToolContext) -> set[str]:
    merged = merge(tuple(Layer(f"l{i}", f"l{i}", {"tools": t}) for i, t in enumerate(layers)))
    return set(visible_tools(merged, ALL, ctx).tools)


def expand(entries: object) -> set[str]:
    return Groups().expand(entries if isinstance(entries, list) else [], ALL)


@settings(max_examples=150, deadline=None)
@given(st.lists(tools_section(), min_size=1, max_size=3), CTX)
def test_a_deny_removes_the_tool_unless_also_allow_names_it(layers, ctx):
    shown = visible(layers, ctx)
    denied = set().union(*(expand(t["deny"]) for t in layers))
    readded = set().union(*(expand(t.get("alsoAllow")) for t in layers))
    if ctx.agent:
        for t in layers:
            agent = t.get("agents", {}).get(ctx.agent, {})  # type: ignore[union-attr]
            denied |= expand(agent.get("deny"))
            readded |= expand(agent.get("alsoAllow"))
    assert not (shown & denied) - readded


@settings(max_examples=150, deadline=None)
@given(st.lists(tools_section(), min_size=1, max_size=3), ENTRIES, CTX)
def test_adding_a_deny_never_widens(layers, extra, ctx):
    before = visible(layers, ctx)
    after = visible([*layers, {"deny": extra}], ctx)
    assert after <= before


SPELLINGS = {
    "r": ["-r", "-R", "--recursive"],
    "f": ["-f", "--force"],
}


@st.composite
def rm_line(draw: st.DrawFn) -> tuple[str, bool]:
    wanted = draw(st.sets(st.sampled_from(["r", "f"])))
    words: list[str] = []
    if wanted == {"r", "f"} and draw(st.booleans()):
        words.append(draw(st.sampled_from(["-rf", "-fr", "-Rf", "-fR", "-rfv", "-vrf"])))
    else:
        words += [draw(st.sampled_from(SPELLINGS[w])) for w in sorted(wanted)]
    words += draw(st.lists(st.sampled_from(["-v", "-i", "--verbose", "build", "x.txt"]),
                           max_size=3))
    order = draw(st.permutations(words))
    prefix = draw(st.sampled_from(["", "FOO=1 ", "/bin/"]))
    return prefix + "rm " + " ".join(order), wanted == {"r", "f"}


@settings(max_examples=300, deadline=None)
@given(rm_line(), st.sampled_from([["rm", "-rf"], ["rm", "-fr"], ["rm", "-r", "-f"],
                                   ["rm", "--recursive", "--force"], ["rm", "-R", "-f"]]))
def test_rules_match_whatever_the_flag_spelling(case, pattern):
    line, both = case
    rule = compile_rule({"id": "x", "command": pattern, "decision": "deny", "why": "w"}, "t")
    assert rule.matches(parse_one(line)) is both


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["-f", "--force"]), st.sampled_from(["-u", "--set-upstream", "-v"]),
       st.permutations(["origin", "main"]), st.integers(0, 3))
def test_git_force_push_in_any_position(force, other, remote, where):
    words = [other, *remote]
    words.insert(where % (len(words) + 1), force)
    line = "git push " + " ".join(words)
    rule = compile_rule({"id": "x", "command": ["git", "push", ["--force", "-f"]],
                         "decision": "deny", "why": "w"}, "t")
    assert rule.matches(parse_one(line)) is True
    assert rule.matches(parse_one(line.replace(force, "--force-with-lease"))) is False
