"""The host executor: ``sh -c`` in the workspace, no sandbox, a process group per command.

Use it only where the machine itself is disposable or every command is trusted by policy: the
command sees the host's filesystem and network. It gets the allowed environment only, its own
process group (killed on timeout: SIGTERM, then SIGKILL), and no process of its group outlives
it. A process that leaves the group on purpose (``setsid``) is beyond what the host can catch;
the bubblewrap and Docker executors contain that too.
"""

from __future__ import annotations

from clawgate.executors.base import ExecResult, Executor, Job
from clawgate.executors.process import run_process


class HostExecutor(Executor):
    """Runs commands directly on the host, in the workspace."""

    name = "host"

    def _execute(self, job: Job) -> ExecResult:
        return run_process(job.argv, cwd=job.cwd, env=job.env, timeout_s=job.timeout_s,
                           output_cap=job.output_cap, kill_grace_s=job.kill_grace_s)
