"""``policy import``: other agents' command permissions as clawgate rules.

- Claude Code: ``permissions.allow/ask/deny`` strings in settings.json (or one per line):
  ``Bash(npm run test:*)`` and ``Bash(git diff *)`` are prefixes, ``Bash(git status)`` is exact.
- Codex: ``prefix_rule(pattern=[...], decision="allow"|"prompt"|"forbidden", justification=...,
  match=[...], not_match=[...])`` calls in a ``.rules`` file (read with ``ast``, never run).
- Gemini CLI: ``[[rule]]`` tables in TOML with ``toolName = "run_shell_command"``,
  ``commandPrefix`` (a string or a list) and ``decision = "allow"|"ask_user"|"deny"``.

What cannot be expressed (a bare ``Bash``, Gemini's ``commandRegex`` over the whole line) is
skipped and listed in ``skipped``. Every imported rule is compiled and its examples checked.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from clawgate.lazyre import lazy_pattern

CLAUDE = lazy_pattern(r"^Bash(?:\((?P<body>.*)\))?$", re.DOTALL)
CODEX_DECISIONS = {"allow": "allow", "prompt": "ask", "forbidden": "deny"}
GEMINI_DECISIONS = {"allow": "allow", "ask_user": "ask", "deny": "deny"}


@dataclass
class Imported:
    rules: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    _ids: set[str] = field(default_factory=set)

    def add(self, source: str, words: list[Any], decision: str, why: str, *, exact: bool,
            examples: dict[str, list[str]] | None = None) -> None:
        base = re.sub(r"[^A-Za-z0-9]+", "-", " ".join(_flat(words))).strip("-").lower()[:60]
        rule_id, n = f"{source}-{decision}-{base or 'rule'}", 2
        while rule_id in self._ids:
            rule_id, n = f"{source}-{decision}-{base}-{n}", n + 1
        self._ids.add(rule_id)
        rule: dict[str, Any] = {"id": rule_id, "command": words, "decision": decision,
                                "why": why}
        if exact:
            rule["exact"] = True
        if examples:
            rule["examples"] = examples
        self.rules.append(_checked(rule, self.skipped))

    def manifest(self) -> dict[str, Any]:
        return {"version": 1, "shell": {"rules": self.rules}}


def _flat(words: Iterable[Any]) -> list[str]:
    return [w if isinstance(w, str) else "|".join(w) for w in words]


def _checked(rule: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """The rule with any example that does not behave as written dropped (and noted)."""
    from clawgate.policy.matching import compile_rule, example_failures

    examples = rule.get("examples")
    if examples:
        problems = example_failures(compile_rule(rule, "import"), examples)
        if problems:
            notes.append(f"{rule['id']}: examples dropped ({problems[0]})")
            del rule["examples"]
    return rule


def from_claude(text: str) -> Imported:
    out = Imported()
    try:
        data = json.loads(text)
    except ValueError:
        data = {"permissions": {"allow": [ln.strip() for ln in text.splitlines()
                                          if ln.strip()]}}
    permissions = data.get("permissions", {}) if isinstance(data, dict) else {}
    for key, decision in (("deny", "deny"), ("ask", "ask"), ("allow", "allow")):
        for entry in permissions.get(key, ()):
            _claude_entry(out, str(entry), decision)
    return out


def _claude_entry(out: Imported, entry: str, decision: str) -> None:
    found = CLAUDE.match(entry.strip())
    if found is None:
        return  # Read(...), WebFetch(...): not shell rules
    body = (found.group("body") or "").strip()
    prefix = body.endswith((":*", " *")) or body == "*"
    body = body.removesuffix(":*").removesuffix(" *").strip()
    try:
        words = shlex.split(body)
    except ValueError:
        words = []
    if not words or words == ["*"]:
        out.skipped.append(f"{entry}: a rule for every command is not imported")
        return
    example = {"match": [body]} if not any(c in body for c in "*?[") else None
    out.add("claude", list(words), decision, f"imported from Claude Code: {entry}",
            exact=not prefix, examples=example)


def from_codex(text: str) -> Imported:
    out = Imported()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "prefix_rule":
            try:
                args = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
            except ValueError:
                out.skipped.append(f"line {node.lineno}: prefix_rule with non-literal "
                                   "arguments")
                continue
            pattern = args.get("pattern")
            if not isinstance(pattern, list) or not pattern:
                out.skipped.append(f"line {node.lineno}: prefix_rule without a pattern")
                continue
            decision = CODEX_DECISIONS.get(str(args.get("decision", "allow")), "ask")
            why = str(args.get("justification") or f"imported from Codex (line {node.lineno})")
            examples = {k: [e if isinstance(e, str) else shlex.join(e) for e in args.get(k, ())]
                        for k in ("match", "not_match") if args.get(k)}
            out.add("codex", list(pattern), decision, why, exact=False, examples=examples)
    return out


def from_gemini(text: str) -> Imported:
    import tomllib

    out = Imported()
    for index, rule in enumerate(tomllib.loads(text).get("rule", [])):
        if rule.get("toolName") not in ("run_shell_command", "ShellTool"):
            continue
        decision = GEMINI_DECISIONS.get(str(rule.get("decision")), "ask")
        if "commandRegex" in rule:
            out.skipped.append(f"rule {index + 1}: commandRegex matches the raw line; "
                               "clawgate rules match words")
        prefixes = rule.get("commandPrefix", [])
        for prefix in [prefixes] if isinstance(prefixes, str) else prefixes:
            words = shlex.split(prefix)
            if words:
                out.add("gemini", words, decision, f"imported from Gemini CLI: {prefix}",
                        exact=False, examples={"match": [prefix]})
    return out


def detect(name: str, text: str) -> str:
    """The format of a file: ``claude``, ``codex`` or ``gemini``."""
    if name.endswith(".toml") or "[[rule]]" in text:
        return "gemini"
    if "prefix_rule" in text:
        return "codex"
    return "claude"


IMPORTERS = {"claude": from_claude, "codex": from_codex, "gemini": from_gemini}
