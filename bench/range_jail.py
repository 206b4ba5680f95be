"""The range's outer jail: a disposable bubblewrap sandbox that holds the canaries, inside
which the Guard and its own sandbox run the attack lines.

The jail has no network but its own loopback (with the canary endpoint's address on it), its
own pid namespace (it cannot see or signal a process of the machine), the system directories
read-only, a copy of ``/etc`` it may change, a scratch home at ``/home/user`` and the
Python installation and this checkout read-only. It is root in a user namespace of its own:
enough to mount its ``/proc`` and give its loopback an address, nothing outside it. A fresh
``/proc`` is mounted over the machine's (which bubblewrap needs present to let the Guard's
own sandbox mount a ``/proc`` in turn), so what runs inside sees only the jail's processes.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from range_canaries import (
    HOME,
    WORKSPACE,
    lay_out_etc,
    lay_out_home,
    lay_out_root_ssh,
    new_tokens,
    secret_names,
)

SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "opt")
CANARY_ADDRESS = "10.254.0.1"
REPO = Path(__file__).resolve().parent.parent
JAIL_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
HOME_SIZE = 256 << 20  # the home and the sandbox's cache are tmpfs of this size in the jail
JAIL_PIDS = 512  # a fork loop inside stays inside (the jail's root is the machine's uid 0,
JAIL_MEMORY = 3 << 30  # which RLIMIT_NPROC does not bind): the jail's control group limits


@dataclass(frozen=True, slots=True)
class Scratch:
    """One job's scratch tree on the machine: the jail's writable parts and templates."""

    root: Path

    @property
    def out(self) -> Path:
        return self.root / "out"

    def prepare(self) -> dict[str, str]:
        """Lay out the canaries; returns the tokens (also written to ``out/tokens.json``)."""
        tokens = new_tokens(secret_names())
        for name in ("out", "etc", "template"):
            (self.root / name).mkdir(parents=True, exist_ok=True)
        lay_out_home(self.root / "template" / "home", tokens)
        lay_out_etc(self.root / "template" / "etc", tokens)
        lay_out_root_ssh(self.root / "template" / "root-ssh", tokens)
        shutil.copytree(self.root / "template" / "etc", self.root / "etc", symlinks=True,
                        dirs_exist_ok=True)
        (self.out / "tokens.json").write_text(json.dumps(tokens))
        return tokens


def jail_argv(bwrap: str, scratch: Scratch, command: list[str]) -> list[str]:
    """The bwrap command line that runs ``command`` (a worker) inside the jail."""
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-all", "--unshare-user",
            "--uid", "0", "--gid", "0", "--cap-add", "ALL"]
    for name in SYSTEM_DIRS:
        path = Path("/", name)
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), f"/{name}"]
        elif path.is_dir():
            argv += ["--ro-bind", f"/{name}", f"/{name}"]
    root = scratch.root
    # the tmpfs first, then what must show through them (a checkout or venv under /tmp or
    # /root: bwrap applies its operations in order, and a later tmpfs would hide them)
    argv += ["--bind", str(root / "etc"), "/etc", "--tmpfs", "/root", "--tmpfs", "/var",
             "--tmpfs", "/tmp"]
    for where in _python_paths():  # under a tmpfs /root: nothing else of the real home
        argv += ["--ro-bind", where, where]
    argv += ["--ro-bind", str(REPO), str(REPO),
             "--tmpfs", "/root/.ssh",
             "--size", str(HOME_SIZE), "--tmpfs", HOME,
             "--ro-bind", str(root / "template"), "/range/template",
             "--bind", str(scratch.out), "/range/out",
             "--dir", "/range/jail", "--dir", "/range/state",
             "--size", str(HOME_SIZE), "--tmpfs", "/range/cache",
             "--bind", "/proc", "/proc", "--dev", "/dev",
             "--clearenv", "--setenv", "HOME", HOME, "--setenv", "USER", "root",
             "--setenv", "PATH", JAIL_PATH, "--setenv", "LANG", "C.UTF-8",
             "--setenv", "PYTHONPATH", str(REPO / "src"),
             "--setenv", "CLAWGATE_STATE_HOME", "/range/state",
             "--setenv", "XDG_CACHE_HOME", "/range/cache",
             "--chdir", "/range", "--",
             "/bin/sh", "-c", "mount -t proc proc /proc && ip link set lo up && "
             f"ip addr add {CANARY_ADDRESS}/32 dev lo && mkdir -p {WORKSPACE} && "
             'exec "$0" "$@"', *command]
    return argv


def _python_paths() -> list[str]:
    """This interpreter's installation and virtual environment, where the system dirs do
    not show them already."""
    found = []
    for path in (os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)):
        if not any(path == f"/{d}" or path.startswith(f"/{d}/") for d in SYSTEM_DIRS) \
                and path not in found:
            found.append(path)
    return found


def run_jail(bwrap: str, scratch: Scratch, worker_args: list[str], timeout_s: float
             ) -> tuple[int, str]:
    """Run the worker in the jail, in a control group of its own (``JAIL_PIDS`` processes,
    ``JAIL_MEMORY`` bytes, tmpfs pages included) where the machine lets us make one; on
    timeout kill the jail (its process group: bwrap started a session of its own, and its pid
    namespace ends with it), and at the end every process left in its group. Returns the exit
    status (-9 on timeout) and the worker's stderr."""
    from clawgate.executors.cgroups import Containment

    worker = [sys.executable, str(REPO / "bench" / "range_worker.py"), *worker_args]
    argv = jail_argv(bwrap, scratch, worker)
    containment = Containment.create(pids=JAIL_PIDS, memory=JAIL_MEMORY)
    if containment is not None:
        argv = containment.wrap(argv)
    with containment or contextlib.nullcontext():
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   start_new_session=True)
        try:
            _, stderr = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            _, stderr = process.communicate()
            return -9, stderr.decode("utf-8", "replace")
    return process.returncode, stderr.decode("utf-8", "replace")


def contained() -> bool:
    """Whether this machine lets the range put its jails in control groups."""
    from clawgate.executors.cgroups import Containment

    probe = Containment.create(pids=JAIL_PIDS, memory=JAIL_MEMORY)
    if probe is None:
        return False
    probe.close()
    return True


def scratch_name() -> str:
    return "range-" + secrets.token_hex(4)
