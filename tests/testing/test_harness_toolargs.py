"""Tool-call arguments: every valid one passes the JSON Schema, every invalid one fails it."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawgate.testing.strategies import ToolArgs, tool_calls

SHELL = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "minLength": 1, "maxLength": 200},
        "timeout_s": {"type": "integer", "minimum": 1, "maximum": 600},
        "background": {"type": "boolean"},
        "env": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
    },
    "required": ["command"],
    "additionalProperties": False,
}
FETCH = {
    "type": "object",
    "properties": {
        "url": {"type": "string"},
        "method": {"type": "string", "enum": ["GET", "HEAD"]},
        "max_bytes": {"type": "number", "minimum": 0, "maximum": 65536.5},
        "headers": {"type": "object", "properties": {"accept": {"type": "string"}}},
        "tags": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
    },
    "required": ["url", "method"],
}
LOOSE = {"type": "object", "properties": {"path": {"type": "string"}}}
FAST = settings(max_examples=150, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.mark.parametrize("schema", [SHELL, FETCH, LOOSE], ids=["shell", "fetch", "loose"])
@FAST
@given(data=st.data())
def test_valid_arguments_validate_and_invalid_ones_do_not(schema: dict[str, Any],
                                                          data: st.DataObject) -> None:
    call = data.draw(tool_calls(schema))
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(call.args))
    assert (not errors) == call.valid, (call, [e.message for e in errors])


def test_every_kind_of_flaw_is_generated() -> None:
    seen: set[str] = set()

    @settings(max_examples=600, database=None, derandomize=True)
    @given(tool_calls(SHELL))
    def collect(call: ToolArgs) -> None:
        seen.add((call.flaw or "valid").split(":")[0])

    collect()
    assert seen == {"valid", "missing", "type", "extra", "minLength", "maxLength", "minimum",
                    "maximum", "maxItems"}


def test_a_schema_without_rules_gives_only_valid_arguments() -> None:
    @settings(max_examples=50, database=None, derandomize=True)
    @given(tool_calls({"type": "object"}))
    def check(call: ToolArgs) -> None:
        assert call.valid

    check()
