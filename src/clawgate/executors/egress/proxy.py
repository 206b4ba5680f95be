"""The egress proxy: the only way out of a sandbox. It listens on a Unix socket in a private
(0700) directory of the guard's state, which no sandbox shows (``lane_directory``), one socket
per run (a *lane*), speaks HTTP CONNECT, plain HTTP with an
absolute URI and SOCKS5, judges each connection by the host name the program gave
(``clawgate.egressrules``: the sandbox resolves nothing itself), connects out from the host,
pipes the bytes and reports every connection — host, port, bytes each way, the decision — to
an audit sink. A refusal answers at once: HTTP 403 whose status line and body name the host and the
policy key, or SOCKS5 reply 0x02.

A lane may also accept on a TCP listener made in a sandbox's network namespace: made there
by the guard (``netns.py``), or by the sandbox's bridge and handed over on the lane's
handoff socket, once, checked before it is used (``handoff.py``).

Each lane accepts on a thread of its own and serves each connection on another (a run makes
few connections; blocking sockets move bytes with the least work per byte). Closing a lane,
when its run has ended, waits briefly for the run's connections to finish, cuts those that do
not, and returns once every one of them is in the audit.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import logging
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence

from clawgate.egressrules import EgressRules, Verdict, normal_host
from clawgate.errors import ExecutorError
from clawgate.executors.egress.handoff import await_listener
from clawgate.executors.egress.lane import SOCKET_NAME, Connection, Lane, Progress, Sink
from clawgate.executors.egress.protocols import (
    HEAD_LIMIT,
    SOCKS_HOST_UNREACHABLE,
    SOCKS_NOT_ALLOWED,
    SOCKS_OK,
    BadRequest,
    Incoming,
    Target,
    read_http,
    read_socks5,
    refusal,
    socks_reply,
)
from clawgate.statedir import state_root

CHUNK = 1024 * 1024
HEAD_TIMEOUT_S = 30.0  # a program that opens a connection and says nothing
CONNECT_TIMEOUT_S = 15.0
DRAIN_S = 1.0  # after a run ends, how long its connections may take to finish
JOIN_S = 10.0  # then, how long a cut connection may take to be recorded
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
SPLICE_FLAGS = getattr(os, "SPLICE_F_MOVE", 1)  # not _MORE: it would hold back a last piece
MAX_CONNECTIONS = 128  # open at once per run: each holds two threads of the guard's process
LOG = logging.getLogger("clawgate.executors")

Resolver = Callable[[str, int], Sequence[str]]
__all__ = ["Connection", "EgressProxy", "Lane", "Resolver", "Sink", "system_resolver"]


def system_resolver(host: str, port: int) -> list[str]:
    """The host's resolver: every address of ``host``, in its order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class Refused(Exception):
    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.why)
        self.verdict = verdict


def lane_directory() -> str:
    """A new private (0700) directory for a run's sockets, in ``egress`` of the guard's state,
    which no sandbox shows, whatever its workspace or home (``view.py``). Not in ``$TMPDIR``:
    where a sandbox shows that (in the home, which it shows read-only, or in the workspace), a
    command would reach every other run's sockets (connecting to a Unix socket writes nothing
    to the mount), talk to a proxy judging by another run's rules, or hand another run a
    listener of its own before that run's bridge does."""
    parent = state_root() / "egress"
    try:
        os.makedirs(parent, mode=0o700, exist_ok=True)
        return tempfile.mkdtemp(prefix="run-", dir=parent)
    except OSError as exc:
        raise ExecutorError(f"cannot make a folder for the run's proxy sockets in {parent}: "
                            f"{exc.strerror or exc}; nothing was run") from exc


