"""A small MCP server to put behind the proxy: notes as text files under a directory.

It trusts its arguments completely (as many MCP servers do): ``read_note("../../etc/passwd")``
would read that file. Run it behind ``policy mcp-proxy`` and the path never leaves the
workspace, ``delete_note`` is hidden by the policy, and ``shell`` commands are checked before
the server sees them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

NOTES = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
server = MCPServer("notes")


@server.tool()
def list_notes() -> list[str]:
    """The notes there are (*.md and *.txt)."""
    found = (p for p in NOTES.rglob("*") if p.suffix in {".md", ".txt"})
    return sorted(str(p.relative_to(NOTES)) for p in found)


@server.tool()
def read_note(path: str) -> str:
    """Read one note."""
    return (NOTES / path).read_text(encoding="utf-8")


@server.tool()
def write_note(path: str, text: str) -> str:
    """Write (replace) one note."""
    (NOTES / path).write_text(text, encoding="utf-8")
    return f"wrote {len(text)} characters to {path}"


@server.tool()
def delete_note(path: str) -> str:
    """Delete one note."""
    (NOTES / path).unlink()
    return f"deleted {path}"


@server.tool()
def shell(command: str) -> str:
    """Run a shell command in the notes directory (grep, wc ...) and return its output."""
    done = subprocess.run(command, shell=True, cwd=NOTES, capture_output=True, text=True,
                          timeout=30, check=False)
    return done.stdout + done.stderr


if __name__ == "__main__":
    server.run()
