"""The listener a sandbox hands the egress proxy (``bridge.py``, where the proxy may not join
the sandbox's network namespace itself): one connection to the run's handoff socket, one fd
(``SCM_RIGHTS``), checked before the proxy accepts on it.

What is taken is exactly what the sandbox's programs are told to use: a TCP socket listening
on 127.0.0.1 at the agreed port, in a network namespace that is not the guard's own (a
listener of the host's loopback would let every local program through the run's proxy).
Anything else is refused, closed, and the sandbox's command is not run.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import threading
from collections.abc import Callable

from clawgate.executors.egress.lane import HANDOFF_NAME, Lane

SIOCGSKNS = 0x894C  # the network namespace a socket lives in, as a new fd (Linux ≥ 4.9)
TAKEN = b"ok"  # what the bridge waits for (``bridge.TAKEN``)
MAX_FDS = 4  # read past the one expected, so that extra ones are seen (and closed)
TIMEOUT_S = 30.0  # a bridge that connects and sends nothing


class HandoffRefused(Exception):
    """What a sandbox handed over is not its listener (the message says why)."""


def await_listener(lane: Lane, port: int, accept: Callable[[socket.socket], None]) -> None:
    """Listen on ``lane``'s handoff socket for one connection, on a thread of the lane's
    (it ends with the lane); hand the listener that comes, once checked, to ``accept``, or
    keep why it was refused in ``lane.handoff_failure``. Either way the bridge is answered."""
    handoff = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        lane.bind(handoff, HANDOFF_NAME)
        handoff.listen(1)
    except OSError:
        handoff.close()
        raise
    taking = threading.Thread(target=_take, args=(lane, handoff, port, accept),
                              name="clawgate-egress-handoff", daemon=True)
    if lane.add_listener(handoff, taking):
        taking.start()
    else:
        handoff.close()


def _take(lane: Lane, handoff: socket.socket, port: int,
          accept: Callable[[socket.socket], None]) -> None:
    try:
        conn, _ = handoff.accept()
    except OSError:
        return
    handoff.close()  # one handoff a run: nothing else connects there
    with contextlib.suppress(OSError):
        os.unlink(lane.handoff_path)
    with conn:
        try:
            conn.settimeout(TIMEOUT_S)
            listener = receive_listener(conn, port)
        except (HandoffRefused, OSError) as exc:
            lane.handoff_failure = f"the listener handed over was refused: {exc}"
            with contextlib.suppress(OSError):
                conn.sendall(f"refused: {exc}".encode())
            return
        accept(listener)
        with contextlib.suppress(OSError):
            conn.sendall(TAKEN)


def receive_listener(conn: socket.socket, port: int) -> socket.socket:
    """The listening socket sent on ``conn``, checked; raises HandoffRefused (every fd that
    came is closed) or OSError."""
    _data, fds, flags, _address = socket.recv_fds(conn, 64, MAX_FDS)
    if len(fds) != 1 or flags & socket.MSG_CTRUNC:
        for fd in fds:
            os.close(fd)
        raise HandoffRefused(f"{len(fds)} file descriptors were sent, not one listener")
    try:
        listener = socket.socket(fileno=fds[0])
    except OSError as exc:
        os.close(fds[0])
        raise HandoffRefused(f"what was sent is not a socket: {exc.strerror or exc}") from exc
    try:
        _check(listener, port)
    except BaseException:
        listener.close()
        raise
    return listener


def _check(listener: socket.socket, port: int) -> None:
    if listener.family != socket.AF_INET or listener.type != socket.SOCK_STREAM:
        raise HandoffRefused("what was sent is not a TCP socket")
    if not listener.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
        raise HandoffRefused("the socket sent is not listening")
    if listener.getsockname() != ("127.0.0.1", port):
        raise HandoffRefused(f"the socket sent listens on {listener.getsockname()}, not on "
                             f"127.0.0.1:{port}")
    if _in_own_namespace(listener):
        raise HandoffRefused("the socket sent listens in the guard's own network namespace")


def _in_own_namespace(sock: socket.socket) -> bool:
    """Whether ``sock`` lives in this process's network namespace: asked of the socket
    (``SIOCGSKNS``), else, where that needs a right this process lacks over the socket's
    namespace (a setuid bubblewrap's), looked up in this namespace's TCP table."""
    try:
        namespace = fcntl.ioctl(sock.fileno(), SIOCGSKNS)
    except OSError as exc:
        if exc.errno != errno.EPERM:
            raise HandoffRefused(f"the network namespace of the socket sent cannot be "
                                 f"known: {exc.strerror or exc}") from exc
        return _listed_here(sock)
    try:
        return os.fstat(namespace).st_ino == os.stat("/proc/self/ns/net").st_ino
    finally:
        with contextlib.suppress(OSError):
            os.close(namespace)


def _listed_here(sock: socket.socket) -> bool:
    inode = str(os.fstat(sock.fileno()).st_ino)
    with open("/proc/self/net/tcp", encoding="ascii") as table:
        next(table, None)  # the header
        return any(line.split()[9:10] == [inode] for line in table)
