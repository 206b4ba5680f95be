"""The egress proxy: the only way out of a sandbox. It listens on a Unix socket in a private
(0700) directory, one socket per run (a *lane*), speaks HTTP CONNECT, plain HTTP with an
absolute URI and SOCKS5, judges each connection by the host name the program gave
(``clawgate.egressrules``: the sandbox resolves nothing itself), connects out from the host,
pipes the bytes and reports every connection — host, port, bytes each way, the decision — to
an audit sink. A refusal answers at once: HTTP 403 whose status line and body name the host and the
policy key, or SOCKS5 reply 0x02.

The server runs an asyncio loop on a thread of its own, started with the proxy; the executor
opens a lane per run and closes it when the run ends, which waits (briefly) for the run's
connections to finish and for their audit records to be written.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from clawgate.egressrules import EgressRules, Verdict, normal_host
from clawgate.executors.egress.protocols import (
    SOCKS_HOST_UNREACHABLE,
    SOCKS_NOT_ALLOWED,
    SOCKS_OK,
    BadRequest,
    Target,
    read_http,
    read_socks5,
    refusal,
    socks_reply,
)

CHUNK = 256 * 1024
HEAD_TIMEOUT_S = 30.0  # a program that opens a connection and says nothing
CONNECT_TIMEOUT_S = 15.0
DRAIN_S = 1.0  # after a run ends, how long its connections may take to finish
START_TIMEOUT_S = 10.0
SOCKET_NAME = "proxy.sock"

Resolver = Callable[[str, int], Sequence[str]]


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


def system_resolver(host: str, port: int) -> list[str]:
    """The host's resolver: every address of ``host``, in its order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class Refused(Exception):
    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.why)
        self.verdict = verdict


