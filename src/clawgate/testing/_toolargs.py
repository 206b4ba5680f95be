"""Tool-call arguments for a JSON Schema: valid ones, and invalid ones that each break exactly
one rule (a missing required property, a wrong type, an extra property, a bound, an enum).

Covers the subset tool schemas use: objects with properties of type string, integer, number,
boolean, array and object, ``required``, ``additionalProperties: false``, ``enum``,
``minLength``/``maxLength``, ``minimum``/``maximum``, ``minItems``/``maxItems``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

JSON = dict[str, Any]
_text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)


@dataclass(frozen=True, slots=True)
class ToolArgs:
    """Arguments for a tool; ``flaw`` says which rule an invalid one breaks (None: valid)."""

    args: JSON
    flaw: str | None = None

    @property
    def valid(self) -> bool:
        return self.flaw is None


def value_for(schema: JSON) -> st.SearchStrategy[Any]:
    """A strategy of values valid under ``schema``."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type", "string")
    if kind == "string":
        low, high = schema.get("minLength", 0), schema.get("maxLength", _default_max(schema))
        return st.text(st.characters(blacklist_categories=["Cs"]), min_size=low, max_size=high)
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False,
                         allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        items = value_for(schema.get("items", {"type": "string"}))
        return st.lists(items, min_size=schema.get("minItems", 0),
                        max_size=schema.get("maxItems", 4))
    if kind == "object":
        return _valid_object(schema)
    raise ValueError(f"unsupported schema type {kind!r}")


def _default_max(schema: JSON) -> int:
    return max(int(schema.get("minLength", 0)), 12)


@st.composite
def _valid_object(draw: st.DrawFn, schema: JSON) -> JSON:
    props: dict[str, JSON] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    out: JSON = {}
    for name, sub in props.items():
        if name in required or draw(st.booleans()):
            out[name] = draw(value_for(sub))
    if schema.get("additionalProperties", True) is not False and draw(st.booleans()):
        extra = draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in props))
        out[extra] = draw(_text)
    return out


_WRONG: dict[str, st.SearchStrategy[Any]] = {
    "string": st.one_of(st.integers(), st.booleans(), st.none(), st.lists(_text, max_size=2)),
    "integer": st.one_of(_text, st.booleans(), st.none(), st.floats(0.5, 1e6).filter(
        lambda f: not f.is_integer())),
    "number": st.one_of(_text, st.booleans(), st.none(), st.lists(st.integers(), max_size=2)),
    "boolean": st.one_of(st.integers(), _text, st.none()),
    "array": st.one_of(_text, st.integers(), st.dictionaries(_text, _text, max_size=2)),
    "object": st.one_of(_text, st.integers(), st.lists(_text, max_size=2)),
}


def _flaws(schema: JSON) -> list[str]:
    props: dict[str, JSON] = schema.get("properties", {})
    found = [f"missing:{n}" for n in schema.get("required", ())]
    found += [f"type:{n}" for n in props]
    if schema.get("additionalProperties", True) is False:
        found.append("extra")
    for name, sub in props.items():
        bounds = ("minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "enum")
        found += [f"{b}:{name}" for b in bounds if b in sub]
    return found


def _break_bound(bound: str, sub: JSON) -> st.SearchStrategy[Any]:
    if bound == "enum":
        return _text.filter(lambda v: v not in sub["enum"])
    limit = sub[bound]
    if bound == "minLength":
        return st.text(max_size=max(limit - 1, 0)) if limit else st.nothing()
    if bound == "maxLength":
        return st.text(min_size=limit + 1, max_size=limit + 4)
    if bound == "minimum":
        return st.integers(max_value=math.ceil(limit) - 1)
    if bound == "maximum":
        return st.integers(min_value=math.floor(limit) + 1)
    if bound == "minItems":
        return st.lists(value_for(sub.get("items", {})), max_size=limit - 1) if limit else \
            st.nothing()
    if bound == "maxItems":
        return st.lists(value_for(sub.get("items", {})), min_size=limit + 1, max_size=limit + 2)
    raise ValueError(f"unknown bound {bound!r}")


@st.composite
def _invalid(draw: st.DrawFn, schema: JSON) -> ToolArgs:
    flaws = [f for f in _flaws(schema) if not _impossible(f, schema)]
    flaw = draw(st.sampled_from(flaws))
    args = draw(_valid_object(schema))
    kind, _, name = flaw.partition(":")
    props: dict[str, JSON] = schema.get("properties", {})
    if kind == "missing":
        args.pop(name, None)
    elif kind == "type":
        args[name] = draw(_WRONG[props[name].get("type", "string")])
    elif kind == "extra":
        args[draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in props))] = 1
    else:
        args[name] = draw(_break_bound(kind, props[name]))
    return ToolArgs(args, flaw)


def _impossible(flaw: str, schema: JSON) -> bool:
    """Flaws no value can have: a minimum of 0 items or characters cannot be undercut."""
    kind, _, name = flaw.partition(":")
    sub = schema.get("properties", {}).get(name, {})
    return kind in {"minLength", "minItems"} and not sub.get(kind)


def tool_calls(schema: JSON) -> st.SearchStrategy[ToolArgs]:
    """Arguments for a tool whose ``parameters`` are ``schema``: valid and invalid, about half
    each; ``ToolArgs.flaw`` names the rule an invalid one breaks."""
    valid = _valid_object(schema).map(ToolArgs)
    if not _flaws(schema):
        return valid
    return st.one_of(valid, _invalid(schema))
