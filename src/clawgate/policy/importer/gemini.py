"""Gemini CLI policy files: ``[[rule]]`` tables in TOML.

``toolName = "run_shell_command"`` with ``commandPrefix`` (a string or a list) becomes command
rules; without a prefix the rule is over every command. Other tools (``read_file``,
``web_fetch``, ``server__tool`` ...) are decided whole through the tool policy. ``decision`` is
``allow``, ``ask_user`` (ask) or ``deny``. The highest ``priority`` wins in Gemini CLI and the
strictest rule in clawgate: a less strict rule that outranks an overlapping stricter one cannot
be expressed and is dropped, and so are ``commandRegex``, ``argsPattern`` and ``modes``.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass
from typing import Any

from clawgate.policy.importer.common import STRICTNESS, Imported, ImportFailure

DECISIONS = {"allow": "allow", "ask_user": "ask", "deny": "deny"}
SHELL = frozenset({"run_shell_command", "ShellTool"})
TOOLS = {"read_file": ["read_file"], "write_file": ["write_file"], "replace": ["edit_file"],
         "glob": ["glob"], "search_file_content": ["grep"], "grep": ["grep"],
         "list_directory": ["list_directory"], "read_many_files": ["read_file"],
         "web_fetch": ["web_fetch"], "google_web_search": ["web_search"]}
KEYS = frozenset({"toolName", "decision", "priority", "commandPrefix"})
HEADER = re.compile(r"^[ \t]*\[\[[ \t]*rule[ \t]*\]\]", re.MULTILINE)
AT_LINE = re.compile(r"at line (\d+)")


@dataclass(frozen=True, slots=True)
class _Shell:
    line: int
    text: str
    words: tuple[str, ...]
    decision: str
    priority: float


def from_gemini(text: str) -> Imported:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = AT_LINE.search(str(exc))
        raise ImportFailure(int(found.group(1)) if found else 1,
                            f"not valid TOML: {str(exc).split(' (at ')[0]}") from exc
    rules = data.get("rule")
    if not isinstance(rules, list) or not rules or set(data) != {"rule"}:
        raise ImportFailure(1, "a Gemini CLI policy file holds [[rule]] tables only")
    lines = [text.count("\n", 0, m.start()) + 1 for m in HEADER.finditer(text)]
    out = Imported("gemini")
    shell: list[_Shell] = []
    for index, rule in enumerate(rules):
        out.seen += 1
        line = lines[index] if index < len(lines) else 1
        shell.extend(_rule(out, line, rule))
    for item in _outranked(out, shell):
        if item.words:
            out.shell(item.line, item.text, list(item.words), item.decision,
                      f"imported from Gemini CLI: {shlex.join(item.words)}",
                      examples={"match": [shlex.join(item.words)]})
        else:
            out.whole_shell(item.line, item.text, item.decision,
                            "imported from Gemini CLI: every command")
    return out


def _rule(out: Imported, line: int, rule: dict[str, Any]) -> list[_Shell]:
    shown = ", ".join(f"{k} = {v!r}" for k, v in rule.items())[:160]
    extra = sorted(set(rule) - KEYS)
    decision = DECISIONS.get(str(rule.get("decision")))
    priority = rule.get("priority", 0)
    tool = rule.get("toolName")
    if extra:
        out.drop(line, shown, f"{extra[0]} cannot be expressed (clawgate rules match words)")
    elif decision is None or not isinstance(priority, int | float) or not isinstance(tool, str):
        out.drop(line, shown, "needs toolName, a decision (allow, ask_user, deny) and a "
                              "numeric priority")
    elif tool in SHELL:
        return _shell(out, line, shown, rule.get("commandPrefix"), decision, float(priority))
    elif "commandPrefix" in rule:
        out.drop(line, shown, "commandPrefix applies to run_shell_command only")
    elif tool in TOOLS or "__" in tool.strip("_"):
        out.tool(line, shown, decision, TOOLS.get(tool, [tool]))
    else:
        out.drop(line, shown, f"clawgate does not know the Gemini CLI tool {tool!r}")
    return []


def _shell(out: Imported, line: int, shown: str, prefixes: Any, decision: str,
           priority: float) -> list[_Shell]:
    if prefixes is None:
        return [_Shell(line, shown, (), decision, priority)]
    items = [prefixes] if isinstance(prefixes, str) else prefixes
    if not isinstance(items, list) or not items or not all(isinstance(p, str) for p in items):
        out.drop(line, shown, "commandPrefix must be a string or a list of strings")
        return []
    found = []
    for prefix in items:
        try:
            words = tuple(shlex.split(prefix))
        except ValueError as exc:
            out.drop(line, shown, f"{prefix!r} cannot be split into words: {exc}")
            continue
        if not words or any(c in prefix for c in "*?["):
            out.drop(line, shown, f"{prefix!r}: clawgate would read * ? [ as globs")
            continue
        found.append(_Shell(line, shown, words, decision, priority))
    return found


def _outranked(out: Imported, rules: list[_Shell]) -> list[_Shell]:
    """The rules whose meaning survives strictest-wins; the others are dropped."""
    kept = []
    for rule in rules:
        over = next((o for o in rules if _overlap(rule.words, o.words)
                     and STRICTNESS[o.decision] > STRICTNESS[rule.decision]
                     and rule.priority > o.priority), None)
        if over is None:
            kept.append(rule)
        else:
            out.drop(rule.line, rule.text, f"outranks the stricter rule on line {over.line} "
                                           "(priority); in clawgate the strictest rule wins")
    return kept


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]
