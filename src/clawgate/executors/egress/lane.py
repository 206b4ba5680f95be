"""What the egress proxy knows of a run's connections: each one as it goes (``Progress``),
as the audit records it (``Connection``), and the run's socket with its connections
(``Lane``)."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from clawgate.egressrules import Verdict

SOCKET_NAME = "proxy.sock"
HANDOFF_NAME = "handoff.sock"  # where a sandbox hands over its listener (``handoff.py``)


@dataclass(frozen=True, slots=True)
class Connection:
    """One connection a sandboxed program asked for, as the audit records it."""

    run: str  # the lane's id: every connection of one run shares it
    command: str
    via: str  # connect, http, socks5
    host: str
    port: int
    allowed: bool
    key: str  # the policy key that decided
    why: str
    address: str = ""  # what the proxy connected to
    bytes_up: int = 0  # from the sandbox
    bytes_down: int = 0  # to the sandbox
    duration_ms: float = 0.0
    error: str = ""


Sink = Callable[[Connection], None]


@dataclass
class Progress:
    """What is known of a connection so far (it becomes a ``Connection`` at its end)."""

    via: str = "unknown"
    host: str = ""
    port: int = 0
    allowed: bool | None = None  # None: nothing was asked (the program sent nothing)
    key: str = ""
    why: str = ""
    address: str = ""
    bytes_up: int = 0
    bytes_down: int = 0
    error: str = ""

    def decided(self, verdict: Verdict) -> None:
        self.allowed, self.key, self.why = verdict.allowed, verdict.key, verdict.why


@dataclass
class Lane:
    """One run's socket: its directory (bind-mounted into the sandbox), its id, its
    connections (their threads and sockets) and what they did."""

    directory: str
    run: str
    command: str
    listeners: list[tuple[socket.socket, threading.Thread]] = field(default_factory=list)
    closed: bool = False
    threads: list[threading.Thread] = field(default_factory=list)
    sockets: set[socket.socket] = field(default_factory=set)
    seen: list[Connection] = field(default_factory=list)
    handoff_failure: str | None = None  # why a listener handed over was refused
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def socket_path(self) -> str:
        return os.path.join(self.directory, SOCKET_NAME)

    @property
    def handoff_path(self) -> str:
        return os.path.join(self.directory, HANDOFF_NAME)

    def bind(self, sock: socket.socket, name: str) -> None:
        """Bind the Unix socket ``sock`` to ``name`` in the lane's directory, reached through
        a descriptor of it (``/proc/self/fd``): a socket's address has at most 107 bytes, the
        directory's path in the guard's state may have more."""
        folder = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            sock.bind(f"/proc/self/fd/{folder}/{name}")
        finally:
            os.close(folder)

    def add_listener(self, listener: socket.socket, accepting: threading.Thread) -> bool:
        """Keep ``listener`` and its accepting thread, unless the lane is closed already."""
        with self.lock:
            if self.closed:
                return False
            self.listeners.append((listener, accepting))
            return True

    def close_listeners(self) -> list[tuple[socket.socket, threading.Thread]]:
        """The lane takes no more listeners; the ones it has, to stop."""
        with self.lock:
            self.closed = True
            return list(self.listeners)

    def admit(self, thread: threading.Thread, conn: socket.socket, cap: int) -> bool:
        """Take a new connection and its thread, unless ``cap`` are open already."""
        with self.lock:
            self.threads = [t for t in self.threads if t.is_alive()]
            if len(self.threads) >= cap:
                return False
            self.threads.append(thread)
            self.sockets.add(conn)
            return True

    def hold(self, sock: socket.socket) -> None:
        with self.lock:
            self.sockets.add(sock)

    def release(self, sock: socket.socket) -> None:
        with self.lock:
            self.sockets.discard(sock)

    def cut(self) -> None:
        """End every connection still open (the run is over)."""
        with self.lock:
            for sock in self.sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
