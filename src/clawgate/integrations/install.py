"""The settings entries that wire the hooks into Claude Code and Gemini CLI, merged safely.

``merge`` adds clawgate's hook to a settings object without touching any other key and
without adding it twice; ``write_settings`` replaces the file atomically (a temporary file in
the same directory, fsynced, renamed), keeping its permission bits. A settings file that is not
a JSON object, or whose ``hooks`` are not shaped as the agent documents, is left alone and
reported: clawgate does not guess at someone's configuration.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shlex
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawgate.errors import ClawgateError


@dataclass(frozen=True, slots=True)
class Target:
    """One agent: where its project settings live, which event, how its matcher reads."""

    agent: str
    settings: str  # relative to the project directory
    event: str
    matcher: str


TARGETS = {
    "claude-code": Target("claude-code", ".claude/settings.json", "PreToolUse", "*"),
    "gemini": Target("gemini", ".gemini/settings.json", "BeforeTool", ".*"),
}


def hook_command(agent: str, policies: Sequence[str] = (), program: str = "policy") -> str:
    """The command line the agent runs: ``policy hook claude-code --policy /abs/p.yaml``."""
    words = [program, "hook", agent]
    for policy in policies:
        words += ["--policy", os.path.abspath(policy)]
    return shlex.join(words)


def entry(target: Target, command: str) -> dict[str, Any]:
    """The settings fragment for ``target``: ``{"hooks": {event: [matcher group]}}``."""
    return {"hooks": {target.event: [
        {"matcher": target.matcher, "hooks": [{"type": "command", "command": command}]}]}}


def merge(settings: dict[str, Any], target: Target, command: str) -> tuple[dict[str, Any], bool]:
    """``settings`` with the hook added, and whether anything changed. Raises ClawgateError
    when the existing ``hooks`` are not shaped as documented."""
    merged = copy.deepcopy(settings)
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ClawgateError("'hooks' is not an object; not touching it")
    groups = hooks.setdefault(target.event, [])
    if not isinstance(groups, list):
        raise ClawgateError(f"'hooks.{target.event}' is not a list; not touching it")
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            raise ClawgateError(f"an entry of 'hooks.{target.event}' has no 'hooks' list")
        if any(isinstance(h, dict) and h.get("command") == command for h in inner):
            return settings, False
    groups.append(entry(target, command)["hooks"][target.event][0])
    return merged, True


def read_settings(path: Path) -> dict[str, Any]:
    """The settings object in ``path`` (absent or empty: ``{}``). Raises ClawgateError."""
    try:
        data = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ClawgateError(f"{path}: cannot be read ({exc.strerror})") from exc
    if not data.strip():
        return {}
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise ClawgateError(f"{path}: not JSON ({exc}); not touching it") from exc
    if not isinstance(value, dict):
        raise ClawgateError(f"{path}: not a JSON object; not touching it")
    return value


def write_settings(path: Path, settings: dict[str, Any]) -> None:
    """Replace ``path`` atomically with ``settings`` (pretty JSON), keeping its mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o644
    tmp = path.with_name(f".{path.name}.clawgate-{os.urandom(6).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(settings, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def install(project: Path, agent: str, command: str) -> tuple[Path, bool]:
    """Merge the hook into ``project``'s settings for ``agent``; the file and whether it
    changed."""
    target = TARGETS[agent]
    path = project / target.settings
    merged, changed = merge(read_settings(path), target, command)
    if changed:
        write_settings(path, merged)
    return path, changed