@dataclass
class _Progress:
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
    connections in flight and the audit writes not yet done."""

    directory: str
    run: str
    command: str
    server: asyncio.AbstractServer | None = None
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    writes: list[asyncio.Future[None]] = field(default_factory=list)
    seen: list[Connection] = field(default_factory=list)

    @property
    def socket(self) -> str:
        return os.path.join(self.directory, SOCKET_NAME)


class EgressProxy:
    """The proxy of one executor. ``resolve`` replaces the host's resolver (tests map a test
    domain to 127.0.0.1 with it; what it returns is still judged like any resolved address);
    ``sink`` receives every connection (the Guard's audit log)."""

    def __init__(self, rules: EgressRules, *, resolve: Resolver = system_resolver,
                 sink: Sink | None = None) -> None:
        self.rules = rules
        self.resolve = resolve
        self.sink = sink
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="clawgate-egress")
        self._thread.start()
        self._closed = False

    def close(self) -> None:
        """Stop the loop and its thread. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(START_TIMEOUT_S)
        if not self._thread.is_alive():
            self._loop.close()

    @contextlib.contextmanager
    def lane(self, command: str) -> Iterator[Lane]:
        """A socket for one run, listening until the block ends."""
        if self._closed:
            raise RuntimeError("the egress proxy is closed")
        directory = tempfile.mkdtemp(prefix="clawgate-egress-")  # 0700
        lane = Lane(directory, os.path.basename(directory).rsplit("-", 1)[-1], command)
        try:
            asyncio.run_coroutine_threadsafe(self._open(lane), self._loop).result(
                START_TIMEOUT_S)
            yield lane
        finally:
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self._shut(lane), self._loop).result(
                    DRAIN_S + START_TIMEOUT_S)
            shutil.rmtree(directory, ignore_errors=True)

    async def _open(self, lane: Lane) -> None:
        def track(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.ensure_future(self._serve(lane, reader, writer))
            lane.tasks.add(task)
            task.add_done_callback(lane.tasks.discard)

        lane.server = await asyncio.start_unix_server(track, path=lane.socket, limit=CHUNK)

    async def _shut(self, lane: Lane) -> None:
        if lane.server is not None:
            lane.server.close()
        if lane.tasks:
            _done, pending = await asyncio.wait(set(lane.tasks), timeout=DRAIN_S)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if lane.writes:
            await asyncio.gather(*lane.writes, return_exceptions=True)

    async def _serve(self, lane: Lane, reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter) -> None:
        started = time.monotonic()
        record = _Progress()
        try:
            await self._handle(lane, reader, writer, record)
        except asyncio.CancelledError:
            record.error = record.error or "the run ended"
        except (TimeoutError, OSError, asyncio.IncompleteReadError) as exc:
            record.error = record.error or f"{type(exc).__name__}: {exc}"
        finally:
            writer.close()
            if record.allowed is not None:
                self._report(lane, record, started)

    async def _handle(self, lane: Lane, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter, record: _Progress) -> None:
        first = await asyncio.wait_for(reader.read(1), HEAD_TIMEOUT_S)
        if not first:
            return
        socks = first == b"\x05"
        try:
            target = await asyncio.wait_for(
                read_socks5(reader, writer) if socks else read_http(first, reader),
                HEAD_TIMEOUT_S)
        except BadRequest as exc:
            record.via = "socks5" if socks else "http"
            record.decided(Verdict(False, "executor.network", str(exc)))
            writer.write(socks_reply(exc.socks_reply) if socks else refusal(
                400, "Bad Request", f"clawgate: {exc}\n", None))
            return
        record.via, record.host, record.port = target.via, target.host, target.port
        verdict = self.rules.decide(target.host, target.port)
        record.decided(verdict)
        if not verdict.allowed:
            writer.write(_refused(target, verdict))
            await writer.drain()
            return
        await self._relay(target, verdict, reader, writer, record)

    async def _relay(self, target: Target, verdict: Verdict, reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter, record: _Progress) -> None:
        try:
            up_reader, up_writer, address = await self._connect(target, verdict)
        except Refused as exc:
            record.decided(exc.verdict)
            writer.write(_refused(target, exc.verdict))
            return
        except (TimeoutError, OSError) as exc:
            record.error = f"could not connect: {exc or type(exc).__name__}"
            writer.write(socks_reply(SOCKS_HOST_UNREACHABLE) if target.via == "socks5"
                         else refusal(502, "Bad Gateway", f"clawgate: could not connect to "
                                      f"{target.host}:{target.port}: {exc}\n", None))
            return
        record.address = address
        counts = [len(target.head), 0]
        try:
            if target.via == "connect":
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            elif target.via == "socks5":
                writer.write(socks_reply(SOCKS_OK))
            else:
                up_writer.write(target.head)
            await asyncio.gather(_pump(reader, up_writer, counts, 0),
                                 _pump(up_reader, writer, counts, 1))
        finally:
            record.bytes_up, record.bytes_down = counts
            up_writer.close()

    async def _connect(self, target: Target, verdict: Verdict
                       ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, str]:
        name = normal_host(target.host) or target.host
        if verdict.loopback:
            addresses = [name] if _is_address(name) else ["127.0.0.1"]
        elif _is_address(name):
            addresses = [name]
        else:
            found = await asyncio.get_running_loop().run_in_executor(
                None, self.resolve, name, target.port)
            refusals = [self.rules.address_allowed(a, target.port) for a in found]
            addresses = [a for a, r in zip(found, refusals, strict=True) if r is None]
            if not addresses:
                raise Refused(next((r for r in refusals if r is not None), Verdict(
                    False, verdict.key, f"{name} has no address")))
        last: BaseException = OSError(f"{name} has no address")
        for address in addresses:
            try:
                up_reader, up_writer = await asyncio.wait_for(
                    asyncio.open_connection(address, target.port, limit=CHUNK),
                    CONNECT_TIMEOUT_S)
            except (TimeoutError, OSError) as exc:
                last = exc
                continue
            return up_reader, up_writer, address
        raise last

    def _report(self, lane: Lane, record: _Progress, started: float) -> None:
        connection = Connection(
            run=lane.run, command=lane.command, via=record.via, host=record.host,
            port=record.port, allowed=bool(record.allowed), key=record.key, why=record.why,
            address=record.address, bytes_up=record.bytes_up, bytes_down=record.bytes_down,
            duration_ms=round((time.monotonic() - started) * 1000, 3), error=record.error)
        lane.seen.append(connection)
        if self.sink is not None:
            lane.writes.append(asyncio.get_running_loop().run_in_executor(
                None, self.sink, connection))


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


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                counts: list[int], index: int) -> None:
    """Copy until end of stream, counting; then pass the end on (half-close)."""
    try:
        while data := await reader.read(CHUNK):
            counts[index] += len(data)
            writer.write(data)
            await writer.drain()
    except OSError:
        return
    with contextlib.suppress(OSError, RuntimeError):
        if writer.can_write_eof():
            writer.write_eof()
