"""What a sandbox needs to reach the egress proxy: the environment that points programs at it
(bubblewrap's and Docker's), and where the proxy's listener cannot be made inside the
sandbox (``netns.py``), the bridge in front of the command, the binds that show it the
bridge, the interpreter that runs it and the run's socket it hands its listener over on."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from clawgate.executors.egress.lane import HANDOFF_NAME

BRIDGE_PORT = 3128  # in the sandbox's own network namespace: nothing else listens there
INSIDE_DIR = "/run/clawgate-egress"  # where the run's socket directory appears
INSIDE_BRIDGE = "/run/clawgate-bridge/bridge.py"
BRIDGE_SOURCE = Path(__file__).with_name("bridge.py")
PROXY_URL = f"http://127.0.0.1:{BRIDGE_PORT}"
SOCKS_URL = f"socks5h://127.0.0.1:{BRIDGE_PORT}"


def proxy_env(port: int | str = BRIDGE_PORT) -> dict[str, str]:
    """The variables that send pip, npm, git, curl, cargo and go through the proxy listening
    on 127.0.0.1:``port`` inside the sandbox (an empty NO_PROXY: nothing is reached around
    it, and nothing could be)."""
    env: dict[str, str] = {}
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
                 "npm_config_proxy", "npm_config_https_proxy", "CARGO_HTTP_PROXY"):
        env[name] = f"http://127.0.0.1:{port}"
    for name in ("ALL_PROXY", "all_proxy"):
        env[name] = f"socks5h://127.0.0.1:{port}"
    env["NO_PROXY"] = env["no_proxy"] = ""
    return env


def interpreter() -> tuple[str, str]:
    """The Python that runs the bridge, and the installation directory the sandbox must show
    read-only for it to start (the interpreter this process runs on, outside any virtual
    environment: a venv may not be visible)."""
    prefix = os.path.realpath(sys.base_prefix)
    binary = os.path.realpath(sys.executable)
    if not binary.startswith(prefix.rstrip("/") + "/"):
        major, minor = sys.version_info[:2]
        for name in (f"python{major}.{minor}", f"python{major}", "python"):
            candidate = os.path.join(prefix, "bin", name)
            if os.access(candidate, os.X_OK):
                binary = os.path.realpath(candidate)
                break
    return binary, prefix


def bridge_args(argv: list[str]) -> list[str]:
    """The bridge's file and arguments in front of ``argv``, for an interpreter to run."""
    return [INSIDE_BRIDGE, str(BRIDGE_PORT), f"{INSIDE_DIR}/{HANDOFF_NAME}", "--", *argv]


def bridged(argv: list[str], python: str) -> list[str]:
    """``argv`` behind the bridge (``bridge.py``), on its own interpreter."""
    return [python, "-I", "-S", "-B", *bridge_args(argv)]
