"""A small MCP server for the proxy tests (the `mcp` SDK's MCPServer).

Run over stdio by default, or over streamable HTTP with ``--http PORT`` (127.0.0.1 only).
It never runs anything: ``run`` only says what it was given, so a test that lets a call
through cannot touch the machine.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Annotated

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from pydantic import AfterValidator, BaseModel, Field

server = MCPServer("demo")
logging.getLogger("mcp").setLevel(logging.WARNING)  # its INFO lines echo tool errors
# Secrets a test plants (given in the environment, so none is written in this file): one with
# a provider's shape (found by the scrubber's detectors), one under a secret-sounding
# environment name (found because the proxy's scrubber knows the caller's environment).
SHAPED = os.environ.get("DEMO_PLANT", "")
BY_ENV = os.environ.get("DEMO_API_TOKEN", "")


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


@server.tool()
def leak() -> str:
    """Return a credential-shaped string (a fake AWS access key, built at run time)."""
    fake = "AKIA" + "".join(chr(ord("A") + (i * 7) % 26) for i in range(16))
    return f"found aws_access_key_id={fake} in the config"


@server.tool()
def read_note(path: str) -> str:
    """Pretend to read a note (reports the path only)."""
    return f"would read {path}"


@server.tool()
def run(command: str) -> str:
    """Pretend to run a command (reports it only)."""
    return f"would run {command}"


@server.tool()
def run_argv(command: list[str]) -> str:
    """Pretend to run an argv (reports it only)."""
    return f"would run {command}"


@server.tool()
def read_notes(path: list[str]) -> str:
    """Pretend to read several notes (reports the paths only)."""
    return f"would read {', '.join(path)}"


@server.tool()
def hidden() -> str:
    """A tool the test policy hides."""
    return "you should not see this"


@server.tool()
def stall() -> str:
    """Never answer (a hung server)."""
    time.sleep(120)
    return "too late"


@server.tool()
def crash() -> str:
    """Die in the middle of the call, as a broken server would."""
    sys.stdout.flush()
    os._exit(3)


def _secret(which: str) -> str:
    return SHAPED if which == "shaped" else BY_ENV


def _link(**fields: str) -> types.ResourceLink:
    base = {"uri": "repo://notes/1", "name": "note"}
    return types.ResourceLink(type="resource_link", **{**base, **fields})


def _embedded(resource: types.TextResourceContents | types.BlobResourceContents
              ) -> types.EmbeddedResource:
    return types.EmbeddedResource(type="resource", resource=resource)


def _planted(where: str, secret: str) -> types.CallToolResult:
    text = types.TextContent(type="text", text="plain")
    blocks: dict[str, list[types.ContentBlock]] = {
        "text": [types.TextContent(type="text", text=f"value={secret}")],
        "resource_text": [_embedded(types.TextResourceContents(uri="repo://a",
                                                               text=f"k {secret}"))],
        "resource_uri": [_embedded(types.TextResourceContents(uri=f"repo://a?k={secret}",
                                                              text="x"))],
        "blob_uri": [_embedded(types.BlobResourceContents(uri=f"repo://b?k={secret}",
                                                          blob="AAAA"))],
        "link_uri": [_link(uri=f"repo://notes/{secret}")],
        "link_name": [_link(name=secret)],
        "link_title": [_link(title=f"t {secret}")],
        "link_description": [_link(description=f"d {secret}")],
        "block_meta": [types.TextContent(type="text", text="x", _meta={"note": f"n {secret}"})],
        "image_meta": [types.ImageContent(type="image", data="AAAA", mime_type="image/png",
                                          _meta={"note": f"n {secret}"})],
        "tail_of_huge": [types.TextContent(type="text", text="x" * 200_000 + f" {secret}")],
        "many_blocks": [*([text] * 300), types.TextContent(type="text", text=f"last {secret}")],
    }
    if where in blocks:
        return types.CallToolResult(content=blocks[where])
    if where == "text_error":
        return types.CallToolResult(content=blocks["text"], is_error=True)
    structured = {"structured": {"note": secret}, "structured_key": {secret: 1},
                  "structured_list": {"items": [[f"deep {secret}"]]}}
    if where in structured:
        return types.CallToolResult(content=[text], structured_content=structured[where])
    if where == "result_meta":
        return types.CallToolResult(content=[text], _meta={"note": f"m {secret}"})
    if where == "tool_error":
        raise ToolError(f"could not open the vault with {secret}")
    if where == "rpc_error":
        raise MCPError(-32000, f"backend said {secret}")
    raise ValueError(f"unknown place {where} {secret}")


@server.tool()
def plant(where: str, which: str = "shaped") -> types.CallToolResult:
    """Return a secret (from the environment) in the place named ``where``."""
    return _planted(where, _secret(which))


def _no_secret_codes(code: str) -> str:
    raise ValueError(f"code {code!r} is not accepted")


@server.tool()
def redeem(code: Annotated[str, AfterValidator(_no_secret_codes)]) -> str:
    """Refuse every code, echoing it in a pydantic ValidationError (as validators do)."""
    return code


@server.tool(description=f"Describe the weather. Internal key: {SHAPED} {BY_ENV}")
def weather(city: Annotated[str, Field(description=f"a city (token {SHAPED} {BY_ENV})",
                                       default=f"x {SHAPED}")]) -> str:
    """(the description is given above)"""
    return city


@server.tool()
def big(count: int, size: int) -> types.CallToolResult:
    """``count`` text blocks of ``size`` bytes, each naming its number at both ends."""
    return types.CallToolResult(content=[types.TextContent(
        type="text", text=f"<{i}>" + "y" * max(size - 2 * len(f"<{i}>"), 0) + f"<{i}>")
        for i in range(count)])


@server.tool()
def copy(source: str, destination: str) -> str:
    """Pretend to copy a file (reports the paths only)."""
    return f"would copy {source} to {destination}"


@server.tool()
def save_as(filePath: str, body: str) -> str:
    """Pretend to save a document (reports the path only)."""
    return f"would save {len(body)} characters to {filePath}"


@server.tool()
def fetch_page(address: Annotated[str, Field(description="what to fetch",
                                             json_schema_extra={"format": "uri"})]) -> str:
    """Pretend to fetch a page (reports the address only)."""
    return f"would fetch {address}"


class Job(BaseModel):
    where: str = Field(description="Path of the file the job writes")
    label: str = ""


@server.tool()
def batch(jobs: list[Job]) -> str:
    """Pretend to run jobs (reports how many)."""
    return f"would run {len(jobs)} jobs"


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def peek(loc: Annotated[str, Field(description="Path to the file to look at")]) -> str:
    """Pretend to look at a file; declared read-only."""
    return f"would look at {loc}"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
