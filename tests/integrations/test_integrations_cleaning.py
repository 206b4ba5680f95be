"""The proxy's cleaning step on MCP results: the whole result capped, binary data kept."""

from __future__ import annotations

import secrets

import mcp_types as types

from clawgate.integrations.mcp_proxy.cleaning import (
    block_bytes,
    cap_blocks,
    clean_result,
    clean_tools,
    text_bytes,
)
from clawgate.tools.scrub import Scrubber

LIMIT = 4096


def text(n: int, tag: str = "") -> types.TextContent:
    return types.TextContent(type="text", text=tag + "z" * (n - 2 * len(tag)) + tag)


def test_small_results_pass_unchanged() -> None:
    blocks = [text(100), text(100)]
    assert cap_blocks(blocks, LIMIT) == blocks


def test_many_blocks_keep_head_marker_tail() -> None:
    blocks = [text(1000, f"<{i}>") for i in range(50)]
    capped = cap_blocks(blocks, LIMIT)
    assert sum(block_bytes(b) for b in capped) <= LIMIT
    texts = [b.text for b in capped]
    assert texts[0].startswith("<0>") and texts[-1].endswith("<49>")
    markers = [t for t in texts if t.startswith("[clawgate: ")]
    assert len(markers) == 1 and " of 50 content blocks " in markers[0]


def test_one_huge_block_is_cut_to_fit() -> None:
    capped = cap_blocks([text(100_000, "<h>")], LIMIT)
    assert sum(block_bytes(b) for b in capped) <= LIMIT
    assert capped[0].text.startswith("<h>")
    assert "1 of 1 content blocks" in capped[-1].text


def test_images_count_and_are_dropped_whole() -> None:
    image = types.ImageContent(type="image", data="A" * 10_000, mime_type="image/png")
    capped = cap_blocks([text(100), image], LIMIT)
    assert not any(isinstance(b, types.ImageContent) for b in capped)
    assert sum(block_bytes(b) for b in capped) <= LIMIT


def test_binary_data_is_not_scrubbed_but_its_meta_is() -> None:
    token = "ghp_" + secrets.token_hex(18)
    data = "QUJD" * 8
    image = types.ImageContent(type="image", data=data, mime_type="image/png",
                               _meta={"k": token})
    cleaned = clean_result(types.CallToolResult(content=[image]), Scrubber(), LIMIT)
    block = cleaned.content[0]
    assert isinstance(block, types.ImageContent) and block.data == data
    leaked = token in cleaned.model_dump_json(by_alias=True)
    assert not leaked


def test_structured_content_too_big_is_dropped() -> None:
    structured = {"rows": [str(i) * 50 for i in range(500)]}
    result = types.CallToolResult(content=[text(10)], structured_content=structured)
    with_schema = clean_result(result, Scrubber(), LIMIT, output_schema=True)
    without = clean_result(result, Scrubber(), LIMIT)
    assert (with_schema.structured_content, with_schema.is_error) == (None, True)
    assert (without.structured_content, without.is_error) == (None, False)
    assert "structured content of" in str(without.content[-1].model_dump())
    small = clean_result(types.CallToolResult(content=[], structured_content={"a": "b"}),
                         Scrubber(), LIMIT)
    assert small.structured_content == {"a": "b"}
    assert text_bytes(structured) > LIMIT


def test_tools_are_scrubbed_and_a_secret_name_is_not_listed() -> None:
    token = "ghp_" + secrets.token_hex(18)
    tools = [types.Tool(name="ok", description=f"uses {token}",
                        input_schema={"type": "object", "properties": {
                            "a": {"type": "string", "description": token}}}),
             types.Tool(name=token, input_schema={"type": "object"})]
    listed = clean_tools(tools, Scrubber())
    assert [t.name for t in listed] == ["ok"]
    leaked = token in listed[0].model_dump_json(by_alias=True)
    assert not leaked
