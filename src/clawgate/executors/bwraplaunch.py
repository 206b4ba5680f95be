"""bubblewrap started before its sandbox's options are known, and given them once they are.

Before bubblewrap can build a run's sandbox, this process builds the view of the workspace and
makes the placeholders' mount points (``view.py``, ``placeholders.py``): milliseconds of its
own time. Starting bubblewrap (a process of this large one, the control groups' shim, then
``exec``) takes about as long again. So bubblewrap is started first, with ``--args FD`` and its
command: it reads the rest of its options from that pipe, and waits there before it makes any
namespace or starts anything, while this process builds them. The shim moves itself into the
run's control groups before it ``exec``s bubblewrap (``cgroups.py``), as for every run, and
says so on a pipe of its own; the options are written once it has, so everything bubblewrap
makes, its namespaces included, is made from inside the groups. Where the options cannot be
built or the groups cannot be joined, bubblewrap is killed without having started anything.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import subprocess
from pathlib import Path

from clawgate.errors import SandboxUnavailable
from clawgate.executors.base import ExecResult
from clawgate.executors.cgroups import Containment
from clawgate.executors.process import abandon, start_process

JOIN_WAIT_S = 30.0  # how long the shim may take to join its groups (a hang guard)


class Launch:
    """One run's bubblewrap, started, waiting for its options: ``give`` them, or ``abandon``
    it. ``proc`` is None where it could not be started (``failed`` says what a shell would).
    ``bwrap`` ends with the options that confine it whatever comes later: a bubblewrap whose
    pipe ends unwritten (this process killed meanwhile) builds an empty root around them and
    finds nothing there to run. Without ``containment``, ``bwrap`` carries its own limits
    (``prlimit``)."""

    def __init__(self, bwrap: list[str], command: list[str], *, cwd: Path,
                 env: dict[str, str], pass_fds: tuple[int, ...],
                 containment: Containment | None) -> None:
        self.containment = containment
        self._joined = -1  # the reading end of the shim's pipe, -1 without one or once closed
        read, self._write = os.pipe2(os.O_CLOEXEC)  # -1 once closed
        argv = [*bwrap, "--args", str(read), "--", *command]
        said = -1
        if containment is not None:
            self._joined, said = os.pipe2(os.O_CLOEXEC)
            argv = containment.wrap(argv, ready=True)
        try:
            started = start_process(argv, cwd=cwd, env=env, pass_fds=(*pass_fds, read),
                                    stdin=said if said >= 0 else subprocess.DEVNULL)
        finally:
            os.close(read)
            if said >= 0:
                os.close(said)
        self.proc: subprocess.Popen[bytes] | None = None
        self.failed: ExecResult | None = None
        if isinstance(started, ExecResult):
            self.failed = started
            self._close()
            return
        self.proc = started

    def give(self, options: list[str]) -> subprocess.Popen[bytes]:
        """Write ``options`` (no NUL in any) once bubblewrap is in its control groups, and
        hand it back to be followed. Raises SandboxUnavailable (bubblewrap killed)."""
        assert self.proc is not None
        try:
            if self._joined >= 0 and not _one_byte(self._joined, JOIN_WAIT_S):
                raise SandboxUnavailable("the sandbox could not be put in its control group; "
                                         "the command was not run")
            if any("\0" in option for option in options):
                raise SandboxUnavailable("a sandbox option holds a NUL character; the "
                                         "command was not run")
            data = b"".join(os.fsencode(option) + b"\0" for option in options)
            try:
                _write_whole(self._write, data)
            except OSError as exc:
                raise SandboxUnavailable(f"bubblewrap could not be given its options: "
                                         f"{exc.strerror or exc}; the command was not "
                                         "run") from exc
        except BaseException:
            self.abandon()
            raise
        self._close()
        return self.proc

    def abandon(self) -> None:
        """Kill bubblewrap, which has started nothing yet, and reap it; only then close the
        pipe (at its end, bubblewrap would go on with the options it has)."""
        if self.proc is not None:
            abandon(self.proc, self.containment)
        self._close()

    def _close(self) -> None:
        for name in ("_write", "_joined"):
            fd = getattr(self, name)
            if fd >= 0:
                os.close(fd)
                setattr(self, name, -1)


def _one_byte(fd: int, wait_s: float) -> bool:
    """Whether a byte comes on ``fd`` within ``wait_s`` (False at the pipe's end: the shim
    ended without joining)."""
    ready, _, _ = select.select([fd], [], [], wait_s)
    return bool(ready) and os.read(fd, 1) == b"x"


def _write_whole(fd: int, data: bytes) -> None:
    """``data`` into the pipe ``fd`` in one ``write``, the pipe first made large enough to
    take it whole: bubblewrap reads options up to the pipe's end, and options cut short (this
    process killed between two writes) could leave out the mounts that protect paths."""
    if len(data) > fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, len(data))
    if os.write(fd, data) != len(data):
        raise OSError(errno.EIO, "the options were not written whole")
