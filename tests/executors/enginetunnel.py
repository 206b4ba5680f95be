"""The local Docker engine served on a loopback TCP port, plain or behind mutual TLS: what a
remote engine looks like to the SDK, without a second engine."""

from __future__ import annotations

import contextlib
import select
import socket
import ssl
import subprocess
import threading
from pathlib import Path

ENGINE_SOCKET = "/var/run/docker.sock"


class Tunnel:
    """Accepts TCP (optionally TLS with client certificates) and relays each connection to the
    engine's unix socket. ``close()`` stops it and closes every socket it opened."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self._tls = tls
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.05)
        self._stop = threading.Event()
        self._opened: list[socket.socket] = []
        self._threads = [threading.Thread(target=self._serve, daemon=True)]
        self._threads[0].start()

    @property
    def port(self) -> int:
        port: int = self._server.getsockname()[1]
        return port

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            self._opened.append(client)
            thread = threading.Thread(target=self._relay, args=(client,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _relay(self, client: socket.socket) -> None:
        with contextlib.suppress(OSError, ssl.SSLError):
            client.settimeout(None)
            if self._tls is not None:
                client = self._tls.wrap_socket(client, server_side=True)
                self._opened.append(client)
            upstream = socket.socket(socket.AF_UNIX)
            self._opened.append(upstream)
            upstream.connect(ENGINE_SOCKET)
            _pump(client, upstream, self._stop)

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(2)
        self._server.close()
        for sock in self._opened:
            sock.close()


def _pump(a: socket.socket, b: socket.socket, stop: threading.Event) -> None:
    """Copy both ways on one thread (an SSL socket must not be used from two at once)."""
    peer = {a: b, b: a}
    while not stop.is_set():
        ready = [s for s in (a, b) if isinstance(s, ssl.SSLSocket) and s.pending()]
        if not ready:
            ready, _, _ = select.select([a, b], [], [], 0.1)
        for sock in ready:
            # Never block on a read: a TLS record that holds no data (a session ticket) would
            # leave the other direction unserved.
            sock.settimeout(0.0)
            try:
                data = sock.recv(65536)
            except (ssl.SSLWantReadError, BlockingIOError):
                continue
            finally:
                sock.settimeout(None)
            if not data:  # one side is done: so is the other (the engine ends an exec so)
                for end in (a, b):
                    with contextlib.suppress(OSError):
                        end.shutdown(socket.SHUT_RDWR)
                return
            peer[sock].sendall(data)


def make_certificates(directory: Path) -> tuple[Path, Path]:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, with openssl.
    Returns (server directory, client directory); the client one holds ca/cert/key.pem."""
    server, client = directory / "server", directory / "client"
    server.mkdir()
    client.mkdir()

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=directory)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test-ca",
            "-keyout", "ca-key.pem", "-out", "ca.pem")
    for name, extra in (("server", "subjectAltName=IP:127.0.0.1"),
                        ("client", "extendedKeyUsage=clientAuth")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}",
                "-keyout", f"{name}/key.pem", "-out", f"{name}.csr")
        (directory / f"{name}.ext").write_text(extra + "\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
                "-CAcreateserial", "-days", "1", "-extfile", f"{name}.ext",
                "-out", f"{name}/cert.pem")
        (directory / name / "ca.pem").write_bytes((directory / "ca.pem").read_bytes())
    return server, client


def server_context(server: Path) -> ssl.SSLContext:
    """Mutual TLS, as ``dockerd --tlsverify`` does: a client without our CA's cert is refused."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(server / "cert.pem", server / "key.pem")
    context.load_verify_locations(server / "ca.pem")
    context.verify_mode = ssl.CERT_REQUIRED
    return context
