"""The bridge inside a sandbox: ``python3 -I -S bridge.py PORT SOCKET -- COMMAND...``.

Run by the sandbox in place of the command. It listens on 127.0.0.1:PORT of the sandbox's own
network namespace (where only loopback exists), then starts COMMAND and forwards every
connection made to that port to the egress proxy's Unix socket (bind-mounted into the
sandbox), byte for byte, until COMMAND exits; it exits with COMMAND's status (128+N when
killed by signal N). The port listens before COMMAND starts, so the first connection finds it.

It imports nothing of clawgate's (the sandbox runs it with the interpreter in isolated mode)
and decides nothing: the proxy judges each connection.
"""

import os
import signal
import socket
import sys
import threading

CHUNK = 256 * 1024
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while True:
            data = source.recv(CHUNK)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    try:  # noqa: SIM105 - contextlib would add to every sandboxed run's start-up
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _carry(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_carry, args=(client, path), daemon=True).start()


def _start(argv: list[str]) -> int:
    pid = os.fork()
    if pid == 0:
        for number in (signal.SIGPIPE, signal.SIGXFSZ, *FORWARDED):
            signal.signal(number, signal.SIG_DFL)  # Python ignores SIGPIPE; exec keeps that
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"{argv[0]}: {exc.strerror}\n".encode())
            os._exit(127 if isinstance(exc, FileNotFoundError) else 126)
    return pid


def main(args: list[str]) -> int:
    if len(args) < 4 or args[2] != "--":
        os.write(2, b"usage: bridge.py PORT SOCKET -- COMMAND...\n")
        return 2
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(args[0])))
    listener.listen(128)
    child = _start(args[3:])
    for number in FORWARDED:
        signal.signal(number, lambda received, _frame: os.kill(child, received))
    threading.Thread(target=_serve, args=(listener, args[1]), daemon=True).start()
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main(sys.argv[1:]))
