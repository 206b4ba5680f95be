"""Regexes that can backtrack catastrophically: a heuristic over Python's own regex parser.

Flagged: an unbounded repeat inside another unbounded repeat (``(a+)+``, ``(\\w*)*``), and an
unbounded repeat over alternatives that can start with the same character or match nothing
(``(a|ab)*``, ``(a|)*``). Both make the matcher try exponentially many ways to split a word.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_parser: Any = import_module("re._parser")
_C: Any = import_module("re._constants")
REPEATS = frozenset({_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT})
UNBOUNDED = _C.MAXREPEAT


def catastrophic(pattern: str) -> str | None:
    """Why ``pattern`` can backtrack catastrophically, or None when no risk is seen."""
    try:
        tree = _parser.parse(pattern)
    except Exception:  # an invalid pattern is reported elsewhere
        return None
    return _scan(list(tree), inside_star=False)


def _scan(items: list[Any], inside_star: bool) -> str | None:
    for op, arg in items:
        if op in REPEATS:
            _low, high, body = arg
            unbounded = (high == UNBOUNDED or high > 1000) and op is not _C.POSSESSIVE_REPEAT
            if unbounded:
                problem = _nested(list(body)) or _overlapping_branches(list(body))
                if problem:
                    return problem
            found = _scan(list(body), inside_star or unbounded)
        elif op is _C.SUBPATTERN:
            found = _scan(list(arg[-1]), inside_star)
        elif op is _C.BRANCH:
            found = next((f for b in arg[1] if (f := _scan(list(b), inside_star))), None)
        else:
            found = None
        if found:
            return found
    return None


def _unwrap(body: list[Any]) -> list[Any]:
    while len(body) == 1 and body[0][0] is _C.SUBPATTERN:
        body = list(body[0][1][-1])
    return body


def _nested(body: list[Any]) -> str | None:
    """An unbounded repeat in a repeated body that nothing mandatory separates: ``(a+)+``."""
    items = _unwrap(body)
    repeats = [arg for op, arg in items if op in REPEATS]
    if any(a[1] == UNBOUNDED or a[1] > 1000 for a in repeats) and all(
            (op in REPEATS and arg[0] == 0) or (op in REPEATS and arg[1] == UNBOUNDED)
            for op, arg in items):
        return "an unbounded repeat nested inside another unbounded repeat"
    return None


def _overlapping_branches(body: list[Any]) -> str | None:
    """Alternatives under a repeat that can start alike or match the empty string."""
    for op, arg in _unwrap(body):
        if op is not _C.BRANCH:
            continue
        firsts: list[object] = []
        for branch in arg[1]:
            parts = list(branch)
            if not parts:
                return "a repeated alternative can match the empty string"
            head = parts[0]
            if head[0] in (_C.ANY, _C.IN, _C.CATEGORY) or head in firsts:
                return "repeated alternatives can start with the same character"
            firsts.append(head)
    return None
