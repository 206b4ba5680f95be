"""The bridge inside a sandbox: ``python3 -I -S bridge.py PORT SOCKET -- COMMAND...``.

Run by the sandbox in place of the command. It makes the sandbox's way to the egress proxy:
a socket listening on 127.0.0.1:PORT of the sandbox's own network namespace (where only
loopback exists), which it hands to the proxy over the Unix socket SOCKET (bind-mounted into
the sandbox; the fd travels as ``SCM_RIGHTS``). Once the proxy says it holds the listener,
the bridge closes its own copy and becomes COMMAND (``execv``): the proxy accepts, in its own
process, every connection a program inside makes to that port, and no byte crosses a second
hop. The port listens before COMMAND starts, so the first connection finds it. Where the
proxy does not take the listener, COMMAND is not run (exit status 126, and a line saying why).

It imports nothing of clawgate's and decides nothing: the proxy judges each connection (and
checks what it is handed). It starts on every sandboxed run, so it imports only built-in
modules (``posix``, ``_socket``, ``_signal``): ``os`` and ``socket`` would triple its start-up.
"""

import _signal  # type: ignore[import-not-found]  # no stub: signal.py's own import
import _socket
import posix
import sys

TAKEN = b"ok"  # the proxy's answer once it holds the listener
HANDOFF_TIMEOUT_S = 30.0  # a proxy that neither answers nor closes: the run stops, not hangs
NOT_RUN = 126
RESTORED = (_signal.SIGPIPE, _signal.SIGXFSZ)  # Python ignores them; exec would keep that


def hand_over(port: int, path: str) -> None:
    """Listen on 127.0.0.1:``port`` here and hand the listener to the proxy at ``path``;
    OSError (its text says what failed) unless the proxy answered that it holds it."""
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    proxy = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(128)
        proxy.settimeout(HANDOFF_TIMEOUT_S)
        proxy.connect(path)
        # the fd as a C int (not ``array``: it imports ``collections``)
        proxy.sendmsg([b"listener"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS,
                                       listener.fileno().to_bytes(4, sys.byteorder))])
        answer = proxy.recv(4096)
        if answer != TAKEN:
            raise OSError(answer.decode("utf-8", "replace").strip() or
                          "the proxy closed without taking the listener")
    finally:
        listener.close()
        proxy.close()


def _which(name: str) -> str:
    if "/" in name:
        return name
    for directory in posix.environ.get(b"PATH", b"/usr/bin:/bin").decode().split(":"):
        candidate = f"{directory or '.'}/{name}"
        if posix.access(candidate, posix.X_OK):
            return candidate
    return name


def _become(argv: list[str]) -> int:
    """``execv`` ``argv``; only returns, with a shell's status, when it could not."""
    for number in RESTORED:
        _signal.signal(number, _signal.SIG_DFL)
    try:
        posix.execv(_which(argv[0]), argv)
    except OSError as exc:
        posix.write(2, f"{argv[0]}: {exc.strerror}\n".encode())
        return 127 if isinstance(exc, FileNotFoundError) else 126
    return 126  # not reached: execv returns only by raising


def main(args: list[str]) -> int:
    if len(args) < 4 or args[2] != "--":
        posix.write(2, b"usage: bridge.py PORT SOCKET -- COMMAND...\n")
        return 2
    try:
        hand_over(int(args[0]), args[1])
    except OSError as exc:
        posix.write(2, f"clawgate: the sandbox's way to the egress proxy could not be made "
                       f"({exc.strerror or exc}); the command was not run\n".encode())
        return NOT_RUN
    return _become(args[3:])


if __name__ == "__main__":
    posix._exit(main(sys.argv[1:]))
