"""``policy daemon start|stop|status``: the resident decider that keeps the engine warm for
``policy check``, ``policy explain`` and the hooks (``clawgate.daemon``). It starts by itself on
the first call that finds none and stops after an idle while; these are for a person."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import click

from clawgate.cli.common import emit_json, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.daemon import location
from clawgate.daemon.server import IDLE_SECONDS

START_WAIT = 30.0  # seconds for a started decider to listen


@click.group()
def daemon() -> None:
    """The resident decider: start, stop, or show it."""


@daemon.command()
@click.option("--idle", type=click.FloatRange(min=1), default=IDLE_SECONDS, show_default=True,
              help="Stop after this many seconds without a call.")
def start(idle: float) -> int:
    """Start the decider (detached) and wait until it listens; exit 0 if it was running."""
    if _pid() is not None:
        say(f"policy daemon: already running ({location.socket_path()})")
        return ExitCode.OK
    subprocess.Popen([sys.executable, "-P", "-m", "clawgate.daemon", "serve", "--idle",
                      str(idle)],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        if _pid() is not None:
            say(f"policy daemon: listening on {location.socket_path()}")
            return ExitCode.OK
        time.sleep(0.05)
    say("policy daemon: it did not start listening; calls are decided in process")
    return ExitCode.INTERNAL


@daemon.command()
def stop() -> int:
    """Stop the decider of this user and installation, if one runs."""
    pid = _pid()
    if pid is None:
        say("policy daemon: not running")
        return ExitCode.OK
    os.kill(pid, signal.SIGTERM)
    say(f"policy daemon: stopped {pid}")
    return ExitCode.OK


@daemon.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def status(as_json: bool) -> int:
    """Say whether the decider runs, where it listens and its pid (exit 0 either way)."""
    pid = _pid()
    path = location.socket_path()
    if as_json:
        emit_json({"running": pid is not None, "pid": pid, "socket": path})
    else:
        sys.stdout.write(f"running, pid {pid}, {path}\n" if pid else f"not running ({path})\n")
    return ExitCode.OK


def _pid() -> int | None:
    """The pid of the listening decider: its pid file, checked to be a live decider."""
    try:
        path = location.socket_path()
        with open(path + ".pid", encoding="ascii") as handle:
            pid = int(handle.read().strip())
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            cmdline = handle.read().split(b"\0")
    except (OSError, ValueError):
        return None
    if b"clawgate.daemon" not in cmdline or not os.path.exists(path):
        return None
    return pid
