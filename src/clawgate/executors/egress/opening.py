"""The proxy's listener made in a bubblewrap sandbox's network namespace before its command
starts (``Opening``): bwrap reports its sandbox on ``--info-fd`` and holds the command on
``--block-fd`` until the listener is there (``netns.listen_in``), and until every other step
given (the protected links held: ``linkpin.py``) is done."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import select
import signal
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from clawgate.executors.egress.netns import JOIN_TIMEOUT_S, NamespaceUnavailable, listen_in

READ_SYSCALL = {"x86_64": 0, "aarch64": 63, "riscv64": 63, "loongarch64": 63}
_BUILD_WAITS_S = (0.0002,) * 10 + (0.001,) * 100 + (0.01,) * 2000  # some 20 s in all


class Opening:
    """The proxy's listener made in a bubblewrap sandbox's network namespace before its
    command starts. bwrap writes its sandbox's pid and namespaces to ``--info-fd`` and waits
    on ``--block-fd`` before it runs the command; a thread of ours reads them, makes the
    listener on 127.0.0.1:``port`` there (``listen_in``, checked to be the namespace bwrap
    named), hands it to ``ready`` and only then lets the command start. Where that fails,
    the sandbox is killed before its command runs, and ``failure`` says why. Without a
    ``port``, no listener; each of ``steps`` is then given bwrap's report, in turn, before the
    command is let start (one that raises OSError fails the run as above). The thread starts
    on entering, or, when ``lazy``, at ``start``."""

    def __init__(self, port: int | None, ready: Callable[[socket.socket], None],
                 steps: Sequence[Callable[[dict[str, Any]], None]] = (), *,
                 lazy: bool = False) -> None:
        self.port = port
        self.lazy = lazy
        self.ready = ready
        self.steps = tuple(steps)
        self.failure: str | None = None
        self.info_read, self.info_write = os.pipe2(os.O_CLOEXEC)
        self.block_read, self.block_write = os.pipe2(os.O_CLOEXEC)
        self.wake_read, self.wake_write = os.pipe2(os.O_CLOEXEC)
        self._thread = threading.Thread(target=self._open, name="clawgate-egress-opening",
                                        daemon=True)

    @property
    def fds(self) -> tuple[int, int]:
        """The ends bwrap inherits."""
        return self.info_write, self.block_read

    def bwrap_args(self) -> list[str]:
        return ["--info-fd", str(self.info_write), "--block-fd", str(self.block_read)]

    def __enter__(self) -> Opening:
        if not self.lazy:
            self.start()
        return self

    def start(self) -> None:
        """Start waiting for bwrap's report (on entering, unless ``lazy``: then the caller
        starts it, once bwrap is on its way; the report waits in the pipe meanwhile)."""
        if self._thread.ident is None:
            self._thread.start()

    def __exit__(self, *_exc: object) -> None:
        os.write(self.wake_write, b"x")  # the run is over: stop waiting for bwrap
        if self._thread.ident is not None:
            self._thread.join(JOIN_TIMEOUT_S)
        for fd in (self.info_read, self.info_write, self.block_read, self.block_write,
                   self.wake_read, self.wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _open(self) -> None:
        pid = 0
        doing = "reading bubblewrap's report on its sandbox"
        try:
            info = self._info()
            if info is None:
                return  # bwrap ended (or never started) before its sandbox was built
            pid = int(info["child-pid"])
            if self.port is not None:
                inode = int(info["net-namespace"])
                doing = "making the proxy's listener inside"
                listener = listen_in(pid, self.port, belongs=lambda: _inode(pid) == inode)
                doing = "handing the listener to the proxy"
                self.ready(listener)
            if self.steps:
                doing = "waiting for the sandbox to be built"
                self._built(pid)
            for step in self.steps:
                doing = "setting the sandbox up"
                step(info)
            doing = "letting the command start"
            os.write(self.block_write, b"x")
        except (NamespaceUnavailable, OSError, ValueError, KeyError, TypeError) as exc:
            self.failure = f"{doing}: {exc}"
            if pid <= 0:
                return  # no sandbox to kill: it stays held until the run's time limit
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)  # the command must not start without it
            with contextlib.suppress(OSError):
                os.close(self.block_write)

    def _built(self, pid: int) -> None:
        """Wait until bwrap's sandbox process ``pid`` waits on the block fd: its mounts are
        all made then (bwrap reports the sandbox as soon as it has its pid, while it is still
        building it, and reads the block fd once it is done). Raises OSError."""
        number = READ_SYSCALL.get(platform.machine())
        if number is None:
            raise OSError(0, f"no read(2) number known for {platform.machine()}")
        expected = f"{number} {hex(self.block_read)} "  # read(2), then its arguments
        for wait in _BUILD_WAITS_S:
            if self.stopped():
                raise OSError(0, "the run ended first")
            with open(f"/proc/{pid}/syscall", encoding="ascii") as status:
                if status.read().startswith(expected):
                    return
            time.sleep(wait)
        raise OSError(0, f"the sandbox was not built within {sum(_BUILD_WAITS_S):.0f} s")

    def stopped(self) -> bool:
        """Whether the run is over (``__exit__`` began)."""
        return bool(select.select([self.wake_read], [], [], 0)[0])

    def _info(self) -> dict[str, Any] | None:
        """bwrap's JSON report; None when the run ended first."""
        poller = select.poll()
        poller.register(self.info_read, select.POLLIN)
        poller.register(self.wake_read, select.POLLIN)
        data = b""
        while True:
            ready = {fd for fd, _ in poller.poll()}
            if self.wake_read in ready:
                return None
            chunk = os.read(self.info_read, 4096)
            if not chunk:
                return None
            data += chunk
            try:
                report = json.loads(data)
            except ValueError:
                continue  # not whole yet
            if not isinstance(report, dict):
                raise ValueError(f"not a JSON object: {data[:100]!r}")
            return report


def _inode(pid: int) -> int:
    try:
        return os.stat(f"/proc/{pid}/ns/net").st_ino
    except OSError:
        return -1
