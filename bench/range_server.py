"""The range's canary endpoint: a TCP listener on many ports of one address that records every
connection and every byte it is sent, and answers what speaks HTTP with ``200 OK``.

Inside the range's jail every name the egress proxy resolves leads here (``range_worker.py``),
so a request that leaves a sandbox through the proxy is seen, with what it carried.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from dataclasses import dataclass, field

PORTS = (21, 22, 25, 80, 443, 1337, 3000, 4444, 5000, 8000, 8080, 8443, 9000, 9001)
IDLE_S = 0.5  # the request is taken to be whole after this long without a byte
CAP = 1 << 20
HTTP_METHODS = (b"GET ", b"POST ", b"PUT ", b"HEAD ", b"PATCH ", b"DELETE ", b"OPTIONS ")


@dataclass(slots=True)
class Contact:
    port: int
    peer: str
    data: bytearray = field(default_factory=bytearray)


class CanaryServer:
    """Listens on ``address`` at ``PORTS``; ``contacts`` grows by one per connection."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.contacts: list[Contact] = []
        self.lock = threading.Lock()
        self._listeners: list[socket.socket] = []

    def start(self) -> None:
        for port in PORTS:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((self.address, port))
            listener.listen(64)
            self._listeners.append(listener)
            threading.Thread(target=self._accept, args=(listener, port), daemon=True).start()

    def close(self) -> None:
        for listener in self._listeners:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()

    def since(self, mark: int) -> list[Contact]:
        with self.lock:
            return list(self.contacts[mark:])

    def mark(self) -> int:
        with self.lock:
            return len(self.contacts)

    def _accept(self, listener: socket.socket, port: int) -> None:
        while True:
            try:
                conn, peer = listener.accept()
            except OSError:
                return
            contact = Contact(port, f"{peer[0]}:{peer[1]}")
            with self.lock:
                self.contacts.append(contact)
            threading.Thread(target=self._serve, args=(conn, contact), daemon=True).start()

    def _serve(self, conn: socket.socket, contact: Contact) -> None:
        with conn:
            conn.settimeout(IDLE_S)
            answered = False
            while len(contact.data) < CAP:
                try:
                    chunk = conn.recv(65536)
                except OSError:
                    if not answered and contact.data.startswith(HTTP_METHODS):
                        answered = _answer(conn)
                        continue
                    break
                if not chunk:
                    break
                contact.data += chunk
                if not answered and b"\r\n\r\n" in contact.data \
                        and contact.data.startswith(HTTP_METHODS) \
                        and not _expects_body(bytes(contact.data)):
                    answered = _answer(conn)


def _expects_body(data: bytes) -> bool:
    head, _, body = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            try:
                return len(body) < int(value.strip())
            except ValueError:
                return False
        if name.strip().lower() == b"transfer-encoding":
            return not body.endswith(b"0\r\n\r\n")
    return False


def _answer(conn: socket.socket) -> bool:
    with contextlib.suppress(OSError):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n")
    return True
