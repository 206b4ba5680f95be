"""``policy run --explain-sandbox``: the file system and the network as the policy's sandbox
shows them, without running anything. Each line: the mode (read-only, read-write, hidden,
private), the path, why; then the network: the egress proxy and what it lets through.
``--json`` prints ``{"executor": ..., "mounts": [{path, mode, reason}], "env": {...},
"network": {"mode": ...}}``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clawgate.cli.common import emit_json, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import ClawgateError
from clawgate.executors.egress.inside import (
    BRIDGE_PORT,
    INSIDE_DIR,
    PROXY_URL,
    SOCKS_URL,
    interpreter,
    proxy_env,
)
from clawgate.executors.egress.netns import can_join

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
        net = network_view(kind, settings)
        env = {} if view is None else dict(view.env)
        if net["mode"] == "proxy":  # Docker's port is chosen per run
            env.update(proxy_env("PORT" if kind == "docker" else BRIDGE_PORT))
        emit_json({"executor": kind, "workspace": os.fspath(workspace), "mounts": mounts,
                   "private": [] if view is None else list(view.private),
                   "env": env, "network": net})
        return ExitCode.OK
    if view is None:
        say(f"policy run: {HOST_NOTE}")
        return ExitCode.OK
    where = " (the workspace appears at /workspace)" if kind == "docker" else ""
    say(f"policy run: the {kind} sandbox shows{where}:")
    sys.stdout.write("".join(f"{line}\n" for line in view.lines()))
    sys.stdout.write("".join(f"{line}\n" for line in network_lines(network_view(kind,
                                                                                 settings))))
    return ExitCode.OK


def network_view(kind: str, settings: dict[str, Any]) -> dict[str, Any]:
    """What the sandbox can reach: ``mode`` proxy (only through the egress proxy, by
    domain; ``listener``: where it listens, ``inside`` the sandbox's network namespace or
    behind a ``bridge``), shared (the host's network: ``--network`` or a ``docker.network``
    other than ``none``) or host (no sandbox)."""
    from clawgate.executors.settings import egress_from_settings, network_allowed

    if kind == "host":
        return {"mode": "host"}
    if network_allowed(settings):
        return {"mode": "shared"}
    rules = egress_from_settings(settings)
    way: dict[str, Any] = {"listener": "inside", "proxy": PROXY_URL, "socks": SOCKS_URL}
    if kind == "docker":  # a free port per run, in the run's HTTP_PROXY and ALL_PROXY
        way |= {"proxy": "http://127.0.0.1:PORT", "socks": "socks5h://127.0.0.1:PORT"}
    elif not can_join():
        python, prefix = interpreter()
        way |= {"listener": "bridge", "bridge": {"python": python, "read_only": prefix,
                                                 "socket_dir": INSIDE_DIR}}
    return {"mode": "proxy", **way,
            "allowed_domains": list(rules.allowed_domains),
            "denied_domains": list(rules.denied_domains),
            "allow_loopback_ports": list(rules.allow_loopback_ports)}


def network_lines(net: dict[str, Any]) -> list[str]:
    """The network part of the text view."""
    if net["mode"] == "shared":
        return ["network     the host's, shared (--network or an executor.docker.network "
                "other than none): no domain decisions, no connection audit"]
    if net["mode"] != "proxy":
        return []
    listed = ", ".join(net["allowed_domains"]) or "none: every connection is refused"
    ports = ", ".join(str(p) for p in net["allow_loopback_ports"]) or "none"
    return ["network     only through clawgate's egress proxy, at "
            f"{net['proxy']} (HTTP, CONNECT) and {net['socks']} (SOCKS5); "
            "names are resolved by the proxy, none inside; every connection is audited"
            + (" (PORT: a free one per run, in its HTTP_PROXY and ALL_PROXY)"
               if net["proxy"].endswith(":PORT") else ""),
            f"  allowed   executor.network.allowed_domains (and their subdomains): {listed}",
            "  denied    executor.network.denied_domains: "
            f"{', '.join(net['denied_domains']) or 'none'}",
            f"  loopback  executor.network.allow_loopback_ports: {ports}",
            f"  listener  {_way_in(net)}"]


def _way_in(net: dict[str, Any]) -> str:
    if net["listener"] == "inside":
        return ("made by clawgate inside the sandbox's own network namespace before the "
                "command starts: nothing of clawgate's runs inside")
    return (f"{net['bridge']['python']} forwards connections to the proxy's socket in "
            f"{net['bridge']['socket_dir']} (its installation {net['bridge']['read_only']} "
            "read-only)")


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
