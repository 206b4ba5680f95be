"""Reading the process table: which live processes carry a marker in their command line."""

from __future__ import annotations

import random
import time
from pathlib import Path


def unique_sleep() -> str:
    """A ``sleep`` argument no other process on the machine uses: the marker to look for."""
    return f"{random.randint(100_000, 999_999)}.{random.randint(1, 9)}"


def alive_with(marker: str) -> list[int]:
    """PIDs of live (not zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def gone(marker: str, within_s: float = 60.0) -> bool:
    """True once no live process carries the marker (signals take a moment to land). The wait
    is a hang detector, not a bound: it returns as soon as the process is gone."""
    deadline = time.monotonic() + within_s
    while alive_with(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
