"""What the proxy hands the client is scrubbed and capped: every string of a tool result (text,
resources, resource links' URIs and names, ``_meta``, structured content), every error, and
the tools it lists (descriptions and schemas: a server can plant a credential there too).

The cap is on the whole result, not on each string: the content blocks together keep at most
``limit`` bytes of text (UTF-8, counted over every string of every block), head and tail, with
a marker block between them saying what was cut. Structured content is capped on its own to
the same size; when per-string capping cannot bring it under the cap it is dropped (and the
result marked as an error, as a client checks structured content against the tool's output
schema). Binary data (an image's or a blob's base64) is not scrubbed, but counts towards the
cap like text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import mcp_types as types
from pydantic import BaseModel

from clawgate.tools.scrub import Scrubber, cap_strings, truncate

M = TypeVar("M", bound=BaseModel)
MARKER_ROOM = 200
MIN_SHRUNK = 64  # a block cut to fewer bytes of text than this is dropped instead


def scrub_model(model: M, scrubber: Scrubber) -> M:
    """A copy of an MCP model with every string scrubbed; a content block's base64 binary
    data (an image's or audio's ``data``, a resource's ``blob``) is kept as it is."""
    dumped = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    path = _binary_path(dumped)
    binary = _pop(dumped, path) if path else None
    cleaned = scrubber.scrub_value(dumped)
    assert isinstance(cleaned, dict)
    if path:
        holder = cleaned
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = binary
    return type(model).model_validate(cleaned)


def _binary_path(block: dict[str, Any]) -> tuple[str, ...]:
    """Where a content block keeps base64 binary data, if it does: the keys leading to it."""
    if block.get("type") in ("image", "audio") and isinstance(block.get("data"), str):
        return ("data",)
    resource = block.get("resource")
    if block.get("type") == "resource" and isinstance(resource, dict) and isinstance(
            resource.get("blob"), str):
        return ("resource", "blob")
    return ()


def _pop(value: dict[str, Any], path: tuple[str, ...]) -> Any:
    for key in path[:-1]:
        value = value[key]
    return value.pop(path[-1])


def clean_tools(tools: Sequence[types.Tool], scrubber: Scrubber) -> list[types.Tool]:
    """The tools as the client may see them: scrubbed; a tool whose very name holds a
    credential is left out (its name cannot be rewritten and still be called)."""
    return [scrub_model(t, scrubber) for t in tools if scrubber.scrub(t.name) == t.name]


def clean_result(result: types.CallToolResult, scrubber: Scrubber, limit: int,
                 output_schema: bool = False) -> types.CallToolResult:
    """``result`` scrubbed, its content capped as a whole, its structured content capped."""
    content = cap_blocks([scrub_model(b, scrubber) for b in result.content], limit)
    structured, is_error = scrubber.scrub_value(result.structured_content), result.is_error
    if structured is not None:
        structured = cap_strings(structured, limit)
        size = text_bytes(structured)
        if size > limit:
            structured = None
            content.append(types.TextContent(text=f"[clawgate: structured content of {size} "
                                                  f"bytes cut; the cap is {limit} bytes]"))
            is_error = is_error or output_schema
    meta = None if result.meta is None else scrubber.scrub_value(cap_strings(result.meta, limit))
    return result.model_copy(update={"content": content, "structured_content": structured,
                                     "is_error": is_error, "meta": meta})




def text_bytes(value: Any) -> int:
    """UTF-8 bytes of every string inside ``value`` (keys included)."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    if isinstance(value, dict):
        return sum(text_bytes(k) + text_bytes(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return sum(text_bytes(v) for v in value)
    return 0


def block_bytes(block: BaseModel) -> int:
    return text_bytes(block.model_dump(by_alias=True, mode="json", exclude_none=True))


def cap_blocks(blocks: list[Any], limit: int) -> list[Any]:
    """``blocks`` within ``limit`` bytes in all: the head and the tail, whole blocks first and
    then one block cut to fit on each side, with a marker block between saying what was cut."""
    sizes = [block_bytes(b) for b in blocks]
    total = sum(sizes)
    if total <= limit:
        return blocks
    room = max(limit - MARKER_ROOM, 0)
    head, used, whole = _take(blocks, sizes, room // 2)
    rest = len(head)
    tail_rev, tail_used, tail_whole = _take(blocks[rest:][::-1], sizes[rest:][::-1],
                                            room - used)
    tail = tail_rev[::-1]
    cut_blocks = len(blocks) - whole - tail_whole
    cut = total - used - tail_used
    marker = types.TextContent(text=f"[clawgate: {cut_blocks} of {len(blocks)} content blocks "
                                    f"and {cut} bytes cut; a result may hold {limit} bytes]")
    return [*head, marker, *tail]


def _take(blocks: Sequence[Any], sizes: Sequence[int], room: int
          ) -> tuple[list[Any], int, int]:
    """Whole blocks from the front while they fit, then the next one cut to the room left:
    the blocks taken, their bytes, and how many were taken whole."""
    taken: list[Any] = []
    used = whole = 0
    for block, size in zip(blocks, sizes, strict=True):
        if used + size <= room:
            taken.append(block)
            used += size
            whole += 1
            continue
        shrunk = _shrink(block, size, room - used)
        if shrunk is not None:
            taken.append(shrunk)
            used += block_bytes(shrunk)
        break
    return taken, used, whole


def _shrink(block: Any, size: int, room: int) -> Any | None:
    """A text block (or embedded text resource) cut to ``room`` bytes; None for others."""
    if isinstance(block, types.TextContent):
        keep = room - (size - text_bytes(block.text))
        return None if keep < MIN_SHRUNK else block.model_copy(
            update={"text": truncate(block.text, keep)})
    if isinstance(block, types.EmbeddedResource) and isinstance(
            block.resource, types.TextResourceContents):
        keep = room - (size - text_bytes(block.resource.text))
        if keep < MIN_SHRUNK:
            return None
        resource = block.resource.model_copy(update={"text": truncate(block.resource.text,
                                                                      keep)})
        return block.model_copy(update={"resource": resource})
    return None
