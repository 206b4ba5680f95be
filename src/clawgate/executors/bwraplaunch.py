"""bubblewrap started before its sandbox's options are known, and given them once they are.

Before bubblewrap can build a run's sandbox, this process builds the view of the workspace and
makes the placeholders' mount points (``view.py``, ``placeholders.py``): milliseconds of its
own time. Starting bubblewrap (a process of this large one, then ``exec``) and putting it in the
run's control groups, which waits for an RCU grace period (``cgroups.py``), take about as long,
mostly waiting on the kernel. So bubblewrap is started first, with ``--args FD`` and its
command: it reads its options from that pipe, and waits there before it makes any namespace or
starts anything. A thread puts it in the control groups meanwhile (so it is in them before it
forks, as under the shim, and everything it starts is made from inside them), while this one
builds the options; they are written once it is in. Where the options cannot be built or
bubblewrap cannot be put in its groups, it is killed without having started anything.
"""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import threading
from pathlib import Path

from clawgate.errors import SandboxUnavailable
from clawgate.executors.base import ExecResult
from clawgate.executors.cgroups import Containment
from clawgate.executors.process import abandon, start_process


class Launch:
    """One run's bubblewrap, started, waiting for its options: ``give`` them, or ``abandon``
    it. ``proc`` is None where it could not be started (``failed`` says what a shell would).
    ``bwrap`` ends with the options that confine it whatever comes later: a bubblewrap whose
    pipe ends unwritten (this process killed meanwhile) builds an empty root around them and
    finds nothing there to run."""

    def __init__(self, bwrap: list[str], command: list[str], *, cwd: Path,
                 env: dict[str, str], pass_fds: tuple[int, ...],
                 containment: Containment | None) -> None:
        self.containment = containment
        self._admitted: OSError | None = None
        read, self._write = os.pipe2(os.O_CLOEXEC)  # -1 once closed
        try:
            started = start_process([*bwrap, "--args", str(read), "--", *command], cwd=cwd,
                                    env=env, pass_fds=(*pass_fds, read))
        finally:
            os.close(read)
        self.proc: subprocess.Popen[bytes] | None = None
        self.failed: ExecResult | None = None
        self._thread: threading.Thread | None = None
        if isinstance(started, ExecResult):
            self.failed = started
            self._close()
            return
        self.proc = started
        if containment is not None:
            self._thread = threading.Thread(target=self._admit, name="clawgate-cgroup-admit",
                                            daemon=True)
            self._thread.start()

    def _admit(self) -> None:
        assert self.proc is not None and self.containment is not None
        try:
            self.containment.admit(self.proc.pid)
        except OSError as exc:
            self._admitted = exc

    def give(self, options: list[str]) -> subprocess.Popen[bytes]:
        """Write ``options`` (no NUL in any) once bubblewrap is in its control groups, and
        hand it back to be followed. Raises SandboxUnavailable (bubblewrap killed)."""
        assert self.proc is not None
        try:
            if self._thread is not None:
                self._thread.join()
            if self._admitted is not None:
                raise SandboxUnavailable(f"the sandbox could not be put in its control group "
                                         f"({self._admitted.strerror or self._admitted}); "
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
            if self._thread is not None:
                self._thread.join()  # (a pid moved after it was reaped could be another's)
            abandon(self.proc, self.containment)
        self._close()


    def _close(self) -> None:
        if self._write >= 0:
            os.close(self._write)
            self._write = -1


def _write_whole(fd: int, data: bytes) -> None:
    """``data`` into the pipe ``fd`` in one ``write``, the pipe first made large enough to
    take it whole: bubblewrap reads options up to the pipe's end, and options cut short (this
    process killed between two writes) could leave out the mounts that protect paths."""
    if len(data) > fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, len(data))
    if os.write(fd, data) != len(data):
        raise OSError(errno.EIO, "the options were not written whole")
