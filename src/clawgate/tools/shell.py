"""Tools that run commands: exec_shell, spawn and the manifest's custom command tools.

Each exposes ``commands(args)``: the command lines the guard checks with the engine before
``execute`` may run them on the executor.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.executors import ExecRequest, Executor
from clawgate.tools.base import Result

MAX_TIMEOUT_S = 300
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def _timeout(args: dict[str, Any], limit: int) -> float | None:
    """The call's own timeout, or None: the executor's ``timeout_s`` (the policy's). Either is
    clamped by the executor to its ``max_timeout_s``."""
    wanted = args.get("timeout")
    return None if wanted is None else float(min(wanted, limit))


def _result(executor: Executor, request: ExecRequest) -> Result:
    done = executor.run(request)
    if done.timed_out:  # the timeout that applied: after the executor's default and clamp
        applied = executor.limits.clamp(request.timeout_s)
        raise ToolError(ToolErrorKind.TIMEOUT, f"the command timed out after {applied:g} s")
    result: Result = {"exit_code": done.exit_code, "stdout": done.stdout,
                      "stderr": done.stderr, "duration_ms": done.duration_ms,
                      "truncated": done.truncated}
    if done.refusal_counts:  # the sandbox's filter refused calls: the Guard audits them
        result["refused_syscalls"] = done.refused_syscalls()
    return result


@dataclass
class ExecShell:
    executor: Executor
    cwd: str | None = None  # relative to the workspace; None is its root
    env: dict[str, str] = field(default_factory=dict)
    max_timeout_s: int = MAX_TIMEOUT_S
    name = "exec_shell"
    description = "Run a shell command in the workspace; returns exit code, stdout and stderr."
    parameters: dict[str, Any] = field(default_factory=lambda: {
        "type": "object", "additionalProperties": False, "required": ["command"],
        "properties": {"command": {"type": "string", "minLength": 1},
                       "timeout": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT_S,
                                   "description": "seconds; default: the policy's "
                                   "executor.timeout_s"}}})

    def commands(self, args: dict[str, Any]) -> list[str]:
        return [args["command"]]

    def execute(self, args: dict[str, Any]) -> Result:
        return _result(self.executor, ExecRequest(args["command"], cwd=self.cwd, env=self.env,
                                                  timeout_s=_timeout(args, self.max_timeout_s)))


@dataclass
class Spawn:
    """Runs one program with an argv (no shell); the argv is checked as one command line."""

    executor: Executor
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    max_timeout_s: int = MAX_TIMEOUT_S
    name = "spawn"
    description = "Start a program with arguments (no shell) and wait for it to finish."
    parameters: dict[str, Any] = field(default_factory=lambda: {
        "type": "object", "additionalProperties": False, "required": ["command"],
        "properties": {"command": {"type": "string", "minLength": 1},
                       "args": {"type": "array", "items": {"type": "string"}, "default": []},
                       "description": {"type": "string"},
                       "timeout": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT_S,
                                   "description": "seconds; default: the policy's "
                                   "executor.timeout_s"}}})

    def commands(self, args: dict[str, Any]) -> list[str]:
        return [shlex.join([args["command"], *args.get("args", [])])]

    def execute(self, args: dict[str, Any]) -> Result:
        argv = [args["command"], *args.get("args", [])]
        return _result(self.executor, ExecRequest(argv, cwd=self.cwd, env=self.env,
                                                  timeout_s=_timeout(args, self.max_timeout_s)))


@dataclass
class CustomCommand:
    """A tool from the manifest's ``tools.custom``: a command template whose ``{{name}}``
    placeholders are filled with shell-quoted argument values, never spliced raw."""

    name: str
    description: str
    parameters: dict[str, Any]
    template: str
    executor: Executor
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    timeout_s: float | None = None  # None: the executor's timeout_s

    def render(self, args: dict[str, Any]) -> str:
        def fill(match: re.Match[str]) -> str:
            key = match.group(1)
            if key not in args:
                raise ToolError(ToolErrorKind.INVALID_ARGS, f"{key}: required by the command")
            value = args[key]
            items = value if isinstance(value, list) else [value]
            return " ".join(shlex.quote(_scalar(v)) for v in items)

        return _PLACEHOLDER.sub(fill, self.template)

    def commands(self, args: dict[str, Any]) -> list[str]:
        return [self.render(args)]

    def execute(self, args: dict[str, Any]) -> Result:
        return _result(self.executor, ExecRequest(self.render(args), cwd=self.cwd, env=self.env,
                                                  timeout_s=self.timeout_s))


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
