"""A tool call in clawgate's terms: the name the policy knows it by, and what it would touch.

Each adapter translates its agent's tool call (Claude Code's ``Bash``, Gemini CLI's
``run_shell_command``, an MCP ``tools/call``) into one ``Call``; the gate then decides every
call the same way, whichever agent made it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Kind(Enum):
    """How the gate treats a call."""

    TOOL = "tool"  # a tool the policy governs: visibility, then the checks
    PASSIVE = "passive"  # the agent's own bookkeeping (a todo list, plan mode): allowed
    UNKNOWN = "unknown"  # a tool clawgate cannot see into: a person must approve


@dataclass(frozen=True, slots=True)
class Call:
    """What one call would do. ``reads``/``writes`` are paths, ``commands`` shell lines."""

    tool: str
    args: Mapping[str, Any]
    commands: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    cwd: str | None = None
    kind: Kind = Kind.TOOL
    agent_tool: str = ""  # the name the agent used (Bash, run_shell_command ...), for reasons
    opaque_paths: bool = False  # an MCP tool: any path it is given may be written
    unknown_keys: tuple[str, ...] = ()  # arguments the agent does not document for the tool
    # Files the agent itself writes outside the workspace by design (its memory file): a
    # protected path there asks; containment does not apply to them.
    own_files: tuple[str, ...] = ()

    def written(self) -> tuple[str, ...]:
        """The paths this call may write (an opaque tool's reads too)."""
        return (*self.reads, *self.writes) if self.opaque_paths else self.writes


class BadInput(ValueError):
    """Hook input that is not what the agent documents: answered with a deny, never a crash."""


def text(args: Mapping[str, Any], *keys: str, required: bool = True) -> str | None:
    """The first of ``keys`` present in ``args``; it must be a string."""
    for key in keys:
        if key in args and args[key] is not None:
            value = args[key]
            if not isinstance(value, str):
                raise BadInput(f"{key!r} must be a string, not {type(value).__name__}")
            return value
    if required:
        raise BadInput(f"missing {' or '.join(repr(k) for k in keys)}")
    return None


def texts(args: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """A list of strings under ``key`` (absent: none)."""
    value = args.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadInput(f"{key!r} must be a list of strings")
    return tuple(value)


def glob_base(pattern: str) -> str:
    """The directory a glob pattern starts from: its leading components without wildcards.

    ``src/**/*.py`` starts in ``src``, ``/etc/*.conf`` in ``/etc``, ``../x/*`` in ``../x``,
    ``/etc/passwd`` is itself; a pattern that starts with a wildcard starts in ``.``.
    """
    parts = pattern.split("/")
    fixed: list[str] = []
    for part in parts:
        if any(c in part for c in "*?[{"):
            break
        fixed.append(part)
    if not fixed:
        return "."
    return "/".join(fixed) or "/"
