"""The bridge inside a sandbox: ``python3 -I -S bridge.py PORT SOCKET -- COMMAND...``.

Run by the sandbox in place of the command. It listens on 127.0.0.1:PORT of the sandbox's own
network namespace (where only loopback exists), then starts COMMAND and forwards every
connection made to that port to the egress proxy's Unix socket (bind-mounted into the
sandbox), byte for byte, until COMMAND exits; it exits with COMMAND's status (128+N when
killed by signal N). The port listens before COMMAND starts, so the first connection finds it.

It imports nothing of clawgate's and decides nothing: the proxy judges each connection. It
starts on every sandboxed run, so it imports only built-in modules (``posix``, ``_socket``,
``_thread``, ``_signal``): ``os``, ``socket`` and ``threading`` would triple its start-up.
"""

import _signal  # type: ignore[import-not-found]  # no stub: signal.py's own import
import _socket
import _thread
import posix
import sys

CHUNK = 1024 * 1024
FORWARDED = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP, _signal.SIGQUIT)
RESTORED = (_signal.SIGPIPE, _signal.SIGXFSZ, *FORWARDED)  # Python ignores SIGPIPE; exec keeps it


def _pump(source: _socket.socket, sink: _socket.socket, done: object) -> None:
    buffer = memoryview(bytearray(CHUNK))
    try:
        while True:
            received = source.recv_into(buffer)
            if not received:
                break
            sink.sendall(buffer[:received])
    except OSError:
        pass
    try:  # noqa: SIM105 - contextlib is not a built-in module
        sink.shutdown(_socket.SHUT_WR)
    except OSError:
        pass
    if done is not None:
        done.release()  # type: ignore[attr-defined]


def _carry(fd: int, path: str) -> None:
    client = _socket.socket(fileno=fd)
    upstream = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = _thread.allocate_lock()
    back.acquire()
    _thread.start_new_thread(_pump, (upstream, client, back))
    _pump(client, upstream, None)
    back.acquire()
    client.close()
    upstream.close()


def _serve(listener: _socket.socket, path: str) -> None:
    while True:
        try:
            fd, _ = listener._accept()  # type: ignore[attr-defined]  # C-level accept
        except OSError:
            return
        _thread.start_new_thread(_carry, (fd, path))


def _which(name: str) -> str:
    if "/" in name:
        return name
    for directory in posix.environ.get(b"PATH", b"/usr/bin:/bin").decode().split(":"):
        candidate = f"{directory or '.'}/{name}"
        if posix.access(candidate, posix.X_OK):
            return candidate
    return name


def _start(argv: list[str]) -> int:
    pid = posix.fork()
    if pid == 0:
        for number in RESTORED:
            _signal.signal(number, _signal.SIG_DFL)
        try:
            posix.execv(_which(argv[0]), argv)
        except OSError as exc:
            posix.write(2, f"{argv[0]}: {exc.strerror}\n".encode())
            posix._exit(127 if isinstance(exc, FileNotFoundError) else 126)
    return pid


def main(args: list[str]) -> int:
    if len(args) < 4 or args[2] != "--":
        posix.write(2, b"usage: bridge.py PORT SOCKET -- COMMAND...\n")
        return 2
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(args[0])))
    listener.listen(128)
    child = _start(args[3:])
    for number in FORWARDED:
        _signal.signal(number, lambda received, _frame: posix.kill(child, received))
    _thread.start_new_thread(_serve, (listener, args[1]))
    _, status = posix.waitpid(child, 0)
    if posix.WIFSIGNALED(status):
        return 128 + posix.WTERMSIG(status)
    return posix.WEXITSTATUS(status)


if __name__ == "__main__":
    posix._exit(main(sys.argv[1:]))
