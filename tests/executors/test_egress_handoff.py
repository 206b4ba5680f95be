"""The listener a sandbox hands the egress proxy (``handoff.py``, ``bridge.py``): what the
proxy refuses to take, on real sockets, and that it takes one handoff a run."""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from clawgate.egressrules import EgressRules
from clawgate.executors.egress import handoff
from clawgate.executors.egress.handoff import HandoffRefused, receive_listener
from clawgate.executors.egress.proxy import EgressProxy


def _listening(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", port))
    sock.listen(1)
    return sock


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


Maker = Callable[[ExitStack, Path, int], list[int]]

# What a sandbox could send, given the agreed port (the stack closes it); the refusal.
MAKERS: list[tuple[str, Maker, str]] = [
    ("a listener of the guard's own loopback",
     lambda stack, _tmp, port: [stack.enter_context(_listening(port)).fileno()],
     "the socket sent listens in the guard's own network namespace"),
    ("a listener on another port",
     lambda stack, _tmp, _port: [stack.enter_context(_listening(0)).fileno()],
     "not on 127.0.0.1:{port}"),
    ("a socket that does not listen",
     lambda stack, _tmp, _port: [stack.enter_context(socket.socket()).fileno()],
     "the socket sent is not listening"),
    ("a UDP socket",
     lambda stack, _tmp, _port: [stack.enter_context(
         socket.socket(socket.AF_INET, socket.SOCK_DGRAM)).fileno()],
     "what was sent is not a TCP socket"),
    ("a file",
     lambda stack, tmp, _port: [stack.enter_context((tmp / "f").open("w")).fileno()],
     "what was sent is not a socket"),
    ("two sockets",
     lambda stack, _tmp, _port: [stack.enter_context(socket.socket()).fileno(),
                                 stack.enter_context(socket.socket()).fileno()],
     "2 file descriptors were sent, not one listener"),
    ("nothing", lambda _stack, _tmp, _port: [], "0 file descriptors were sent"),
]


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    sender, receiver = socket.socketpair()
    receiver.settimeout(30)
    with sender, receiver:
        yield sender, receiver


@pytest.mark.parametrize(("make", "why"), [m[1:] for m in MAKERS], ids=[m[0] for m in MAKERS])
def test_what_is_not_the_sandboxs_listener_is_refused_and_closed(
        pair: tuple[socket.socket, socket.socket], tmp_path: Path, make: Maker,
        why: str) -> None:
    sender, receiver = pair
    port = _free_port()
    before = set(os.listdir("/proc/self/fd"))
    with ExitStack() as stack:
        socket.send_fds(sender, [b"listener"], make(stack, tmp_path, port))
        with pytest.raises(HandoffRefused) as refused:
            receive_listener(receiver, port)
    assert why.format(port=port) in str(refused.value)
    assert set(os.listdir("/proc/self/fd")) == before  # what came was closed


def test_a_listener_of_the_guards_loopback_is_refused_without_the_right_to_ask_its_socket(
        pair: tuple[socket.socket, socket.socket], monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the socket's namespace may not be asked (a setuid bubblewrap's namespace), the
    guard's own TCP table says whether the listener is the guard's."""
    def denied(*_args: object) -> int:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(handoff.fcntl, "ioctl", denied)
    sender, receiver = pair
    port = _free_port()
    with _listening(port) as own:
        socket.send_fds(sender, [b"listener"], [own.fileno()])
        with pytest.raises(HandoffRefused, match="the guard's own network namespace"):
            receive_listener(receiver, port)


def test_one_handoff_a_run_and_a_refusal_is_kept(tmp_path: Path) -> None:
    """The proxy takes one connection on the handoff socket: a listener it refuses is
    answered with the reason and kept on the lane; the socket is gone after it."""
    proxy = EgressProxy(EgressRules())
    port = _free_port()
    with proxy.lane("x") as lane, _listening(port) as own:
        proxy.await_listener(lane, port)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as bridge:
            bridge.settimeout(30)
            bridge.connect(lane.handoff_path)
            socket.send_fds(bridge, [b"listener"], [own.fileno()])
            answer = bridge.recv(4096)
        assert answer == (b"refused: the socket sent listens in the guard's own network "
                          b"namespace")
        assert lane.handoff_failure == ("the listener handed over was refused: the socket "
                                        "sent listens in the guard's own network namespace")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as late, \
                pytest.raises(FileNotFoundError):
            late.connect(lane.handoff_path)
