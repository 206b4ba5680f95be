"""CPU time (user + system) of the processes that serve a benchmark, for a figure per decision
that the machine's other load disturbs least: the service's processes and the PostgreSQL
backends serving its database, read from ``/proc`` before and after a run."""

from __future__ import annotations

import os
from collections.abc import Iterable

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """A live process's user + system CPU seconds (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14 and 15)


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (uvicorn's workers)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def backends(database: str) -> list[int]:
    """The PostgreSQL backends connected to ``database`` (its last URL segment) on this
    machine, by their process title."""
    marker = f" {database} "
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                title = cmdline.read().decode("latin-1")
        except OSError:
            continue
        if title.startswith("postgres: ") and marker in title:
            found.append(int(entry))
    return found


class Meter:
    """CPU seconds of groups of processes between ``start`` and ``stop``; a process that
    appeared meanwhile counts from zero, one that ended counts as it was last seen."""

    def __init__(self, groups: dict[str, Iterable[int] | str]) -> None:
        self.groups = groups
        self._before: dict[str, dict[int, float]] = {}
        self._seen: dict[str, dict[int, float]] = {}

    def _pids(self, group: Iterable[int] | str) -> list[int]:
        if isinstance(group, str):
            return backends(group)
        return [pid for root in group for pid in descendants(root)]

    def sample(self) -> None:
        for name, group in self.groups.items():
            seen = self._seen.setdefault(name, {})
            for pid in self._pids(group):
                seen[pid] = max(seen.get(pid, 0.0), cpu_seconds(pid))

    def start(self) -> None:
        self.sample()
        self._before = {name: dict(seen) for name, seen in self._seen.items()}

    def stop(self) -> dict[str, float]:
        self.sample()
        return {name: sum(now - self._before.get(name, {}).get(pid, 0.0)
                          for pid, now in seen.items())
                for name, seen in self._seen.items()}
