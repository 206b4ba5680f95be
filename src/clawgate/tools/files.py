"""Built-in file tools: read, write, edit, list, glob and grep, all inside the workspace."""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from clawgate.decision import Reason
from clawgate.errors import ToolError, ToolErrorKind
from clawgate.protected import PROTECTED_ID, protected_reason
from clawgate.protectedpaths import state_reason
from clawgate.tools.base import Result
from clawgate.tools.paths import Workspace

MAX_READ_BYTES = 10 * 1024 * 1024
MAX_MATCHES = 1000
MAX_GREP_LINE = 4096  # longer lines are matched on their head only (bounds regex work)

_PATH = {"type": "string", "minLength": 1, "description": "a path inside the workspace"}


def _invalid(message: str) -> ToolError:
    return ToolError(ToolErrorKind.INVALID_ARGS, message)


def _text(data: bytes, shown: str) -> str:
    if b"\x00" in data[:8192]:
        raise _invalid(f"{shown}: is a binary file; not shown")
    return data.decode("utf-8", "replace")


@dataclass
class _FileTool:
    workspace: Workspace

    def _read(self, path: str) -> str:
        with self.workspace.open_for_read(path) as handle:
            data = handle.read(MAX_READ_BYTES + 1)
        if len(data) > MAX_READ_BYTES:
            raise _invalid(f"{path}: larger than {MAX_READ_BYTES} bytes; read a line range")
        return _text(data, path)

    def _relative(self, path: Path) -> str:
        return str(path.relative_to(self.workspace.root)) or "."


class _WritingTool(_FileTool):
    def asks(self, args: dict[str, Any], extra: tuple[str, ...] = ()) -> tuple[Reason, ...]:
        """Why writing ``args["path"]`` needs a person: a protected path (git hooks and
        config, agent configuration, CI files ... and ``extra``, the policy's
        ``paths.protected``); the guard answers ASK."""
        why = protected_reason(str(args["path"]), str(self.workspace.root), extra)
        if why is None:
            return ()
        return (Reason(PROTECTED_ID, why, "a person must approve writes to this path"),)


class ReadFile(_FileTool):
    name = "read_file"
    description = "Read a text file in the workspace, optionally a range of lines (1-based)."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False, "required": ["path"],
        "properties": {"path": _PATH,
                       "start_line": {"type": "integer", "minimum": 1},
                       "end_line": {"type": "integer", "minimum": 1}}}

    def execute(self, args: dict[str, Any]) -> Result:
        lines = self._read(args["path"]).splitlines(keepends=True)
        start = args.get("start_line", 1)
        end = args.get("end_line", len(lines))
        if end < start:
            raise _invalid(f"end_line {end} is before start_line {start}")
        return {"path": args["path"], "content": "".join(lines[start - 1 : end]),
                "start_line": start, "end_line": min(end, len(lines)), "total_lines": len(lines)}


class WriteFile(_WritingTool):
    name = "write_file"
    description = "Write a text file in the workspace (atomically), creating parent directories."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False, "required": ["path", "content"],
        "properties": {"path": _PATH, "content": {"type": "string"}}}

    def execute(self, args: dict[str, Any]) -> Result:
        data = args["content"].encode("utf-8", "surrogatepass")
        written = self.workspace.write_bytes(args["path"], data, make_parents=True)
        return {"path": self._relative(written), "bytes_written": len(data)}


class EditFile(_WritingTool):
    name = "edit_file"
    description = "Replace exactly one occurrence of old_text with new_text in a file."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False,
        "required": ["path", "old_text", "new_text"],
        "properties": {"path": _PATH, "old_text": {"type": "string", "minLength": 1},
                       "new_text": {"type": "string"}}}

    def execute(self, args: dict[str, Any]) -> Result:
        text = self._read(args["path"])
        count = text.count(args["old_text"])
        if count != 1:
            raise _invalid(f"old_text must match exactly once in {args['path']}; "
                           f"it matches {count} times")
        updated = text.replace(args["old_text"], args["new_text"], 1)
        self.workspace.write_bytes(args["path"], updated.encode("utf-8", "surrogatepass"))
        return {"path": args["path"], "replacements": 1}


class ListDirectory(_FileTool):
    name = "list_directory"
    description = "List a directory in the workspace: name, is_dir and size, sorted by name."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False,
        "properties": {"path": {**_PATH, "default": "."}}}

    def execute(self, args: dict[str, Any]) -> Result:
        shown = args.get("path", ".")
        target = self.workspace.resolve(shown)
        entries = []
        with _directory(self.workspace, shown) as fd, os.scandir(fd) as scan:
            for entry in scan:
                is_dir = entry.is_dir(follow_symlinks=False)
                try:
                    size = 0 if is_dir else entry.stat(follow_symlinks=False).st_size
                except FileNotFoundError:
                    continue  # removed while we listed: it is not there
                entries.append({"name": entry.name, "is_dir": is_dir, "size": size})
        entries.sort(key=lambda e: str(e["name"]))
        return {"path": self._relative(target), "entries": entries}


