"""The bubblewrap sandbox a shadow run happens in, and the process that runs it.

No namespace is shared (no network: only a loopback of its own), capabilities are dropped,
the session is new and the sandbox dies with its parent. The system is read-only, and every
directory a program is looked up in (``/usr/bin``, ``/bin``, ``/usr/local/bin``, ``/sbin``,
…) is replaced by the stub directory: each name there is a link to the recorder. The home
directory is an empty tmpfs at the caller's home path, ``/tmp`` another, and the working
directory a scratch copy of the caller's one holding its entries' names only (directories
empty, everything else a link to the recorder), at the caller's path; ``/etc`` is not there.
Limits: a wall-clock deadline, after which the whole process group is killed (bwrap's pid
namespace takes every process inside with it), and ``prlimit`` on processes, address space,
CPU time and file size.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path

from clawgate.records import record
from clawgate.shell.shadow.recorder import RECORDER, ROOT, TRACE
from clawgate.shell.shadow.tools import STUB_DIRS

LINKED_SYSTEM = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
UNMOUNTABLE = ("/usr", "/proc", "/dev", "/bin", "/sbin", "/lib", "/.clawgate-shadow", "/etc")
MAX_MIRRORED = 1000  # entries of the working directory copied by name
STDERR_BYTES = 2000


@record(frozen=True, slots=True)
class Limits:
    """A shadow run's bounds."""

    timeout_s: float = 0.2
    address_space: int = 512 << 20
    extra_processes: int = 64  # above the tasks this user already has
    cpu_s: int = 2
    file_size: int = 16 << 20
    tmpfs_size: int = 32 << 20


@record(frozen=True, slots=True)
class Finished:
    timed_out: bool
    returncode: int | None
    stderr: str


def bwrap_argv(bwrap: str, base: Path, run_dir: Path, cwd: str, home: str, limits: Limits
               ) -> list[str]:
    """The bwrap command line of one run. ``base`` holds ``stubs`` (the stub directory) and
    ``root`` (the recorder, its start-up file and copies of the real programs, bound at
    ``/.clawgate-shadow`` in one mount: each bind costs bwrap about a millisecond);
    ``run_dir`` this run's trace and scratch directories."""
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL",
            "--ro-bind", "/usr", "/usr"]
    stubs = os.fspath(base / "stubs")
    for directory in STUB_DIRS:
        if os.path.isdir(directory) and not os.path.islink(directory):
            argv += ["--ro-bind", stubs, directory]
    for name in LINKED_SYSTEM:
        path = Path("/", name)
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), f"/{name}"]
        elif path.is_dir() and f"/{name}" not in STUB_DIRS:
            argv += ["--ro-bind", f"/{name}", f"/{name}"]
    argv += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
             "--proc", "/proc", "--dev", "/dev",
             "--size", str(limits.tmpfs_size), "--tmpfs", "/tmp",
             "--ro-bind", os.fspath(base / "root"), ROOT]
    argv += ["--bind", os.fspath(run_dir / "trace"), TRACE]
    places = {"home": home, "cwd": cwd}
    for kind, place in sorted(places.items(), key=lambda item: len(item[1])):  # outer first
        if kind == "home" and _mountable(place) and place != cwd:
            argv += ["--size", str(limits.tmpfs_size), "--tmpfs", place]
        elif kind == "cwd" and _mountable(place):
            argv += ["--size", str(limits.tmpfs_size), "--tmpfs", place, *mirror(place)]
    return [*argv, "--chdir", cwd if _mountable(cwd) else "/", "--"]


def _mountable(path: str) -> bool:
    """Whether a tmpfs or a bind can stand at ``path`` (not the root, nor inside the system
    the sandbox binds)."""
    if not path.startswith("/") or path.rstrip("/") == "":
        return False
    return not any(path == d or path.startswith(d + "/") for d in UNMOUNTABLE)


def mirror(cwd: str) -> list[str]:
    """bwrap's arguments that put the names of ``cwd``'s entries in the sandbox's tmpfs at
    ``cwd``: directories empty, anything else a link to the recorder (``./build.sh`` is
    recorded when run). Nothing is read but the names."""
    try:
        with os.scandir(cwd) as found:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in found]
    except OSError:
        return []
    args: list[str] = []
    for name, is_dir in sorted(entries)[:MAX_MIRRORED]:
        path = os.path.join(cwd, name)
        args += ["--dir", path] if is_dir else ["--symlink", RECORDER, path]
    return args


def run_limited(argv: list[str], env: Mapping[str, str], limits: Limits,
                stderr_path: Path) -> Finished:
    """Run ``argv`` under the limits; on the deadline, kill its process group. Where a control
    group can be made (root, or a delegated hierarchy), the run is in one of its own holding
    at most ``extra_processes`` processes: ``RLIMIT_NPROC`` does not bind root, and a fork
    loop the line hides would otherwise fill the machine until the deadline."""
    from shutil import which

    from clawgate.executors.cgroups import Containment

    prlimit = which("prlimit")
    if prlimit is not None:
        argv = [prlimit, f"--nproc={_tasks() + limits.extra_processes}",
                f"--as={limits.address_space}", f"--cpu={limits.cpu_s}",
                f"--fsize={limits.file_size}", "--", *argv]
    with contextlib.ExitStack() as stack, stderr_path.open("wb") as err:
        group = Containment.create(pids=limits.extra_processes)
        if group is not None:
            stack.enter_context(group)  # what is left in it is killed at the end
            argv = group.wrap(argv)
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=err, env=dict(env), start_new_session=True)
        timed_out = not _ended_within(process, limits.timeout_s)
        if timed_out:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    with stderr_path.open("rb") as err:
        said = err.read(STDERR_BYTES).decode("utf-8", "replace")
    return Finished(timed_out, None if timed_out else process.returncode, said)


def _ended_within(process: subprocess.Popen[bytes], timeout_s: float) -> bool:
    """Whether ``process`` ends within ``timeout_s``: woken by its pidfd the moment it does
    (``Popen.wait`` with a timeout polls, sleeping up to 50 ms at a time)."""
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return False
        return True
    try:
        ready, _, _ = select.select([pidfd], [], [], timeout_s)
    finally:
        os.close(pidfd)
    return bool(ready)


def _tasks() -> int:
    """The tasks on this machine now (``/proc/loadavg``'s fourth field): an upper bound of
    this user's, over which ``RLIMIT_NPROC`` allows only a few more."""
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            return int(handle.read().split()[3].partition("/")[2])
    except (OSError, ValueError, IndexError):
        return 4096
