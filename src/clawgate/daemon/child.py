"""One call, answered in a fork of the warm decider: the call's working directory,
environment and standard input put in place, the ``policy`` command line run in process
(``clawgate.cli.main``, the same code a fresh process runs), its stdout, stderr and exit code
sent back. The worker is the call's own fork (it answers one call and exits), so the command
line runs in it: a hook past its deadline, which writes its deny and ends its process at
once, hands the answer back first (``deadline.before_ending``). A call that fails in any other
way (a crash, a signal, the time limit) closes the connection unanswered, and the client then
decides in process: never an answer made up here."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time

from clawgate.daemon import wire
from clawgate.daemon.client import answer_seconds, taken
from clawgate.integrations import deadline

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn

WIRE_SECONDS = 30.0  # to read a request, and to hand back an answer
# An answered worker waits this long before it tells the server and exits: the client is
# still writing the answer out, and the worker's teardown (a copy of the server's heap) and
# the spare the server forks for it would take the machine from it.
LINGER_SECONDS = 0.05


def answer_in_fork(conn: socket.socket, identity: str,
                   answered: Callable[[], object]) -> NoReturn:
    """Run in the forked child; never returns. ``answered()`` is called once the answer is
    handed back and the client has had ``LINGER_SECONDS`` to itself (the server's own work
    waits for it)."""
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the parent's auto-reaping is its own
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        conn.settimeout(WIRE_SECONDS)
        reader = wire.Reader(conn.recv)
        if reader.exactly(len(wire.MAGIC)) != wire.MAGIC:
            os._exit(2)
        who, cwd, argv_raw, env_raw, stdin = (reader.field() for _ in range(5))
        argv = [os.fsdecode(w) for w in argv_raw.split(b"\0")]
        if who.decode(errors="replace") != identity or not argv or not taken(argv[1:]):
            conn.sendall(wire.STALE)
            os._exit(0)
        conn.sendall(wire.ACCEPTED)
        limit = int(answer_seconds(argv[1:]))
        fds = [_memfd("stdin", stdin), _memfd("stdout", b""), _memfd("stderr", b"")]

        def hand_back(code: int) -> None:
            sys.stdout.flush()
            sys.stderr.flush()
            conn.sendall(wire.answer(code, _contents(fds[1]), _contents(fds[2])))

        # A hook past its deadline writes its deny and ends the process at once: the answer
        # is handed back first (exit 0: the deny is the answer).
        deadline.before_ending(lambda: hand_back(0))
        signal.alarm(limit)  # past it the worker dies unanswered: the client decides itself
        hand_back(_run(argv, os.fsdecode(cwd), env_raw, fds))
    except BaseException:  # the client decides in process: nothing is answered from here
        os._exit(1)
    with contextlib.suppress(BaseException):
        conn.close()
        time.sleep(LINGER_SECONDS)
        answered()
    os._exit(0)


def _run(argv: list[str], cwd: str, env_raw: bytes, fds: list[int]) -> int:
    """In the runner's fork: the call's place, environment and streams, then the command
    line; its exit code (what it wrote stays in the memory files ``fds``)."""
    try:
        os.chdir(cwd)
        os.environb.clear()
        for item in env_raw.split(b"\0") if env_raw else ():
            name, sep, value = item.partition(b"=")
            if sep and name:
                os.environb[name] = value
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        sys.argv = argv
        from clawgate.cli import main

        code = main(argv[1:])
        sys.stdout.flush()
        sys.stderr.flush()
        return code & 0xFF
    except BaseException:
        return 1


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _contents(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)
