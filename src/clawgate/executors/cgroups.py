"""A control group per run: everything a command starts is counted, limited and killed.

A process group does not hold a command that calls ``setsid``; a control group does: every
descendant stays in it whatever it does with sessions and groups. Each run gets its own group
under the machine's cgroup v1 ``pids`` (and, when asked, ``memory``) hierarchies, or a cgroup v2
directory, with ``pids.max`` (and a memory limit) set. The child joins it before it runs
anything (a two-line shell shim moves itself into the groups, then ``exec``s the command),
and when the call returns every process still in the group is killed and the group removed.

The shim writes ``0``, itself, into each v1 group's ``tasks`` (v2: ``cgroup.procs``). Moving
another process, or a whole process through ``cgroup.procs``, takes the kernel's cgroup
``threadgroup`` lock for writing, which waits for an RCU grace period (unless the hierarchy is
mounted with ``favordynmods``): some milliseconds a run, tens on a busy machine. A thread
moving itself skips that lock on kernels that allow it (Linux 6.x), and the shell shim has one
thread, so moving it moves the process and everything it starts later.

Creating groups needs write access to the hierarchy (root, or a delegated subtree). Where that
is missing, or ``CLAWGATE_CGROUPS=off`` says not to use them, ``Containment.create`` returns
None and the caller falls back to what it can do without (see the executors).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
from dataclasses import replace
from pathlib import Path

from clawgate.executors.base import ExecResult

ROOT = Path("/sys/fs/cgroup")
SHIM = 'for f in "$@"; do [ "$f" = -- ] && break; echo 0 > "$f" || exit 125; shift; done; ' \
       'shift; exec "$@"'
# The same, saying that it has joined with a byte on its standard input (a pipe's end), then
# running the command with /dev/null there.
READY_SHIM = 'for f in "$@"; do [ "$f" = -- ] && break; echo 0 > "$f" || exit 125; shift; ' \
             'done; shift; printf x >&0 || exit 125; exec "$@" </dev/null'
_KILL_S = 1.0  # how long the members of a group may take to die before the caller goes on
MIB = 1024 * 1024


class Containment:
    """One run's control groups (one directory per hierarchy); a context manager."""

    def __init__(self, dirs: list[Path]) -> None:
        self.dirs = dirs

    @classmethod
    def create(cls, *, pids: int, memory: int | None = None) -> Containment | None:
        """New groups limited to ``pids`` processes (and ``memory`` bytes), or None where this
        machine lets us make none."""
        if os.environ.get("CLAWGATE_CGROUPS", "").lower() == "off":
            return None
        name = f"clawgate-{os.getpid()}-{os.urandom(4).hex()}"
        made: list[Path] = []
        try:
            for directory, limits in _layout(name, pids, memory):
                directory.mkdir()
                made.append(directory)
                for file, value in limits.items():
                    (directory / file).write_text(str(value))
        except OSError:
            Containment(made).close()
            return None
        return cls(made) if made else None

    def wrap(self, argv: list[str], *, ready: bool = False) -> list[str]:
        """``argv`` run by a shim that first moves itself into every group; with ``ready``,
        the shim's standard input is to be a pipe's writing end, where it writes a byte once
        it has (the command's standard input is then /dev/null)."""
        files = [str(d / "tasks") if (d / "tasks").exists() else str(d / "cgroup.procs")
                 for d in self.dirs]
        return ["/bin/sh", "-c", READY_SHIM if ready else SHIM, "clawgate-cgroup", *files,
                "--", *argv]

    def members(self) -> list[int]:
        """The pids still in the groups."""
        found: set[int] = set()
        for directory in self.dirs:
            with contextlib.suppress(OSError):
                found.update(int(p) for p in (directory / "cgroup.procs").read_text().split())
        return sorted(found)

    def limits_reached(self) -> tuple[int, int]:
        """(processes the kernel killed at the memory limit, forks and threads refused at the
        pid limit) so far: ``oom_kill`` of cgroup v2's ``memory.events`` or v1's
        ``memory.oom_control``, and ``max`` of ``pids.events``."""
        killed = refused = 0
        for directory in self.dirs:
            killed += _counter(directory / "memory.events", "oom_kill")
            killed += _counter(directory / "memory.oom_control", "oom_kill")
            refused += _counter(directory / "pids.events", "max")
        return killed, refused

    def kill_all(self) -> None:
        """SIGKILL every member until none is left (the pid limit bounds a fork loop)."""
        kill_file = self.dirs[0] / "cgroup.kill" if self.dirs else None
        if kill_file is not None and kill_file.exists():
            with contextlib.suppress(OSError):
                kill_file.write_text("1")
        for pause in _pauses():
            members = self.members()
            if not members:
                return
            for pid in members:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            _until_one_ends(members, pause)

    def close(self) -> None:
        """Kill what is left and remove the groups."""
        self.kill_all()
        for directory in reversed(self.dirs):
            for pause in _pauses():
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # a member not yet reaped by the kernel
                    time.sleep(pause)

    def __enter__(self) -> Containment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _pauses() -> list[float]:
    """The waits between rounds of killing: short first (a killed process is gone within a
    millisecond or two, a sandbox's after its mounts are undone), then 5 ms, ``_KILL_S`` in
    all."""
    short = [0.0005, 0.001, 0.002]
    return short + [0.005] * round((_KILL_S - sum(short)) / 0.005)


