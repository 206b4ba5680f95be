"""The relay that bounds each message of a wrapped MCP server (mcp_proxy/relay.py): lines
within the bound pass whole, however they are chunked; a longer one becomes a JSON-RPC error
for the request it answers, its id read at its start or its end."""

from __future__ import annotations

import io
import json

import pytest

from clawgate.integrations.mcp_proxy.relay import EDGE, Lines, request_id

BIG = "y" * 3 * EDGE


@pytest.mark.parametrize(("message", "expected"), [
    ('{"jsonrpc":"2.0","id":7,"result":{"text":"BIG"}}', 7),  # the Python SDK: id first
    ('{"id":"a\\"b","jsonrpc":"2.0","result":{"text":"BIG"}}', 'a"b'),
    ('{"result":{"text":"BIG"},"jsonrpc":"2.0","id":12}', 12),  # the TypeScript SDK: id last
    ('{"result":{"text":"BIG","id":5}, "jsonrpc": "2.0", "id" : -3 }\n', -3),
    ('{"result":{"text":"BIG","id":5}}', None),  # an id inside the result is not the message's
    ('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"BIG"}}', None),
    ('{"result":{"text":"BIG"},"id":7', None),  # cut: no closing brace
    ('{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"m":"BIG"}}', None),
    ('{"method":"roots/list","params":{"m":"BIG"},"jsonrpc":"2.0","id":3}', None),
])
def test_the_id_of_a_cut_message(message: str, expected: object) -> None:
    raw = message.replace("BIG", BIG).encode()
    assert request_id(raw[:EDGE], raw[-EDGE:]) == expected


def relay(data: bytes, bound: int, chunk: int) -> list[object]:
    out = io.BytesIO()
    lines = Lines(bound, out)
    for start in range(0, len(data), chunk):
        lines.feed(data[start:start + chunk])
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("chunk", [1, 7, 4096, 1 << 20])
def test_lines_within_the_bound_pass_whole_and_longer_ones_are_refused(chunk: int) -> None:
    small = {"jsonrpc": "2.0", "id": 1, "result": {"text": "ok"}}
    big = {"result": {"text": "z" * 50_000}, "jsonrpc": "2.0", "id": 2}
    note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"x": "z" * 50_000}}
    data = b"".join(json.dumps(m).encode() + b"\n" for m in (small, big, note, small))
    said = relay(data, 20_000, chunk)
    size = len(json.dumps(big))
    assert said == [small, {"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": (
        f"the wrapped server sent a message of {size} bytes; the bound is 20000 bytes "
        "(hooks.budgets.max_message_bytes), so it was not relayed")}}, small]


def test_a_line_of_exactly_the_bound_passes() -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"text": ""}})
    padded = line.replace('""', '"' + "q" * (20_000 - len(line)) + '"')
    assert len(padded) == 20_000
    assert relay(padded.encode() + b"\n", 20_000, 999) == [json.loads(padded)]
