"""What the egress tests share: a real HTTP server on 127.0.0.1, a UDP listener that counts
datagrams (a resolver an attacker would name), and the Python a sandbox can run."""

from __future__ import annotations

import http.server
import os
import socket
import ssl
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

# The interpreter this suite runs on, outside its virtual environment: a bubblewrap sandbox
# shows its installation read-only (for the egress bridge).
PYTHON = os.path.realpath(sys.executable)


class _Handler(http.server.BaseHTTPRequestHandler):
    """``/bytes/N``: N bytes; anything else: ``hello HOST PATH`` (the Host header it got)."""

    protocol_version = "HTTP/1.0"

    def do_GET(self) -> None:
        if self.path.startswith("/bytes/"):
            size = int(self.path.rsplit("/", 1)[1])
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            block = b"x" * 65536
            rate = getattr(self.server, "rate", None)  # bytes per second, or as fast as it goes
            start, sent = time.monotonic(), 0
            while sent < size:
                if rate is not None:  # keep to the rate: wait until this block is due
                    time.sleep(max(0.0, start + sent / rate - time.monotonic()))
                self.wfile.write(block[:size - sent])
                sent += len(block[:size - sent])
            return
        body = f"hello {self.headers.get('Host')} {self.path}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


@contextmanager
def http_server(rate: float | None = None) -> Iterator[int]:
    """A threaded HTTP server on 127.0.0.1; yields its port. ``rate``: ``/bytes/N`` is sent
    at that many bytes per second (a download over a real link), else as fast as it goes."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.rate = rate  # type: ignore[attr-defined]
    with _serving(server) as port:
        yield port


@contextmanager
def https_server(certfile: str, keyfile: str) -> Iterator[int]:
    """``http_server``'s handler behind TLS with the given certificate; yields its port."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certfile, keyfile)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with _serving(server) as port:
        yield port


@contextmanager
def _serving(server: http.server.ThreadingHTTPServer) -> Iterator[int]:
    """``server`` answering in a thread of its own until the block ends; yields its port."""
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


class UdpListener:
    """A UDP socket on 127.0.0.1 that keeps what reaches it."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]

    def received(self) -> list[bytes]:
        got: list[bytes] = []
        while True:
            try:
                got.append(self.sock.recv(4096))
            except TimeoutError:
                return got

    def close(self) -> None:
        self.sock.close()


def urlopen_script(url: str, proxy: bool = True) -> list[str]:
    """A Python one-liner that fetches ``url`` (through the environment's proxy, or none)
    and prints the status and body, or the error's text."""
    opener = "urllib.request.build_opener()" if proxy else \
        "urllib.request.build_opener(urllib.request.ProxyHandler({}))"
    code = ("import sys, urllib.request, urllib.error\n"
            f"try:\n    r = {opener}.open({url!r}, timeout=20)\n"
            "    print(r.status, r.read().decode())\n"
            "except urllib.error.HTTPError as e:\n"
            "    print(e.code, e.read().decode()); sys.exit(3)\n"
            "except OSError as e:\n    print('error', e); sys.exit(4)\n")
    return [PYTHON, "-I", "-c", code]
