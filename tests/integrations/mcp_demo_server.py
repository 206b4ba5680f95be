"""A small MCP server for the proxy tests (the `mcp` SDK's MCPServer).

Run over stdio by default, or over streamable HTTP with ``--http PORT`` (127.0.0.1 only).
It never runs anything: ``run`` only says what it was given, so a test that lets a call
through cannot touch the machine.
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import MCPServer

server = MCPServer("demo")


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


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