class Glob(_FileTool):
    name = "glob"
    description = "Find files in the workspace whose paths match a glob pattern (e.g. **/*.py)."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False, "required": ["pattern"],
        "properties": {"pattern": {"type": "string", "minLength": 1},
                       "path": {**_PATH, "default": "."}}}

    def refuses(self, args: dict[str, Any]) -> None:
        """Raise for a pattern that is absolute or climbs out (checked when the call is
        decided, and again when it runs)."""
        pattern = args["pattern"]
        if pattern.startswith("/") or ".." in Path(pattern).parts:
            raise ToolError(ToolErrorKind.INVALID_PATH, f"{pattern}: patterns are relative "
                            "to the workspace and may not climb out of it")

    def execute(self, args: dict[str, Any]) -> Result:
        self.refuses(args)
        pattern = args["pattern"]
        base = self.workspace.resolve(args.get("path", "."))
        found = sorted(self._relative(p) for p in _walk(self.workspace, base) if p.match(pattern)
                       or fnmatch.fnmatch(str(p.relative_to(base)), pattern))
        return {"matches": found[:MAX_MATCHES], "truncated": len(found) > MAX_MATCHES}


class Grep(_FileTool):
    name = "grep"
    description = "Search text files in the workspace for a regular expression."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False, "required": ["pattern"],
        "properties": {"pattern": {"type": "string", "minLength": 1},
                       "path": {**_PATH, "default": "."},
                       "glob": {"type": "string"},
                       "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_MATCHES,
                                       "default": 100}}}

    def execute(self, args: dict[str, Any]) -> Result:
        try:
            regex = re.compile(args["pattern"])
        except re.error as exc:
            raise _invalid(f"pattern: not a regular expression ({exc})") from exc
        from clawgate.policy.redos import catastrophic

        risk = catastrophic(args["pattern"])
        if risk:  # Python's engine backtracks: (a+)+$ on one line of a's runs for hours
            raise _invalid(f"pattern: can backtrack catastrophically ({risk}); rewrite it "
                           "without a repeat inside a repeat")
        limit = args.get("max_results", 100)
        base = self.workspace.resolve(args.get("path", "."))
        files = [base] if base.is_file() else _walk(self.workspace, base)
        matches: list[dict[str, Any]] = []
        for path in files:
            if args.get("glob") and not fnmatch.fnmatch(path.name, args["glob"]):
                continue
            matches.extend(self._search(path, regex, limit - len(matches)))
            if len(matches) >= limit:
                return {"matches": matches, "truncated": True}
        return {"matches": matches, "truncated": False}

    def _search(self, path: Path, regex: re.Pattern[str], room: int) -> list[dict[str, Any]]:
        try:
            text = self._read(self._relative(path))
        except ToolError:
            return []  # binary, unreadable or too large: grep skips it, as grep -I does
        found = []
        for number, line in enumerate(text.splitlines(), start=1):
            if regex.search(line[:MAX_GREP_LINE]):
                found.append({"path": self._relative(path), "line": number, "text": line[:500]})
                if len(found) >= room:
                    break
        return found


_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "node_modules", "__pycache__"})


@contextlib.contextmanager
def _directory(workspace: Workspace, path: str) -> Iterator[int]:
    try:
        with workspace.open_dir(path) as fd:
            yield fd
    except ToolError as exc:
        if exc.kind is ToolErrorKind.INVALID_PATH:
            raise
        raise ToolError(ToolErrorKind.FILE_NOT_FOUND, f"{path}: no such directory") from exc


def _walk(workspace: Workspace, base: Path) -> list[Path]:
    """Regular files under ``base``, hidden VCS folders and the guard's own state skipped. The
    walk holds a descriptor on each directory, reached without following symlinks
    (``os.fwalk`` from a no-follow descriptor on ``base``): a directory swapped for a symlink
    mid-walk is not entered."""
    found: list[Path] = []
    with _directory(workspace, str(base.relative_to(workspace.root))) as top:
        for root, dirs, names, dir_fd in os.fwalk(".", dir_fd=top, follow_symlinks=False):
            here = base / root
            dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS and state_reason(
                os.path.normpath(here / d), workspace.guarded) is None)
            found.extend(here / n for n in sorted(names) if _regular(n, dir_fd))
    return [Path(os.path.normpath(p)) for p in found]


def _regular(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISREG(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def file_tools(workspace: Workspace) -> list[Any]:
    return [cls(workspace) for cls in (ReadFile, WriteFile, EditFile, ListDirectory, Glob, Grep)]
