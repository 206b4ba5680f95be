"""The supervisor of the sandbox's system-call filter: it hands the loader the filter, takes
back the listener, and answers every refused call, recording it.

One ``SyscallWatch`` per run. Before the sandbox starts it makes a Unix socket pair and puts the
filter program on it; the loader (``seccomp_loader.py``, the first thing run inside the sandbox)
reads it, installs it with a listener, and sends the listener back. A thread of ours then reads
the listener's notifications (``SECCOMP_IOCTL_NOTIF_RECV``: the pid, the call's number and
arguments), records each, and answers it with an error (``SECCOMP_IOCTL_NOTIF_SEND``), so the
call fails in the command as it would without the privilege: ``EPERM`` for a denied call,
``ENOSYS`` for one the filter does not know. A refusal is answered whatever happens to the
record; should the thread die, closing the listener fails every waiting call with ``ENOSYS``.

A loop of refused calls is answered one by one but kept in bounded memory: the first
``KEEP`` refusals in full, the rest counted per call.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import struct
import threading
from collections import Counter
from dataclasses import dataclass, field
from fcntl import ioctl
from types import TracebackType

from clawgate.executors.seccomp_filter import ENOSYS, EPERM, build_program, known, name_of

# _IOWR('!', 0, struct seccomp_notif) and _IOWR('!', 1, struct seccomp_notif_resp)
NOTIF_SIZE, RESP_SIZE = 80, 24
IOCTL_NOTIF_RECV = 0xC0000000 | (NOTIF_SIZE << 16) | (ord("!") << 8) | 0
IOCTL_NOTIF_SEND = 0xC0000000 | (RESP_SIZE << 16) | (ord("!") << 8) | 1
KEEP = 64


@dataclass(frozen=True, slots=True)
class SyscallRefusal:
    """One refused call: who made it (pid as the supervisor sees it), which, its arguments,
    and whether the filter knows it (``denied``) or not (``unknown``)."""

    pid: int
    number: int
    name: str
    args: tuple[int, ...]
    kind: str  # "denied" | "unknown"

    def as_dict(self) -> dict[str, object]:
        return {"syscall": self.name, "nr": self.number, "kind": self.kind, "pid": self.pid,
                "args": [hex(a) for a in self.args]}


@dataclass
class WatchReport:
    """What a run's filter did: the refusals kept, the count of each refused call."""

    installed: bool = False
    failure: str | None = None
    refusals: list[SyscallRefusal] = field(default_factory=list)
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)  # (name, kind) -> n

    def add(self, refusal: SyscallRefusal) -> None:
        self.counts[(refusal.name, refusal.kind)] += 1
        if len(self.refusals) < KEEP:
            self.refusals.append(refusal)


class SyscallWatch:
    """Use as a context manager around the run: the sandbox gets ``child_fd`` (inherited) and
    runs the loader with it before the command. ``report`` is complete after the ``with``.
    ``program``: the filter (``build_program()`` unless given)."""

    def __init__(self, program: bytes | None = None) -> None:
        self._parent, self._child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._parent.send(build_program() if program is None else program)
        self._stop_r, self._stop_w = os.pipe()
        self.report = WatchReport()
        self._thread = threading.Thread(target=self._serve, name="clawgate-seccomp",
                                        daemon=True)

    @property
    def child_fd(self) -> int:
        return self._child.fileno()

    def __enter__(self) -> SyscallWatch:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        os.write(self._stop_w, b"x")
        self._thread.join()
        for closing in (self._parent, self._child):
            closing.close()
        os.close(self._stop_r)
        os.close(self._stop_w)

    def _serve(self) -> None:
        listener = self._handshake()
        if listener is None:
            return
        try:
            self._answer_all(listener)
        finally:
            os.close(listener)

    def _handshake(self) -> int | None:
        """The listener the loader sends, or None: the loader's own error noted as the
        failure; nothing noted when the loader never ran (bwrap failed: its exit says so)."""
        # No deadline of its own: the run's timeout ends the wait (the loader starts a Python,
        # which may be slow on a busy machine, and a listener nobody reads would hang it).
        ready, _, _ = select.select([self._parent.fileno(), self._stop_r], [], [])
        if self._parent.fileno() not in ready:
            return None
        try:
            message, fds, _flags, _addr = socket.recv_fds(self._parent, 4096, 1)
        except OSError as exc:
            self.report.failure = f"the filter's listener could not be received: {exc}"
            return None
        if message == b"ok" and len(fds) == 1:
            self.report.installed = True
            return fds[0]
        for fd in fds:
            os.close(fd)
        if message.startswith(b"error: "):
            self.report.failure = message.decode("utf-8", "replace").removeprefix("error: ")
        else:
            self.report.failure = f"the sandbox's loader sent {message[:80]!r}"
        return None

    def _answer_all(self, listener: int) -> None:
        poller = select.poll()
        poller.register(listener, select.POLLIN)
        poller.register(self._stop_r, select.POLLIN)
        while True:
            for fd, events in poller.poll():
                if fd == self._stop_r:
                    return
                if events & select.POLLIN:
                    self._answer_one(listener)
                elif events & (select.POLLHUP | select.POLLERR):
                    return  # every process under the filter has exited

    def _answer_one(self, listener: int) -> None:
        buffer = bytearray(NOTIF_SIZE)
        try:
            ioctl(listener, IOCTL_NOTIF_RECV, buffer, True)
        except OSError:  # the caller was killed meanwhile (ENOENT): nothing to answer
            return
        ident, pid, _flags, number, _arch, _ip = struct.unpack_from("<QIIiIQ", buffer)
        args = struct.unpack_from("<6Q", buffer, 32)
        kind = "denied" if known(number) else "unknown"
        with contextlib.suppress(OSError):  # ENOENT: the caller is gone
            ioctl(listener, IOCTL_NOTIF_SEND,
                  struct.pack("<QqiI", ident, 0, -(EPERM if kind == "denied" else ENOSYS), 0))
        self.report.add(SyscallRefusal(pid, number, name_of(number), args, kind))
