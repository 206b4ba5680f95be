"""The agent's memory: paragraphs in ``memory/MEMORY.md`` inside the workspace."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.tools.base import Result
from clawgate.tools.files import MAX_READ_BYTES
from clawgate.tools.paths import Workspace

MEMORY_FILE = "memory/MEMORY.md"


def _too_large(size: int) -> ToolError:
    return ToolError(ToolErrorKind.INVALID_ARGS, f"{MEMORY_FILE}: {size} bytes or more, over "
                     f"the {MAX_READ_BYTES}-byte cap of every file tool; trim it")


@dataclass
class _Memory:
    workspace: Workspace

    def _text(self) -> str:
        try:
            with self.workspace.open_for_read(MEMORY_FILE) as handle:
                data = handle.read(MAX_READ_BYTES + 1)
            if len(data) > MAX_READ_BYTES:
                raise _too_large(len(data))
            return data.decode("utf-8", "replace")
        except ToolError as exc:
            if exc.kind.value == "FileNotFound":
                return ""
            raise


class MemoryRead(_Memory):
    name = "memory_read"
    description = "Search the memory file: paragraphs containing every word of the query."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False,
        "properties": {"query": {"type": "string"},
                       "max_results": {"type": "integer", "minimum": 1, "maximum": 100,
                                       "default": 10}}}

    def execute(self, args: dict[str, Any]) -> Result:
        paragraphs = [p.strip() for p in self._text().split("\n\n") if p.strip()]
        words = args.get("query", "").lower().split()
        hits = [p for p in paragraphs if all(w in p.lower() for w in words)]
        limit = args.get("max_results", 10)
        return {"paragraphs": hits[:limit], "total": len(hits)}


class MemoryWrite(_Memory):
    name = "memory_write"
    description = "Append a paragraph to the memory file (or overwrite it with mode=overwrite)."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False, "required": ["content"],
        "properties": {"content": {"type": "string", "minLength": 1},
                       "mode": {"enum": ["append", "overwrite"], "default": "append"}}}

    def execute(self, args: dict[str, Any]) -> Result:
        content = args["content"].strip("\n")
        if args.get("mode", "append") == "append":
            existing = self._text().rstrip("\n")
            content = f"{existing}\n\n{content}" if existing else content
        data = (content + "\n").encode("utf-8", "surrogatepass")
        if len(data) > MAX_READ_BYTES:
            raise _too_large(len(data))
        self.workspace.write_bytes(MEMORY_FILE, data, make_parents=True)
        return {"path": MEMORY_FILE, "bytes": len(data)}


def memory_tools(workspace: Workspace) -> list[Any]:
    return [MemoryRead(workspace), MemoryWrite(workspace)]
