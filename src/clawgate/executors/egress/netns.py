"""The egress proxy's listening socket, made inside a sandbox's own network namespace.

A container (or sandbox) with no network of its own has one interface, its loopback. A thread
of the guard's process joins that namespace (``setns(2)`` on ``/proc/PID/ns/net``: a network
namespace is a per-thread attribute), binds a TCP socket to 127.0.0.1 there, listens, and
leaves; the socket stays in the namespace it was made in. The proxy then accepts, in its own
process, the connections programs inside make to that address: no program of ours runs
inside, and no byte crosses a second hop.

The namespace's loopback may be coming up when the sandbox is reported (bubblewrap reports its
sandbox while the sandbox sets up its loopback, and the kernel marks the loopback up a moment
before it gives it 127.0.0.1): binding 127.0.0.1 then fails with ``EADDRNOTAVAIL``, so the
bind is tried again, briefly, until the address is there.

Joining the namespace needs ``CAP_SYS_ADMIN`` over it (root, for a Docker container). Where
that right is missing, ``listen_in`` raises ``NamespaceUnavailable`` saying so: the caller
fails the run, it never runs it with more network.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

CLONE_NEWNET = 0x40000000
CAP_SYS_ADMIN = 21
LOOPBACK = "127.0.0.1"
BACKLOG = 128
JOIN_TIMEOUT_S = 10.0
LOOPBACK_WAITS_S = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02)  # then the last, until the timeout


class NamespaceUnavailable(Exception):
    """The proxy's socket cannot be made in the sandbox's network namespace (the message says
    why)."""


@functools.cache
def _libc_setns() -> Any:
    """libc's ``setns``, looked up once (in this process's own symbols: no search)."""
    setns = ctypes.CDLL(None, use_errno=True).setns
    setns.argtypes = (ctypes.c_int, ctypes.c_int)
    setns.restype = ctypes.c_int
    return setns


def _setns(fd: int, kind: int) -> int:
    """``setns(2)`` on the calling thread; 0, or the errno."""
    return 0 if _libc_setns()(fd, kind) == 0 else ctypes.get_errno()


def listen_in(pid: int, port: int = 0,
              belongs: Callable[[], bool] = lambda: True) -> socket.socket:
    """A listening TCP socket on 127.0.0.1:``port`` (0: any free port) of the network
    namespace of process ``pid``. ``belongs`` says whether ``pid`` is still the sandbox's
    process; it is asked once the namespace is held, so a pid reused in between is caught.
    The namespace must not be this process's own. Raises NamespaceUnavailable."""
    try:
        namespace = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise NamespaceUnavailable(f"the network namespace of process {pid} cannot be "
                                   f"opened: {exc.strerror or exc}") from exc
    try:
        if os.fstat(namespace).st_ino == os.stat("/proc/self/ns/net").st_ino:
            raise NamespaceUnavailable(f"process {pid} is in this process's own network "
                                       "namespace, not in a sandbox's")
        if not belongs():
            raise NamespaceUnavailable(f"process {pid} is not the sandbox's (its process "
                                       "must be visible on this machine)")
    except BaseException:
        os.close(namespace)
        raise
    made: list[socket.socket] = []
    failed: list[str] = []

    def inside() -> None:
        try:
            errno = _setns(namespace, CLONE_NEWNET)
            if errno:
                failed.append(f"setns: {os.strerror(errno)}"
                              + (" (joining it needs CAP_SYS_ADMIN: run the guard as root)"
                                 if errno == 1 else ""))
                return
            made.append(_listen(port, time.monotonic() + JOIN_TIMEOUT_S / 2))
        except OSError as exc:
            failed.append(f"{LOOPBACK}:{port}: {exc.strerror or exc}")

    # A thread of its own: it joins the namespace and ends, and no other thread of the
    # process ever changes its namespace.
    joiner = threading.Thread(target=inside, name="clawgate-egress-netns", daemon=True)
    try:
        joiner.start()
        joiner.join(JOIN_TIMEOUT_S)
    finally:
        os.close(namespace)
    if made:
        return made[0]
    why = failed[0] if failed else "the joining thread did not finish"
    raise NamespaceUnavailable(f"the egress proxy cannot listen inside the network namespace "
                               f"of process {pid}: {why}")


def _listen(port: int, deadline: float) -> socket.socket:
    """A socket listening on 127.0.0.1:``port`` of the calling thread's namespace, once its
    loopback has the address (``EADDRNOTAVAIL`` until then; tried until ``deadline``)."""
    waits = iter(LOOPBACK_WAITS_S)
    while True:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.bind((LOOPBACK, port))
            listener.listen(BACKLOG)
            return listener
        except OSError as exc:
            listener.close()
            if exc.errno != errno.EADDRNOTAVAIL or time.monotonic() >= deadline:
                raise
        time.sleep(next(waits, LOOPBACK_WAITS_S[-1]))


def can_join() -> bool:
    """Whether this process holds ``CAP_SYS_ADMIN`` (bit 21 of its effective set), which
    joining another network namespace needs besides rights over that namespace."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> CAP_SYS_ADMIN & 1)
    except (OSError, ValueError):
        return False
    return False
