"""Starting the service under uvicorn on 127.0.0.1 for the tests, with tokens made by the real
CLI."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import httpx

T = TypeVar("T")
SRC = str(Path(__file__).resolve().parents[2] / "src")

POLICY = """\
version: 1
shell:
  rules:
    - id: deploys-ask
      command: [deploy-prod]
      decision: ask
      why: deploys need a person
      examples: {match: [deploy-prod --now], not_match: [deploy-staging]}
"""


# Hang guards, not expectations: on a loaded machine (the suite beside two CPU-bound
# processes) starting the service, or a person's answer reaching it, can take many seconds.
STARTUP_S = 180.0
ANSWER_S = 180.0


def until(found: Callable[[], T], seconds: float = ANSWER_S, every: float = 0.05) -> T:
    """Poll ``found`` until it returns something truthy (returned), for at most ``seconds``
    (then its last falsy result): waiting on the event itself, never on a fixed sleep."""
    deadline = time.monotonic() + seconds
    while True:
        result = found()
        if result or time.monotonic() >= deadline:
            return result
        time.sleep(every)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    url: str
    database: str
    env: dict[str, str]
    process: subprocess.Popen[bytes]
    tokens: dict[str, str] = field(repr=False)

    def client(self, role: str, agent: str = "") -> httpx.Client:
        """A client with a new token of ``role`` (for ``agent``) on this service."""
        token = in_process_token(self, role, agent or f"{role}-{secrets.token_hex(3)}")
        return httpx.Client(base_url=self.url, timeout=30,
                            headers={"Authorization": f"Bearer {token}"})


def in_process_token(server: Server, role: str, agent: str,
                     workspace: Path | None = None) -> str:
    from clawgate.serve import tokens
    from clawgate.serve.db import connect

    engine = connect(server.database)
    try:
        named = {} if workspace is None else {"workspace": str(workspace)}
        return tokens.create(engine, role, agent, **named)
    finally:
        engine.dispose()


def make_token(env: dict[str, str], database: str, role: str, agent: str) -> str:
    done = subprocess.run([sys.executable, "-m", "clawgate", "serve", "token", "create",
                           "--role", role, "--agent", agent, "--database", database],
                          env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def start(tmp: Path, database: str, env: dict[str, str], ttl: float = 600.0,
          port: int | None = None, *extra: str, policy_text: str = POLICY,
          ) -> tuple[str, subprocess.Popen[bytes]]:
    policy = tmp / "policy.yaml"
    policy.write_text(policy_text)
    port = port or free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "clawgate", "serve", "--policy", str(policy), "--database",
         database, "--port", str(port), "--approval-ttl", str(ttl), "--workspace", str(tmp),
         *extra],
        env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=10).status_code == 200:
                return url, process
        except httpx.TransportError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"policy serve exited with {process.returncode}")
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"policy serve did not answer /healthz within {STARTUP_S} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def server_env(tmp: Path) -> dict[str, str]:
    """The service's environment; its state directory lies beside ``tmp`` (its workspace)."""
    return {**os.environ, "PYTHONPATH": SRC,
            "CLAWGATE_STATE_HOME": str(tmp.parent / f"{tmp.name}-state")}


