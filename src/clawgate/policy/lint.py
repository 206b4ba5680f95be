"""``policy lint``: what loads but is probably wrong. Each FILE is linted on top of the
embedded default.

Errors (exit 2): the file does not load; a tool name that is no built-in tool, custom tool,
MCP tool (``server__tool``), group or glob (reported with the other findings; everywhere else
such a name stops loading); a regex that can backtrack catastrophically.
Warnings (exit 3): an MCP ``server__tool`` name (no server is asked whether it has the tool);
a rule that can never decide (a stricter rule matches everything it does) or
that repeats an earlier one; an allow rule as broad as a program that runs anything (``bash``,
``python3``, ``*``); a deny or ask rule that misses other spellings of its own operands
(``HEAD:main`` for a push to ``main``: ``lint_spellings``); ``alsoAllow`` re-adding a tool a
deny list removes; an empty allow list.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from clawgate.decision import Outcome
from clawgate.errors import PolicyError
from clawgate.policy.catalog import BUILTIN_TOOLS, is_glob, is_group, is_mcp_tool
from clawgate.policy.layers import Layer
from clawgate.policy.lint_spellings import advice, missed_spellings
from clawgate.policy.matching import Position, Rule, compile_rule
from clawgate.policy.yamlload import line_of

RUNS_ANYTHING = frozenset({
    "bash", "sh", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "busybox",
    "python", "python2", "python3", "node", "deno", "bun", "perl", "ruby", "php", "lua",
    "env", "sudo", "doas", "su", "xargs", "eval", "exec", "nohup", "timeout", "nice", "time",
    "watch", "ssh", "docker", "kubectl", "npx", "uvx", "pipx",
})
TOOL_LISTS = ("allow", "deny", "alsoAllow", "leafDeny")


@dataclass(frozen=True, slots=True)
class Finding:
    path: str
    line: int | None
    level: str  # "error" | "warning"
    message: str

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.level}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "level": self.level,
                "message": self.message}


def lint_file(path: str) -> list[Finding]:
    """Every finding for one manifest (a load error is the only finding when it fails)."""
    from clawgate.policy.embedded import embedded_layer
    from clawgate.policy.loader import load_policy

    try:
        policy = load_policy(path, check_tool_names=False)
    except PolicyError as exc:
        return _load_errors(exc)
    layer = policy.layers[-1]
    default = embedded_layer()
    found = [*_tool_findings(layer), *_rule_findings(layer, default)]
    return sorted(found, key=lambda f: (f.line or 0, f.message))


def _load_errors(exc: PolicyError) -> list[Finding]:
    """A load error as findings (pydantic may report several, one per line after the first)."""
    first, *rest = exc.detail.split("\n")
    line = exc.location if isinstance(exc.location, int) else None
    found = [Finding(exc.path, line, "error", first)]
    for text in rest:
        where, _, message = text.partition(": ")
        path, _, number = where.rpartition(":")
        found.append(Finding(path, int(number) if number.isdigit() else None, "error", message))
    return found


def _tool_entries(data: Mapping[str, Any], where: tuple[Any, ...]
                  ) -> Iterator[tuple[tuple[Any, ...], str, str]]:
    """(where, list name, entry) for every entry of every tool list in ``tools``."""
    for key, value in data.items():
        here = (*where, key)
        if key in ("custom", "groups"):
            continue
        if isinstance(value, Mapping):
            yield from _tool_entries(value, here)
        elif key in TOOL_LISTS and isinstance(value, list):
            for index, entry in enumerate(value):
                yield (*here, index), key, entry


def _tool_findings(layer: Layer) -> list[Finding]:
    tools = layer.data.get("tools", {})
    custom = set(tools.get("custom", {}))
    out = []
    for where, _list, entry in _tool_entries(tools, ("tools",)):
        known = (entry in BUILTIN_TOOLS or entry in custom or is_group(entry) or is_glob(entry)
                 or is_mcp_tool(entry) or entry == "mcp" or entry.startswith("mcp:"))
        if not known:
            out.append(_at(layer, where, "error", f"unknown tool {entry!r}"))
        elif is_mcp_tool(entry) and not is_glob(entry) and entry not in custom:
            server, _, name = entry.partition("__")
            out.append(_at(layer, where, "warning", f"MCP tool {entry!r}: not checked; make "
                           f"sure server {server!r} has a tool {name!r}"))
    for key, value in _allow_lists(tools, ("tools",)):
        if value == []:
            out.append(_at(layer, key, "warning", "an empty allow list allows nothing"))
    out += _readded(layer, tools, ("tools",))
    for name, agent in tools.get("agents", {}).items():
        out += _readded(layer, agent, ("tools", "agents", name), also_deny=tools.get("deny", ()))
    return out


def _allow_lists(data: Mapping[str, Any], where: tuple[Any, ...]
                 ) -> Iterator[tuple[tuple[Any, ...], Any]]:
    for key, value in data.items():
        if key == "allow":
            yield (*where, key), value
        elif isinstance(value, Mapping) and key not in ("custom", "groups"):
            yield from _allow_lists(value, (*where, key))


def _readded(layer: Layer, tools: Mapping[str, Any], where: tuple[Any, ...],
             also_deny: Any = ()) -> list[Finding]:
    from clawgate.policy.catalog import Groups

    groups = Groups(tools.get("groups", {}))
    universe = {*BUILTIN_TOOLS, *tools.get("alsoAllow", ()), *tools.get("deny", ())}
    universe = {u for u in universe if not is_group(u) and not is_glob(u)}
    denied = groups.expand([*also_deny, *tools.get("deny", ())], universe)
    out = []
    for index, entry in enumerate(tools.get("alsoAllow", ())):
        back = sorted(groups.expand([entry], universe) & denied)
        if back:
            out.append(_at(layer, (*where, "alsoAllow", index), "warning",
                           f"alsoAllow {entry!r} re-adds {', '.join(back)} that deny removes"))
    return out


def _rule_findings(layer: Layer, default: Layer) -> list[Finding]:
    rules = layer.data.get("shell", {}).get("rules", ())
    mine = [compile_rule(r, layer.label) for r in rules]
    # the default itself, wherever it is read from (a checkout's policies/ or an installed copy)
    same = os.path.realpath(layer.path) == os.path.realpath(default.path) or \
        _rules_of(layer) == _rules_of(default)
    earlier = [] if same else [compile_rule(r, default.label)
                               for r in default.data.get("shell", {}).get("rules", ())]
    out = []
    for index, (rule, data) in enumerate(zip(mine, rules, strict=True)):
        where = ("shell", "rules", index)
        for element in data["command"]:
            for item in element if isinstance(element, list) else [element]:
                if isinstance(item, Mapping):
                    problem = _redos(str(item["re"]))
                    if problem:
                        out.append(_at(layer, where, "error",
                                       f"rule {rule.local_id}: regex {item['re']!r}: {problem}"))
        missed = missed_spellings(rule)
        if missed and rule.decision is not Outcome.ALLOW:
            out.append(_at(layer, where, "warning", advice(rule, missed)))
        if rule.decision is Outcome.ALLOW and _broad(rule):
            out.append(_at(layer, where, "warning", f"rule {rule.local_id}: an allow as broad "
                           "as a program that can run anything; name the subcommand"))
        others = [*((r, True) for r in earlier), *((r, True) for r in mine[:index]),
                  *((r, False) for r in mine[index + 1:])]
        problems = sorted(p for o, b in others if (p := _covered(rule, o, b)))
        if problems:  # "unreachable" sorts after "shadowed" and is the stronger finding
            out.append(_at(layer, where, "warning", f"rule {rule.local_id}: {problems[-1]}"))
    return out


def _rules_of(layer: Layer) -> Any:
    return layer.data.get("shell", {}).get("rules", ())


def _redos(pattern: str) -> str | None:
    from clawgate.policy.redos import catastrophic

    return catastrophic(pattern)


def _broad(rule: Rule) -> bool:
    program = rule.program
    wide = bool(program.globs or program.regexes) or bool(program.literals & RUNS_ANYTHING)
    return wide and not rule.positions and not rule.flags


def _covered(rule: Rule, other: Rule, before: bool) -> str | None:
    """Why ``other`` leaves ``rule`` no say, or None."""
    if not _subsumes(other, rule):
        return None
    if other.decision > rule.decision:
        return (f"unreachable: {other.rule_id} ({other.decision.label}) matches every command "
                "it matches")
    if other.decision == rule.decision and before:
        return f"shadowed: {other.rule_id} already matches every command it matches"
    return None


def _position_covers(wide: Position, narrow: Position) -> bool:
    if wide.anything:
        return True
    return not narrow.globs and not narrow.regexes and all(
        wide.matches(word) for word in narrow.literals)


def _subsumes(wide: Rule, narrow: Rule) -> bool:
    """Whether every command ``narrow`` matches is matched by ``wide`` too (conservatively)."""
    if wide.exact or len(wide.positions) > len(narrow.positions):
        return False
    if wide.decision is Outcome.ALLOW and narrow.decision is not Outcome.ALLOW:
        return False  # an allow matches fewer commands (only those seen whole)
    if not _position_covers(wide.program, narrow.program):
        return False
    if not all(_position_covers(w, n) for w, n in zip(wide.positions, narrow.positions,
                                                       strict=False)):
        return False
    return all(any(set(n) <= set(w) for n in narrow.flags) for w in wide.flags)


def _at(layer: Layer, where: tuple[Any, ...], level: str, message: str) -> Finding:
    return Finding(os.fspath(layer.path), line_of(dict(layer.lines), where), level, message)
