"""``policy run --explain-sandbox``: the file system as the policy's sandbox shows it, without
running anything. Each line: the mode (read-only, read-write, hidden, private), the path, why;
``--json`` prints ``{"executor": ..., "mounts": [{path, mode, reason}], "env": {...}}``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clawgate.cli.common import emit_json, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import ClawgateError

HOST_NOTE = ("the host executor: no sandbox; a command sees and may change everything your "
             "user can")


def explain(settings: dict[str, Any], workspace: Path, read_only: Iterable[str],
            as_json: bool) -> int:
    """Print the view of the executor ``settings`` ask for; exit 0 (1 when it cannot be
    built)."""
    from clawgate.executors.settings import mounts_from_settings

    kind = _sandbox_kind(settings["kind"])
    try:
        view = None if kind == "host" else _view(kind, workspace, read_only,
                                                 mounts_from_settings(settings))
    except (ClawgateError, ValueError, OSError) as exc:
        say(f"policy run: --explain-sandbox: {exc}")
        return ExitCode.INTERNAL
    if as_json:
        mounts = [] if view is None else [
            {"path": m.path, "mode": m.mode, "reason": m.reason}
            for m in (*view.base, *view.mounts)]
        emit_json({"executor": kind, "workspace": os.fspath(workspace), "mounts": mounts,
                   "private": [] if view is None else list(view.private),
                   "env": {} if view is None else dict(view.env)})
        return ExitCode.OK
    if view is None:
        say(f"policy run: {HOST_NOTE}")
        return ExitCode.OK
    where = " (the workspace appears at /workspace)" if kind == "docker" else ""
    say(f"policy run: the {kind} sandbox shows{where}:")
    sys.stdout.write("".join(f"{line}\n" for line in view.lines()))
    return ExitCode.OK


def _sandbox_kind(kind: str) -> str:
    """``auto`` is bubblewrap where it works here, else the host."""
    if kind != "auto":
        return kind
    from clawgate.errors import SandboxUnavailable
    from clawgate.executors.bwrap import BwrapExecutor

    try:
        BwrapExecutor(workspace="/")
    except SandboxUnavailable:
        return "host"
    return "bwrap"


def _view(kind: str, workspace: Path, read_only: Iterable[str], mounts: Any) -> Any:
    from clawgate.executors import bwrap, docker_exec
    from clawgate.executors.mounts import inside_workspace
    from clawgate.executors.view import build_view

    files = inside_workspace(read_only, workspace)
    if kind == "docker":
        return build_view(workspace, private=docker_exec.PRIVATE, read_only=files,
                          extra=mounts)
    return build_view(workspace, base=bwrap.system_view(), private=bwrap.PRIVATE,
                      read_only=files, extra=mounts)
