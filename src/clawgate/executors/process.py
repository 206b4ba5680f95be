"""Run a child process in its own process group with a deadline and bounded output capture.

Shared by the host and bubblewrap executors. Both pipes and a pidfd for the child are watched by
one selector on the calling thread, so nothing deadlocks on a full pipe and no reader thread is
needed. At most ``output_cap`` bytes per stream are kept; the rest is read and dropped (the
command keeps its exit code). When the child exits, whatever it left running in its group is
killed; on timeout the group gets SIGTERM, then SIGKILL after a grace period. Given a
``Containment`` (a control group per run), the child joins it before it runs anything, and
everything in it is killed with the group: what left the group with ``setsid`` too.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from clawgate.executors.base import TIMEOUT_EXIT, ExecResult
from clawgate.executors.cgroups import Containment

CHUNK = 64 * 1024
DRAIN_S = 1.0  # after the group is dead, how long a pipe may stay open (held by an escapee)
POLL_S = 0.05  # only without pidfd_open: how often to look whether the child exited


@dataclass
class _Capture:
    """One stream: the first ``cap`` bytes, and whether any were dropped."""

    cap: int
    data: bytearray = field(default_factory=bytearray)
    truncated: bool = False

    def feed(self, chunk: memoryview) -> None:
        room = self.cap - len(self.data)
        if len(chunk) > room:
            self.truncated = True
            chunk = chunk[:max(room, 0)]
        self.data += chunk

    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


@dataclass
class _State:
    """Where a run is: running, then (on timeout) terminating, then killed / draining."""

    deadline: float
    kill_grace_s: float
    containment: Containment | None = None
    timed_out: bool = False
    phase: str = "running"  # running -> terminating -> draining

    def step(self, now: float, pgid: int) -> None:
        """Move on when the current deadline has passed."""
        if self.phase == "running":
            self.timed_out = True
            _signal_group(pgid, signal.SIGTERM)
            self.phase, self.deadline = "terminating", now + self.kill_grace_s
        elif self.phase == "terminating":
            self.drain(now, pgid)
        else:
            self.phase = "done"

    def drain(self, now: float, pgid: int) -> None:
        _signal_group(pgid, signal.SIGKILL)
        if self.containment is not None:
            self.containment.kill_all()
        self.phase, self.deadline = "draining", now + DRAIN_S


def run_process(argv: list[str], *, cwd: Path, env: dict[str, str], timeout_s: float,
                output_cap: int, kill_grace_s: float,
                containment: Containment | None = None,
                pass_fds: tuple[int, ...] = ()) -> ExecResult:
    """Run ``argv`` to its end or its deadline; never leaves a process of its group (or of its
    control group, given one) behind. ``pass_fds`` stay open in the child (the sandbox's
    channel to its system-call supervisor)."""
    start = time.monotonic()
    if containment is not None:
        argv = containment.wrap(argv)
    proc = start_process(argv, cwd=cwd, env=env, pass_fds=pass_fds)
    if isinstance(proc, ExecResult):
        return proc
    return follow_process(proc, start, timeout_s=timeout_s, output_cap=output_cap,
                          kill_grace_s=kill_grace_s, containment=containment)


def start_process(argv: list[str], *, cwd: Path, env: dict[str, str],
                  pass_fds: tuple[int, ...] = (), stdin: int = subprocess.DEVNULL
                  ) -> subprocess.Popen[bytes] | ExecResult:
    """``argv`` started in a process group of its own, its output on pipes for
    ``follow_process`` (its input /dev/null unless ``stdin`` says otherwise); where it cannot
    be started, what a shell would say (exit 127/126)."""
    start = time.monotonic()
    try:
        return subprocess.Popen(argv, cwd=cwd, env=env, stdin=stdin,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, pass_fds=pass_fds)
    except OSError as exc:  # not found, not executable
        code = 127 if isinstance(exc, FileNotFoundError) else 126
        return ExecResult(code, "", f"{argv[0]}: {exc.strerror}\n",
                          (time.monotonic() - start) * 1000)


def follow_process(proc: subprocess.Popen[bytes], start: float, *, timeout_s: float,
                   output_cap: int, kill_grace_s: float,
                   containment: Containment | None = None) -> ExecResult:
    """Read ``proc``'s output until it ends or its deadline (``start`` + ``timeout_s``, on
    the ``time.monotonic`` clock) passes; then nothing of its group (or of ``containment``)
    is left."""
    assert proc.stdout is not None
    assert proc.stderr is not None
    out, err = _Capture(output_cap), _Capture(output_cap)
    state = _State(start + timeout_s, kill_grace_s, containment)
    try:
        _pump(proc, {proc.stdout.fileno(): out, proc.stderr.fileno(): err}, state)
    finally:
        abandon(proc, containment)
    code = TIMEOUT_EXIT if state.timed_out else _exit_code(proc.returncode)
    return ExecResult(code, out.text(), err.text(), (time.monotonic() - start) * 1000,
                      state.timed_out, out.truncated or err.truncated)


def abandon(proc: subprocess.Popen[bytes], containment: Containment | None = None) -> None:
    """Kill ``proc``'s group (and what is in ``containment``), close its pipes, reap it."""
    _signal_group(proc.pid, signal.SIGKILL)  # whatever happened, nothing survives
    if containment is not None:
        containment.kill_all()
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    proc.wait()


def _pump(proc: subprocess.Popen[bytes], captures: dict[int, _Capture], state: _State) -> None:
    """Read both pipes until they close (or the last deadline passes); follow the child."""
    buffer = bytearray(CHUNK)
    view = memoryview(buffer)
    pipes = set(captures)
    pidfd = _pidfd(proc.pid)
    with selectors.DefaultSelector() as selector:
        for fd in pipes:
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        if pidfd is not None:
            selector.register(pidfd, selectors.EVENT_READ)
        try:
            # Both conditions: a program may close its output before it exits (coreutils do,
            # at exit), and one may exit while something it started still holds the pipes.
            while (pipes or proc.returncode is None) and state.phase != "done":
                now = time.monotonic()
                if now >= state.deadline:
                    state.step(now, proc.pid)
                    continue
                wait = state.deadline - now if pidfd is not None else min(POLL_S,
                                                                          state.deadline - now)
                for key, _ in selector.select(wait):
                    if key.fd == pidfd:
                        selector.unregister(pidfd)
                        _child_exited(proc, state)
                    elif not _read(key.fd, view, buffer, captures[key.fd]):
                        selector.unregister(key.fd)
                        pipes.discard(key.fd)
                if pidfd is None and state.phase == "running" and proc.poll() is not None:
                    _child_exited(proc, state)
        finally:
            if pidfd is not None:
                os.close(pidfd)


def _child_exited(proc: subprocess.Popen[bytes], state: _State) -> None:
    """The command is over: what it left running in its group (``sleep 1000 &``) dies now."""
    proc.wait()
    if state.phase == "running":
        state.drain(time.monotonic(), proc.pid)


def _read(fd: int, view: memoryview, buffer: bytearray, capture: _Capture) -> bool:
    """Read what is there into the capture; False at end of file."""
    try:
        count = os.readv(fd, [buffer])
    except BlockingIOError:
        return True
    if count == 0:
        return False
    capture.feed(view[:count])
    return True


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):  # an old kernel: fall back to polling
        return None


def _signal_group(pgid: int, signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(pgid, signum)


def _exit_code(returncode: int) -> int:
    """A shell's view: 128+N for a child killed by signal N."""
    return 128 - returncode if returncode < 0 else returncode
