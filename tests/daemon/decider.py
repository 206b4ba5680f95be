"""A real resident decider for a test: started under the test's own state directory through
``policy daemon start``, stopped by its pid at the end (its waiting workers go with it)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

POLICY = [sys.executable, "-m", "clawgate"]


def env_for(state: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "CLAWGATE_STATE_HOME": str(state), **extra}
    env.pop("CLAWGATE_NO_DAEMON", None)
    return env


def status(env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run([*POLICY, "daemon", "status", "--json"], env=env, capture_output=True,
                          text=True, check=True, timeout=120)
    found: dict[str, object] = json.loads(done.stdout)
    return found


def wait_for(predicate: object, what: str, seconds: float = 120.0) -> None:
    """A hang guard, not a clock assertion: poll until ``predicate()`` holds."""
    deadline = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.05)


def stop(env: dict[str, str]) -> None:
    pid = status(env).get("pid")
    if isinstance(pid, int):
        os.kill(pid, signal.SIGTERM)
        wait_for(lambda: not alive(pid), "the decider to exit")


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@contextmanager
def running(state: Path, *args: str) -> Iterator[dict[str, str]]:
    env = env_for(state)
    subprocess.run([*POLICY, "daemon", "start", *args], env=env, check=True,
                   capture_output=True, timeout=300)
    try:
        yield env
    finally:
        stop(env)


def run(args: list[str], env: dict[str, str], stdin: bytes = b"", cwd: Path | None = None,
        importtime: bool = False) -> subprocess.CompletedProcess[bytes]:
    """``policy ARGS`` as a fresh process (``-X importtime`` to see what it imported)."""
    python = [sys.executable, *(["-X", "importtime"] if importtime else [])]
    return subprocess.run([*python, "-m", "clawgate", *args], env=env, input=stdin,
                          capture_output=True, cwd=cwd, check=False, timeout=300)


def imported(stderr: bytes) -> set[str]:
    """The modules an ``-X importtime`` run imported (the stderr lines it printed)."""
    names = set()
    for line in stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def without_imports(stderr: bytes) -> bytes:
    return b"\n".join(line for line in stderr.splitlines()
                      if not line.startswith(b"import time:"))