class EgressProxy:
    """The proxy of one executor. ``resolve`` replaces the host's resolver (tests map a test
    domain to 127.0.0.1 with it; what it returns is still judged like any resolved address);
    ``sink`` receives every connection (the Guard's audit log)."""

    def __init__(self, rules: EgressRules, *, resolve: Resolver = system_resolver,
                 sink: Sink | None = None) -> None:
        self.rules = rules
        self.resolve = resolve
        self.sink = sink

    @contextlib.contextmanager
    def lane(self, command: str, listener: socket.socket | None = None, *,
             unix: bool = True) -> Iterator[Lane]:
        """A run's way to the proxy, accepting until the block ends: ``listener``, a listening
        socket the caller made (one made inside the sandbox's network namespace:
        ``netns.listen_in``), which the lane then owns; else, unless ``unix`` is false, a Unix
        socket in a private (0700) directory (``lane_directory``); else none until
        ``accept_on`` gives one."""
        directory = lane_directory() if listener is None and unix else ""
        run = os.path.basename(directory).rsplit("-", 1)[-1] if directory else \
            os.urandom(4).hex()
        lane = Lane(directory, run, command)
        try:
            if directory:
                own = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    lane.bind(own, SOCKET_NAME)
                    own.listen(128)
                except OSError:
                    own.close()
                    raise
                self.accept_on(lane, own)
            if listener is not None:
                self.accept_on(lane, listener)
            yield lane
        finally:
            for opened, accepting in lane.close_listeners():
                with contextlib.suppress(OSError):
                    opened.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
                if accepting.is_alive():
                    accepting.join(JOIN_S)
                opened.close()
            self._finish(lane)
            if directory:
                shutil.rmtree(directory, ignore_errors=True)

    def accept_on(self, lane: Lane, listener: socket.socket) -> None:
        """Accept ``lane``'s connections on ``listener`` too (the lane owns it from now; a
        lane already closed closes it at once)."""
        accepting = threading.Thread(target=self._accept, args=(lane, listener),
                                     name="clawgate-egress", daemon=True)
        if lane.add_listener(listener, accepting):
            accepting.start()
        else:
            listener.close()

    def await_listener(self, lane: Lane, port: int) -> None:
        """Take the listener a sandbox hands over on ``lane``'s handoff socket, once
        (``bridge.py``), and accept ``lane``'s connections on it too once it is checked
        (``handoff.py``); a refusal is kept in ``lane.handoff_failure``."""
        await_listener(lane, port, functools.partial(self.accept_on, lane))

    def _accept(self, lane: Lane, listener: socket.socket) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(lane, conn), daemon=True,
                                      name="clawgate-egress-conn")
            if lane.admit(thread, conn, MAX_CONNECTIONS):
                thread.start()
            else:
                self._overflow(lane, conn)

    def _overflow(self, lane: Lane, conn: socket.socket) -> None:
        """A connection over the cap: refused at once, and recorded."""
        record = Progress()
        record.decided(Verdict(False, "executor.network", f"more than {MAX_CONNECTIONS} "
                               "connections of one run at once"))
        with contextlib.suppress(OSError):
            conn.setblocking(False)
            conn.recv(HEAD_LIMIT)  # what the program sent already: unread, it would reset
        with contextlib.suppress(OSError):
            conn.settimeout(1.0)
            conn.sendall(refusal(503, "Too many connections", f"clawgate: {record.why}\n",
                                 None))
        conn.close()
        self._report(lane, record, time.monotonic())

    def _finish(self, lane: Lane) -> None:
        with lane.lock:
            threads = list(lane.threads)
        deadline = time.monotonic() + DRAIN_S
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        lane.cut()
        for thread in threads:
            thread.join(JOIN_S)

    def _serve(self, lane: Lane, conn: socket.socket) -> None:
        started = time.monotonic()
        record = Progress()
        try:
            conn.settimeout(HEAD_TIMEOUT_S)
            self._handle(lane, Incoming(conn), record)
        except OSError as exc:
            record.error = record.error or f"{type(exc).__name__}: {exc}"
        finally:
            lane.release(conn)
            conn.close()
            if record.allowed is not None:
                self._report(lane, record, started)

    def _handle(self, lane: Lane, incoming: Incoming, record: Progress) -> None:
        try:
            first = incoming.read_exactly(1)
        except BadRequest:
            return  # connected and closed without a word: nothing was asked
        incoming.pending[:0] = first
        socks = first == b"\x05"
        try:
            target = read_socks5(incoming) if socks else read_http(incoming)
        except BadRequest as exc:
            record.via = "socks5" if socks else "http"
            record.decided(Verdict(False, "executor.network", str(exc)))
            if not socks:
                incoming.sock.sendall(refusal(400, "Bad Request", f"clawgate: {exc}\n", None))
            elif exc.socks_reply >= 0:
                incoming.sock.sendall(socks_reply(exc.socks_reply))
            return
        record.via, record.host, record.port = target.via, target.host, target.port
        verdict = self.rules.decide(target.host, target.port)
        record.decided(verdict)
        if not verdict.allowed:
            incoming.sock.sendall(_refused(target, verdict))
            return
        self._relay(lane, target, verdict, incoming, record)

    def _relay(self, lane: Lane, target: Target, verdict: Verdict, incoming: Incoming,
               record: Progress) -> None:
        conn = incoming.sock
        try:
            upstream, address = self._connect(target, verdict)
        except Refused as exc:
            record.decided(exc.verdict)
            conn.sendall(_refused(target, exc.verdict))
            return
        except OSError as exc:
            record.error = f"could not connect: {exc}"
            conn.sendall(socks_reply(SOCKS_HOST_UNREACHABLE) if target.via == "socks5"
                         else refusal(502, "Bad Gateway", f"clawgate: could not connect to "
                                      f"{target.host}:{target.port}: {exc}\n", None))
            return
        lane.hold(upstream)
        record.address = address
        counts = [0, 0]
        with upstream:
            conn.settimeout(None)
            if target.via == "connect":
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            elif target.via == "socks5":
                conn.sendall(socks_reply(SOCKS_OK))
            early = target.head + bytes(incoming.pending)
            upstream.sendall(early)
            counts[0] = len(early)
            back = threading.Thread(target=_pump, args=(upstream, conn, counts, 1), daemon=True,
                                    name="clawgate-egress-pump")
            back.start()
            _pump(conn, upstream, counts, 0)
            back.join()
            lane.release(upstream)
        record.bytes_up, record.bytes_down = counts

    def _connect(self, target: Target, verdict: Verdict) -> tuple[socket.socket, str]:
        name = normal_host(target.host) or target.host
        if verdict.loopback:
            addresses = [name] if _is_address(name) else ["127.0.0.1"]
        elif _is_address(name):
            addresses = [name]
        else:
            found = self.resolve(name, target.port)
            refusals = [self.rules.address_allowed(a, target.port) for a in found]
            addresses = [a for a, r in zip(found, refusals, strict=True) if r is None]
            if not addresses:
                raise Refused(next((r for r in refusals if r is not None), Verdict(
                    False, verdict.key, f"{name} has no address")))
        last = OSError(f"{name} has no address")
        for address in addresses:
            try:
                upstream = socket.create_connection((address, target.port),
                                                    timeout=CONNECT_TIMEOUT_S)
            except OSError as exc:
                last = exc
                continue
            upstream.settimeout(None)
            return upstream, address
        raise last

    def _report(self, lane: Lane, record: Progress, started: float) -> None:
        connection = Connection(
            run=lane.run, command=lane.command, via=record.via, host=record.host,
            port=record.port, allowed=bool(record.allowed), key=record.key, why=record.why,
            address=record.address, bytes_up=record.bytes_up, bytes_down=record.bytes_down,
            duration_ms=round((time.monotonic() - started) * 1000, 3), error=record.error)
        with lane.lock:
            lane.seen.append(connection)
        if self.sink is None:
            return
        try:
            self.sink(connection)
        except Exception:  # the connection happened: say loudly that it went unrecorded
            LOG.exception("clawgate: a sandboxed connection to %s:%s could not be written "
                          "to the audit log", connection.host, connection.port)


