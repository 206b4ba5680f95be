"""Codex ``.rules`` files: ``prefix_rule(pattern=[...], decision="allow"|"prompt"|"forbidden",
justification=..., match=[...], not_match=[...])`` calls, read with ``ast`` and never run.

A pattern is a prefix of the argv; an element that is a list gives alternatives. ``prompt`` is
ask and ``forbidden`` deny; the decision defaults to ``allow``. A flag in a pattern matches
anywhere in the command in clawgate (Codex: at its place), so a deny only grows. Anything else
in the file, or a call clawgate cannot read, stops the import.
"""

from __future__ import annotations

import ast
import shlex
from typing import Any

from clawgate.policy.importer.common import Imported, ImportFailure

DECISIONS = {"allow": "allow", "prompt": "ask", "forbidden": "deny"}
KEYWORDS = frozenset({"pattern", "decision", "justification", "match", "not_match"})


def from_codex(text: str) -> Imported:
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise ImportFailure(exc.lineno or 1, f"not a Codex rules file: {exc.msg}") from exc
    out = Imported("codex")
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Constant) and isinstance(call.value, str):
            continue  # a docstring
        if not isinstance(call, ast.Call):
            raise ImportFailure(statement.lineno, "not a Codex rules file: expected "
                                                  "prefix_rule(...) calls only")
        out.seen += 1
        _rule(out, call, ast.get_source_segment(text, call) or "prefix_rule(...)")
    if not out.seen:
        raise ImportFailure(1, "no prefix_rule(...) to import")
    return out


def _rule(out: Imported, call: ast.Call, source: str) -> None:
    line, shown = call.lineno, " ".join(source.split())[:120]
    if getattr(call.func, "id", "") != "prefix_rule":
        out.drop(line, shown, "clawgate imports prefix_rule only")
        return
    if call.args or any(k.arg not in KEYWORDS for k in call.keywords):
        out.drop(line, shown, "unexpected arguments (prefix_rule takes pattern, decision, "
                              "justification, match, not_match by keyword)")
        return
    try:
        args = {str(k.arg): ast.literal_eval(k.value) for k in call.keywords}
    except ValueError:
        out.drop(line, shown, "arguments that are not literals")
        return
    problem = _problem(args)
    if problem:
        out.drop(line, shown, problem)
        return
    decision = DECISIONS[args.get("decision", "allow")]
    why = str(args.get("justification") or f"imported from Codex (line {line})")
    examples = {k: [e if isinstance(e, str) else shlex.join(e) for e in args.get(k, ())]
                for k in ("match", "not_match") if args.get(k)}
    out.shell(line, shown, list(args["pattern"]), decision, why, examples=examples)


def _problem(args: dict[str, Any]) -> str | None:
    pattern = args.get("pattern")
    if not isinstance(pattern, list) or not pattern:
        return "pattern must be a non-empty list"
    for element in pattern:
        if isinstance(element, list) and element and all(isinstance(e, str) for e in element):
            continue
        if not isinstance(element, str):
            return "each pattern element must be a string or a list of strings"
    if args.get("decision", "allow") not in DECISIONS:
        return f"decision {args.get('decision')!r} is not allow, prompt or forbidden"
    for key in ("match", "not_match"):
        value = args.get(key, [])
        if not isinstance(value, list) or not all(
                isinstance(e, str) or (isinstance(e, list) and all(isinstance(w, str) for w in e))
                for e in value):
            return f"{key} must be a list of command lines or argv lists"
    return None
