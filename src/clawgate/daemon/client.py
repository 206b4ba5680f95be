"""The decider's client: what ``policy check``, ``policy explain`` and ``policy hook
claude-code|gemini`` run first. It imports no part of the engine: only ``_socket`` (not
``socket``, whose imports cost more than the whole exchange) and this package's small modules.

``forward(argv)`` returns the exit code of the call as the decider answered it, having printed
the decider's stdout and stderr; or None, and the caller decides in process: when the call is
not one the decider takes, when ``--no-daemon`` or ``CLAWGATE_NO_DAEMON`` says not to, when no
decider listens (the caller starts one for the next call once it has decided this one), or
when it gives no answer in time. Never an answer of its own: no answer means the in-process
path, which is the same implementation.
"""

from __future__ import annotations

import _socket
import io
import os
import sys
from itertools import pairwise

from clawgate.daemon import location, wire

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

NO_DAEMON_ENV = "CLAWGATE_NO_DAEMON"
NO_DAEMON_FLAG = "--no-daemon"
ACK_SECONDS = 5.0  # a fork must have the call by then
ANSWER_SECONDS = 120.0  # a check
APPROVAL_SECONDS = 3600.0  # a hook: it bounds itself by its --deadline
HOOKS = (["hook", "claude-code"], ["hook", "gemini"])
HOOK_INPUT_BYTES = (4 << 20) + 1  # integrations.hooks.MAX_INPUT_BYTES + 1, as it reads
STDIN_SECONDS = 2.0  # a hook's input that has not ended by then is read in process


def taken(argv: list[str]) -> bool:
    """Whether the decider takes this call (the server asks the same)."""
    if argv[:1] not in (["check"], ["explain"]) and argv[:2] not in HOOKS:
        return False
    options = argv[:argv.index("--")] if "--" in argv else argv
    if NO_DAEMON_FLAG in options or "--jsonl" in options:
        return False
    if any(o in ("-h", "--help", "--approver=terminal") for o in options):
        return False
    return not any(a == "--approver" and b == "terminal" for a, b in pairwise(options))


def wanted(argv: list[str]) -> bool:
    """``taken`` and nothing in the environment or the terminal against it."""
    if os.environ.get(NO_DAEMON_ENV, "") not in ("", "0"):
        return False
    try:
        if sys.stdout.isatty():  # colour and tables for a person: not worth a round trip
            return False
    except (AttributeError, ValueError):
        return False
    return taken(argv)


def forward(argv: list[str]) -> tuple[int | None, bool]:
    """The decider's exit code for ``argv`` (its output printed), or None: decide in process;
    and whether no decider listens, so that one should be started once this call is decided
    (``start_server``: started after, it takes no time from this call)."""
    if not wanted(argv):
        return None, False
    try:
        path = location.socket_path()
    except OSError:
        return None, False
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(ACK_SECONDS)
        try:
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            return None, True
        return _exchange(sock, argv), False
    except (OSError, EOFError, ValueError):
        return None, False
    finally:
        sock.close()


def _exchange(sock: _socket.socket, argv: list[str]) -> int | None:
    stdin = _stdin(argv)
    program = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "policy"
    sock.sendall(wire.request(
        location.identity(), os.fsencode(os.getcwd()),
        [os.fsencode(w) for w in (program, *argv)],
        [k + b"=" + v for k, v in os.environb.items()], stdin))
    reader = wire.Reader(sock.recv)
    if reader.exactly(1) != wire.ACCEPTED:
        return None  # another installation's decider, or stale code: in process
    sock.settimeout(answer_seconds(argv))
    code = reader.exactly(1)[0]
    out, err = reader.field(), reader.field()
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.flush()
    return code


def finish(code: int) -> NoReturn:
    """End the client's process with the decider's exit code, its output flushed first. No
    interpreter teardown: the client holds nothing to close or release (the socket is
    closed, no atexit hook is its own), and tearing down the modules a bare interpreter
    loads costs a few milliseconds of every call."""
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 (contextlib's imports would cost the client more than the call)
            stream.flush()
        except (OSError, ValueError):  # a reader that went away: the exit code still stands
            pass
    os._exit(code)


def answer_seconds(argv: list[str]) -> float:
    """How long the call may take in the decider: a check, ``ANSWER_SECONDS``; a hook, which
    answers deny by its own ``--deadline`` whatever it waits for, ``APPROVAL_SECONDS``."""
    return APPROVAL_SECONDS if argv[:1] == ["hook"] else ANSWER_SECONDS


def _stdin(argv: list[str]) -> bytes:
    """What the call reads from stdin, read here and put back for the in-process path should
    the decider not answer (it reads the same bytes). A hook's input that does not end within
    ``STDIN_SECONDS`` is not waited for here: the call goes in process, with what was read put
    before the rest (the hook's own deadline then answers for it)."""
    if argv[:1] == ["hook"]:
        data, complete = _read_hook_input()
    elif "-" in argv[1:]:
        data, complete = sys.stdin.buffer.read(), True
    else:
        return b""
    raw: io.RawIOBase = _Prefixed(data, None if complete else sys.stdin.fileno())
    sys.stdin = io.TextIOWrapper(io.BufferedReader(raw), encoding=sys.stdin.encoding,
                                 errors=sys.stdin.errors)
    if not complete:
        raise TimeoutError("the hook's input did not end in time")
    return data


def _read_hook_input() -> tuple[bytes, bool]:
    import select

    chunks: list[bytes] = []
    size, fd = 0, sys.stdin.fileno()
    while size < HOOK_INPUT_BYTES:
        ready, _, _ = select.select([fd], [], [], STDIN_SECONDS)
        if not ready:
            return b"".join(chunks), False
        chunk = os.read(fd, HOOK_INPUT_BYTES - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), True


class _Prefixed(io.RawIOBase):
    """``prefix``, then whatever the descriptor ``rest`` still holds (None: nothing)."""

    def __init__(self, prefix: bytes, rest: int | None) -> None:
        self._prefix = memoryview(prefix)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._prefix:
            count = min(len(buffer), len(self._prefix))
            buffer[:count] = self._prefix[:count]
            self._prefix = self._prefix[count:]
            return count
        if self._rest is None:
            return 0
        data = os.read(self._rest, len(buffer))
        buffer[:len(data)] = data
        return len(data)


def start_server() -> None:
    """Start a decider for the next call, detached (it exits after an idle while); a second
    one started at the same time finds the first's lock and exits."""
    import contextlib
    import subprocess

    with contextlib.suppress(OSError):
        # -P: the caller's directory (a hook's: the agent's workspace) stays off sys.path,
        # or a clawgate/ package written there would become the decider
        subprocess.Popen([sys.executable, "-P", "-m", "clawgate.daemon", "serve"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