def _layout(name: str, pids: int, memory: int | None) -> list[tuple[Path, dict[str, int]]]:
    """Where the groups go and what is written in each: cgroup v2 where the unified hierarchy
    is mounted at the root with the pids controller; else the v1 hierarchies."""
    if "pids" in _read(ROOT / "cgroup.controllers").split():
        limits = {"pids.max": pids} | ({"memory.max": memory} if memory else {})
        return [(ROOT / name, limits)]
    layout: list[tuple[Path, dict[str, int]]] = []
    if (ROOT / "pids" / "cgroup.procs").exists():
        layout.append((ROOT / "pids" / name, {"pids.max": pids}))
    if memory and (ROOT / "memory" / "cgroup.procs").exists():
        layout.append((ROOT / "memory" / name, {"memory.limit_in_bytes": memory}))
    if memory and not any(d.parent.name == "memory" for d, _ in layout):
        return []  # a memory limit was asked for and cannot be given: no half containment
    return layout


def with_limit_notes(result: ExecResult, containment: Containment | None, *, pids: int,
                     memory: int | None) -> ExecResult:
    """``result`` with ``limit_notes`` after its stderr, on lines of their own."""
    notes = limit_notes(containment, pids=pids, memory=memory)
    if not notes:
        return result
    gap = "\n" if result.stderr and not result.stderr.endswith("\n") else ""
    return replace(result, stderr=result.stderr + gap + notes)


def limit_notes(containment: Containment | None, *, pids: int, memory: int | None) -> str:
    """Lines for the run's stderr saying which of its limits stopped something (else ""): a
    process killed by the kernel at the memory limit shows only as ``Killed`` or a signal,
    a refused fork as ``Resource temporarily unavailable``, neither naming the limit."""
    if containment is None:
        return ""
    killed, refused = containment.limits_reached()
    notes = []
    if killed and memory:
        notes.append(f"clawgate: the run reached its memory limit ({memory // MIB} MiB, "
                     f"executor.docker.memory): the kernel killed {killed} process(es)\n")
    if refused:
        notes.append(f"clawgate: the run reached its limit of {pids} tasks "
                     f"(executor.docker.pids, threads included): {refused} fork(s) or "
                     "thread(s) refused\n")
    return "".join(notes)


def _counter(path: Path, key: str) -> int:
    """The value of ``key N`` in a cgroup counters file; 0 where there is none."""
    for line in _read(path).splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _until_one_ends(pids: list[int], most_s: float) -> None:
    """Wait until one of ``pids`` has ended, at most ``most_s`` (a sandbox's first process
    ends some time after bubblewrap has: its mounts are undone first; a pidfd says when,
    rather than a sleep that overshoots it)."""
    fds: list[int] = []
    try:
        for pid in pids:
            try:
                fds.append(os.pidfd_open(pid))
            except ProcessLookupError:
                return  # gone already
            except (AttributeError, OSError):
                time.sleep(most_s)  # no pidfd here
                return
        select.select(fds, [], [], most_s)
    finally:
        for fd in fds:
            os.close(fd)
