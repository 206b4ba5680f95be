"""The bubblewrap executor: the host executor's command inside a ``bwrap`` namespace sandbox.

The sandbox sees the system read-only (``/usr`` and its usual symlinks, ``/etc`` with the
password hashes masked), the workspace read-write at its own path, a private ``/tmp``, fresh
``/proc`` and ``/dev``, and no network unless the policy allows it (a network namespace holding
only loopback). All namespaces are unshared, capabilities dropped, the session is new (no
TIOCSTI into the caller's terminal) and the sandbox dies with its parent: a timeout that kills
bwrap kills every process inside its pid namespace, including ones that called ``setsid``.
The guard's state is out of reach: its directories are not mounted (an empty read-only tmpfs
covers one that lies inside the workspace), and the files given as ``read_only`` (the loaded
policy files that lie inside the workspace) are bound read-only over the writable workspace,
the directories on the way to each pinned (``mounts.py``), so a command can neither change nor
replace them, nor put another file at their path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clawgate.errors import SandboxUnavailable
from clawgate.executors.base import SAFE_ENV_NAMES, ExecRequest, ExecResult, Executor, Job
from clawgate.executors.cgroups import Containment
from clawgate.executors.mounts import hidden_state, inside_workspace, pinned_dirs
from clawgate.executors.process import run_process

SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt")
MASKED_FILES = ("/etc/shadow", "/etc/gshadow", "/etc/sudoers")
PROBE_TIMEOUT_S = 10.0


class BwrapExecutor(Executor):
    """Runs commands in a bubblewrap sandbox. Raises SandboxUnavailable if bwrap is missing or
    cannot create namespaces here: never a quiet run on the host."""

    name = "bwrap"

    def __init__(self, *, network: bool = False, bwrap: str = "bwrap",
                 safe_env_names: Iterable[str] = SAFE_ENV_NAMES,
                 read_only: Iterable[str | os.PathLike[str]] = (), **kwargs: Any) -> None:
        super().__init__(safe_env_names=safe_env_names, **kwargs)
        self.network = network
        self.read_only = inside_workspace(read_only, self.workspace)
        found = shutil.which(bwrap)
        if found is None:
            raise SandboxUnavailable(f"bubblewrap ({bwrap!r}) is not installed; install the "
                                     "'bubblewrap' package or choose another executor")
        self.bwrap = found
        self._probe()

    def sandbox_argv(self, job: Job) -> list[str]:
        """The bwrap command line that runs ``job.argv`` in the sandbox."""
        argv = [self.bwrap, "--die-with-parent", "--new-session", "--unshare-all",
                "--cap-drop", "ALL"]
        if self.network:
            argv.append("--share-net")
        argv += _system_binds()
        argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        workspace = os.fspath(self.workspace)
        argv += ["--bind", workspace, workspace]
        for folder in pinned_dirs(self.read_only, self.workspace):  # mount points: no rename
            argv += ["--bind", folder, folder]
        for path in self.read_only:  # after the workspace bind, which they cover
            argv += ["--ro-bind", path, path]
        for state in hidden_state(self.workspace):
            argv += ["--tmpfs", state, "--remount-ro", state]
        argv += ["--chdir", os.fspath(job.cwd), "--"]
        return argv + job.argv

    def _execute(self, job: Job) -> ExecResult:
        """In a control group limited to ``Limits.pids`` processes and ``Limits.memory`` bytes
        where the machine lets us make one (a fork loop or a memory hog stays inside); else
        under ``prlimit`` (``RLIMIT_NPROC``, which does not bind root, and ``RLIMIT_DATA``, the
        heap and private writable mappings: unlike ``RLIMIT_AS`` it leaves the address space
        runtimes reserve alone). bwrap's pid namespace already ends every process when the
        command does."""
        with contextlib.ExitStack() as stack:
            containment = Containment.create(pids=self.limits.pids, memory=self.limits.memory)
            argv = self.sandbox_argv(job)
            if containment is not None:
                stack.enter_context(containment)
            else:
                argv = _rlimited(argv, self.limits.pids, self.limits.memory)
            return run_process(argv, cwd=job.cwd, env=job.env, timeout_s=job.timeout_s,
                               output_cap=job.output_cap, kill_grace_s=job.kill_grace_s,
                               containment=containment)

    def _probe(self) -> None:
        """Run ``true`` in a sandbox once: user namespaces may be disabled on this machine.
        The machine is probed, not the workspace (which may not exist yet)."""
        argv = [self.bwrap, "--die-with-parent", "--new-session", "--unshare-all",
                "--cap-drop", "ALL", *_system_binds(), "--proc", "/proc", "--dev", "/dev",
                "--chdir", "/", "--", "true"]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, check=False,
                                  timeout=PROBE_TIMEOUT_S, env=self.environment(
                                      ExecRequest(["true"])))
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxUnavailable(f"bubblewrap cannot start: {exc}") from exc
        if done.returncode != 0:
            raise SandboxUnavailable(f"bubblewrap cannot create its sandbox here: "
                                     f"{done.stderr.strip() or done.returncode}")


def _rlimited(argv: list[str], pids: int, memory: int) -> list[str]:
    """``argv`` under ``prlimit`` with the process and data limits (util-linux; without it
    the command runs with the pid namespace's containment only, as the README says)."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return argv
    return [prlimit, f"--nproc={pids}", f"--data={memory}", "--", *argv]


def _system_binds() -> list[str]:
    """Read-only binds of the system directories that exist; symlinks (merged /usr) recreated."""
    args: list[str] = []
    for name in SYSTEM_DIRS:
        path = Path("/", name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), f"/{name}"]
        elif path.is_dir():
            args += ["--ro-bind", f"/{name}", f"/{name}"]
    for masked in MASKED_FILES:
        if Path(masked).exists():
            args += ["--ro-bind", "/dev/null", masked]
    return args
