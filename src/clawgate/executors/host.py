"""The host executor: ``sh -c`` in the workspace, no sandbox, a process group per command.

Use it only where the machine itself is disposable or every command is trusted by policy: the
command sees the host's filesystem and network and runs with the guard's own privileges. It
gets the allowed environment only, its own process group (killed on timeout: SIGTERM, then
SIGKILL), and no process of its group outlives it. Where the machine lets us make control
groups (root, or a delegated subtree), each run also gets one with ``Limits.pids`` as its
process limit, and everything in it dies when the call returns: a process that left the group
with ``setsid`` too. Every run's processes also carry ``CLAWGATE_RUN`` in their environment,
and after the run a sweep of ``/proc`` kills those left behind, wherever they went: one that
moved itself to another control group (the checker denies writes there, ``CG-FS-006``, but a
script can hide one) dies too. A process that leaves the control group *and* empties its
environment (``setsid env -i …``) escapes both, a documented host-only limit.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

from clawgate.executors.base import ExecResult, Executor, Job
from clawgate.executors.cgroups import Containment, with_limit_notes
from clawgate.executors.process import run_process

RUN_MARK = "CLAWGATE_RUN"
_SWEEP_ROUNDS = 50


class HostExecutor(Executor):
    """Runs commands directly on the host, in the workspace."""

    name = "host"

    def _execute(self, job: Job) -> ExecResult:
        mark = os.urandom(8).hex()
        env = {**job.env, RUN_MARK: mark}
        with contextlib.ExitStack() as stack:
            stack.callback(sweep, mark)  # last: after the control group is emptied
            containment = Containment.create(pids=self.limits.pids)
            if containment is not None:
                stack.enter_context(containment)
            result = run_process(job.argv, cwd=job.cwd, env=env, timeout_s=job.timeout_s,
                                 output_cap=job.output_cap, kill_grace_s=job.kill_grace_s,
                                 containment=containment)
            return with_limit_notes(result, containment, pids=self.limits.pids, memory=None)


def sweep(mark: str) -> int:
    """Kill every process of ours whose environment carries ``CLAWGATE_RUN=mark``, round after
    round until a round finds none (one may fork while the last is killed); how many."""
    needle = f"{RUN_MARK}={mark}".encode()
    killed: set[int] = set()
    for _ in range(_SWEEP_ROUNDS):
        found = 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    os.kill(int(entry.name), signal.SIGKILL)  # again, if still dying: harmless
                    found += int(entry.name) not in killed
                    killed.add(int(entry.name))
        if not found:  # a round that found no process it had not killed already
            break
    return len(killed)