def _is_address(name: str) -> bool:
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in name else socket.AF_INET, name)
    except OSError:
        return False
    return True


def _refused(target: Target, verdict: Verdict) -> bytes:
    if target.via == "socks5":
        return socks_reply(SOCKS_NOT_ALLOWED)
    host = f"[{target.host}]" if ":" in target.host else target.host
    where = f"{host}:{target.port}"
    body = (f"clawgate: the sandbox's network policy refused {where}: {verdict.why}.\n"
            f"policy key: {verdict.key}\n")
    return refusal(403, f"clawgate refused {where} ({verdict.key})", body, verdict.key)


def _pump(source: socket.socket, sink: socket.socket, counts: list[int], index: int) -> None:
    """Copy until end of stream, counting; then pass the end on (half-close). Through a pipe
    with ``splice(2)`` where the kernel offers it (the bytes never enter this process: two
    system calls per MiB and no copy in Python), else through a buffer."""
    try:
        _splice(source, sink, counts, index)
    except _NoSplice:
        _copy(source, sink, counts, index)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


class _NoSplice(Exception):
    """This kernel or socket does not splice: nothing was moved yet."""


def _splice(source: socket.socket, sink: socket.socket, counts: list[int], index: int) -> None:
    if not hasattr(os, "splice"):
        raise _NoSplice
    into, out = source.fileno(), sink.fileno()
    drain, fill = os.pipe2(os.O_CLOEXEC)
    try:
        with contextlib.suppress(OSError):  # a bigger pipe where allowed: fewer calls
            fcntl.fcntl(fill, F_SETPIPE_SZ, CHUNK)
        first = True
        while True:
            try:
                received = os.splice(into, fill, CHUNK, flags=SPLICE_FLAGS)
            except OSError as exc:
                if first and exc.errno in (errno.EINVAL, errno.ENOSYS):
                    raise _NoSplice from exc
                raise
            first = False
            if not received:
                return
            left = received
            while left:
                left -= os.splice(drain, out, left, flags=SPLICE_FLAGS)
            counts[index] += received
    finally:
        os.close(drain)
        os.close(fill)


def _copy(source: socket.socket, sink: socket.socket, counts: list[int], index: int) -> None:
    buffer = memoryview(bytearray(CHUNK))
    with contextlib.suppress(OSError):
        while received := source.recv_into(buffer):
            sink.sendall(buffer[:received])
            counts[index] += received
