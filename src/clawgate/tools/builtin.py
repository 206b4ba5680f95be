"""The built-in tools, and the manifest's custom command tools, wired for one workspace."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from clawgate.errors import PolicyError
from clawgate.tools.files import file_tools
from clawgate.tools.memory import memory_tools
from clawgate.tools.messaging import Message, MessageBus
from clawgate.tools.paths import Workspace
from clawgate.tools.shell import CustomCommand, ExecShell, Spawn
from clawgate.tools.urls import UrlPolicy
from clawgate.tools.web import WebFetch, WebSearch

if TYPE_CHECKING:
    from clawgate.executors import Executor
    from clawgate.policy.policy import Policy

BUILTIN_NAMES = ("read_file", "write_file", "edit_file", "list_directory", "glob", "grep",
                 "exec_shell", "spawn", "memory_read", "memory_write", "web_fetch",
                 "web_search", "message")


def builtin_tools(workspace: Workspace, executor: Executor, urls: UrlPolicy,
                  bus: MessageBus | None, *, search_endpoint: str | None = None) -> list[Any]:
    return [
        *file_tools(workspace),
        ExecShell(executor),
        Spawn(executor),
        *memory_tools(workspace),
        WebFetch(urls),
        WebSearch(search_endpoint, urls),
        Message(bus),
    ]


def custom_tools(policy: Policy, executor: Executor, root: str,
                 env: dict[str, str], *, secrets: bool = True) -> list[CustomCommand]:
    """``tools.custom`` from the manifests. Secret values come from the environment variables
    the manifest names (``env: {TOKEN: MY_TOKEN_VAR}``), never from the manifest text; with
    ``secrets`` False none are looked up (tools that are only judged, never run)."""
    made = []
    for name, spec in policy.tools.custom.items():
        if spec.command is None:
            continue
        values = dict(env)
        for key, source in spec.env.items() if secrets else ():
            if source not in os.environ:
                raise PolicyError("tools.custom", name, f"env {key}: environment variable "
                                  f"{source} is not set")
            values[key] = os.environ[source]
        made.append(CustomCommand(
            name=name, description=spec.description, parameters=spec.parameters or {
                "type": "object", "properties": {}}, template=spec.command,
            executor=executor, cwd=spec.workdir, env=values, timeout_s=spec.timeout_s))
    return made
