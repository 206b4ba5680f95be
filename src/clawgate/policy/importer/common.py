"""What the importers share: the manifest being built, and what could not be imported.

An imported rule keeps its meaning in the manifest, or is *dropped* with the line it came from
and why (``policy import`` then stops, or with ``--allow-lossy`` writes one comment per dropped
rule). Input that cannot be read at all raises ``ImportFailure``. Where clawgate can only be
stricter than the source (a deny of reading a file also refuses writing it), the rule is kept
and a note says so. An allow never outranks clawgate's own checks: a command they refuse stays
refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

EVERYTHING = ["*"]  # a shell rule whose program is `*` matches every command
STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}


class ImportFailure(ValueError):
    """Input that is not the format it should be: ``line`` (1-based) and what is wrong."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True, slots=True)
class Dropped:
    """A rule clawgate cannot express: where it is, its text, and why."""

    line: int
    rule: str
    why: str


@dataclass
class Imported:
    """The manifest being built from one source file."""

    source: str
    rules: list[dict[str, Any]] = field(default_factory=list)
    tools_deny: list[str] = field(default_factory=list)
    also_allow: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    allowed_domains: list[str] = field(default_factory=list)
    blocked_domains: list[str] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seen: int = 0  # rules read, imported or dropped
    _keys: dict[str, tuple[int, int, str]] = field(default_factory=dict)  # command: where

    def drop(self, line: int, rule: str, why: str) -> None:
        self.dropped.append(Dropped(line, rule, why))

    def note(self, line: int, rule: str, what: str) -> None:
        self.notes.append(f"line {line}: {rule}: {what}")

    def shell(self, line: int, text: str, words: list[Any], decision: str, why: str, *,
              exact: bool = False, examples: dict[str, list[str]] | None = None) -> None:
        """Add a command rule, or drop ``text`` if the manifest schema refuses it."""
        from clawgate.policy.models import ShellRule

        rule: dict[str, Any] = {"id": self._id(words, decision), "command": words,
                                "decision": decision, "why": why}
        if exact:
            rule["exact"] = True
        try:
            ShellRule.model_validate(rule)
        except ValidationError as exc:
            self.drop(line, text, exc.errors()[0]["msg"].removeprefix("Value error, "))
            return
        if examples:
            rule["examples"] = examples
            _check_examples(rule, self, line, text)
        self._place(line, text, rule)

    def _place(self, line: int, text: str, rule: dict[str, Any]) -> None:
        """Two rules for the same words: the stricter wins in the source formats and in
        clawgate, unless the stricter one is exact and the weaker a prefix (then it cannot)."""
        key = repr(rule["command"])
        if key not in self._keys:
            self._keys[key] = (len(self.rules), line, text)
            self.rules.append(rule)
            return
        index, other_line, other_text = self._keys[key]
        other = self.rules[index]
        if rule["decision"] == other["decision"] and rule.get("exact") == other.get("exact"):
            self.note(line, text, f"the same rule as line {other_line}")
            return
        mine = STRICTNESS[rule["decision"]] > STRICTNESS[other["decision"]]
        strict, weak = (rule, other) if mine else (other, rule)
        weak_at, weak_text = (other_line, other_text) if mine else (line, text)
        strict_at = line if mine else other_line
        if mine:
            self.rules[index] = rule
            self._keys[key] = (index, line, text)
        if strict.get("exact") and not weak.get("exact"):
            self.drop(weak_at, weak_text, f"the exact {strict['decision']} rule on line "
                      f"{strict_at} carves an exception out of it, which clawgate rules cannot")
            return
        self.note(weak_at, weak_text, f"covered by the {strict['decision']} rule for the same "
                                      f"command (line {strict_at})")

    def _id(self, words: list[Any], decision: str) -> str:
        flat = " ".join(w if isinstance(w, str) else "|".join(w) for w in words)
        base = re.sub(r"[^A-Za-z0-9]+", "-", flat).strip("-").lower()[:50] or "all"
        taken = {r["id"] for r in self.rules}
        rule_id, n = f"{self.source}-{decision}-{base}", 2
        while rule_id in taken:
            rule_id, n = f"{self.source}-{decision}-{base}-{n}", n + 1
        return rule_id

    def whole_shell(self, line: int, text: str, decision: str, why: str) -> None:
        """A rule over every command: a deny also takes the shell tool away."""
        if decision == "deny":
            self.tool(line, text, "deny", ["exec_shell"])
        elif decision == "allow":
            self.tool(line, text, "allow", ["exec_shell"])
        self.shell(line, text, list(EVERYTHING), decision, why)

    def tool(self, line: int, text: str, decision: str, names: list[str]) -> None:
        """A decision over whole tools: deny hides them, allow adds them back (alsoAllow)."""
        if decision == "ask":
            self.drop(line, text, "clawgate cannot ask before every use of a tool other than "
                                  "the shell")
            return
        target = self.tools_deny if decision == "deny" else self.also_allow
        target.extend(n for n in names if n not in target)

    def manifest(self) -> dict[str, Any]:
        data: dict[str, Any] = {"version": 1}
        tools: dict[str, Any] = {}
        if self.tools_deny:
            tools["deny"] = list(self.tools_deny)
        allow = [n for n in self.also_allow if n not in self.tools_deny]
        if allow:
            tools["alsoAllow"] = allow
        if tools:
            data["tools"] = tools
        if self.forbidden:
            data["forbidden_paths"] = list(dict.fromkeys(self.forbidden))
        web = {k: list(dict.fromkeys(v)) for k, v in (
            ("allowed_domains", self.allowed_domains),
            ("blocked_domains", self.blocked_domains)) if v}
        if web:
            data["web"] = web
        if self.rules:
            data["shell"] = {"rules": self.rules}
        return data


def _check_examples(rule: dict[str, Any], out: Imported, line: int, text: str) -> None:
    """Examples that do not behave as written are dropped, with a note."""
    from clawgate.policy.matching import compile_rule, example_failures

    problems = example_failures(compile_rule(rule, "import"), rule["examples"])
    if problems:
        out.note(line, text, f"examples dropped ({problems[0]})")
        del rule["examples"]


def line_at(text: str, offset: int) -> int:
    return text.count("\n", 0, max(offset, 0)) + 1
