"""The two ways a sandboxed program asks the proxy for a connection, read off the stream:
HTTP (``CONNECT host:port``, or a plain request with an absolute ``http://`` URI) and SOCKS5
(``CONNECT`` with a domain name, an IPv4 or an IPv6 address). Each reader returns the target
the program named, never one it could smuggle past the judgement: a ``Host`` header is not
read for CONNECT and is replaced by the URI's host for a plain request.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

HEAD_LIMIT = 64 * 1024
HOP_HEADERS = frozenset({"connection", "keep-alive", "proxy-connection", "proxy-authorization",
                         "proxy-authenticate", "host", "te", "upgrade"})
_PRINTABLE = re.compile(r"[^\x20-\x7e]")

# SOCKS5 replies (RFC 1928)
SOCKS_OK = 0x00
SOCKS_FAILURE = 0x01
SOCKS_NOT_ALLOWED = 0x02
SOCKS_NET_UNREACHABLE = 0x03
SOCKS_HOST_UNREACHABLE = 0x04
SOCKS_REFUSED = 0x05
SOCKS_COMMAND = 0x07
SOCKS_ADDRESS_TYPE = 0x08


class Incoming:
    """A program's connection to the proxy, read through a buffer: what is read past a
    request head (a TLS hello sent right after CONNECT, a body) stays in ``pending``."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.pending = bytearray()

    def _fill(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise BadRequest("the connection closed inside the request")
        self.pending += data

    def read_until(self, end: bytes, limit: int) -> bytes:
        while (at := self.pending.find(end)) < 0:
            if len(self.pending) > limit:
                raise BadRequest("the request head is too long")
            self._fill()
        head = bytes(self.pending[:at + len(end)])
        del self.pending[:at + len(end)]
        return head

    def read_exactly(self, count: int) -> bytes:
        while len(self.pending) < count:
            self._fill()
        data = bytes(self.pending[:count])
        del self.pending[:count]
        return data


class BadRequest(Exception):
    """The program's request is not one the proxy speaks; the message says why
    (``socks_reply``: the SOCKS5 reply to send, -1 when one was sent already)."""

    def __init__(self, message: str, socks_reply: int = SOCKS_FAILURE) -> None:
        super().__init__(message)
        self.socks_reply = socks_reply


@dataclass(frozen=True, slots=True)
class Target:
    """What a program asked to reach, and (plain HTTP) the request head to send there."""

    host: str
    port: int
    via: str  # "connect", "http" or "socks5"
    head: bytes = field(default=b"", repr=False)  # plain HTTP: the rewritten head, sent first


def printable(text: str, limit: int = 200) -> str:
    """``text`` safe for a status line or a log: printable ASCII, cut."""
    return _PRINTABLE.sub("?", text)[:limit]


def split_host_port(text: str, default: int | None) -> tuple[str, int]:
    """``host:port`` or ``[v6]:port`` (the port may be omitted when ``default`` is given)."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host, port_text = text, ""
    if not port_text:
        if default is None:
            raise BadRequest(f"{printable(text)!r} names no port")
        return host, default
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise BadRequest(f"{printable(text)!r} names no valid port")
    return host, int(port_text)


def read_http(incoming: Incoming) -> Target:
    """The target of an HTTP proxy request."""
    head = incoming.read_until(b"\r\n\r\n", HEAD_LIMIT).decode("latin-1")
    request_line, *header_lines = head[:-4].split("\r\n")
    parts = request_line.split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise BadRequest(f"not an HTTP request line: {printable(request_line)!r}")
    method, target, version = parts
    if method.upper() == "CONNECT":
        host, port = split_host_port(target, None)
        return Target(host, port, "connect")
    url = urlsplit(target)
    if url.scheme.lower() != "http" or not url.hostname:
        raise BadRequest("a plain request must name an absolute http:// URI (use CONNECT "
                         "for https)")
    try:
        port = url.port or 80
    except ValueError as exc:
        raise BadRequest(f"{printable(target)!r} names no valid port") from exc
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    kept = [line for line in header_lines
            if line.split(":", 1)[0].strip().lower() not in HOP_HEADERS]
    host_header = url.netloc.rpartition("@")[2]
    lines = [f"{method} {path} {version}", *kept, f"Host: {host_header}", "Connection: close"]
    return Target(url.hostname, port, "http", ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))


def read_socks5(incoming: Incoming) -> Target:
    """The target of a SOCKS5 request; answers the method negotiation (no authentication)
    on the way."""
    _version, count = incoming.read_exactly(2)
    methods = incoming.read_exactly(count)
    if 0 not in methods:
        incoming.sock.sendall(b"\x05\xff")
        raise BadRequest("SOCKS5 without the no-authentication method", socks_reply=-1)
    incoming.sock.sendall(b"\x05\x00")
    version, command, _reserved, kind = incoming.read_exactly(4)
    host = _socks_address(incoming, kind)
    port = int.from_bytes(incoming.read_exactly(2), "big")
    if version != 5:
        raise BadRequest("not a SOCKS5 request")
    if command != 1:
        raise BadRequest(f"SOCKS5 command {command} (only CONNECT is offered)", SOCKS_COMMAND)
    return Target(host, port, "socks5")


def _socks_address(incoming: Incoming, kind: int) -> str:
    if kind == 1:
        return str(ipaddress.IPv4Address(incoming.read_exactly(4)))
    if kind == 4:
        return str(ipaddress.IPv6Address(incoming.read_exactly(16)))
    if kind == 3:
        length = incoming.read_exactly(1)[0]
        return incoming.read_exactly(length).decode("latin-1")
    raise BadRequest(f"SOCKS5 address type {kind}", SOCKS_ADDRESS_TYPE)


def socks_reply(code: int) -> bytes:
    """A SOCKS5 reply with an all-zero IPv4 bound address."""
    return bytes([5, code, 0, 1, 0, 0, 0, 0, 0, 0])


def refusal(status: int, reason: str, body: str, key: str | None) -> bytes:
    """An HTTP response the program can read: the status line's reason says what was refused
    (``http.client`` and pip show it), the body says it in full."""
    data = body.encode("utf-8")
    lines = [f"HTTP/1.1 {status} {printable(reason)}", "Content-Type: text/plain; charset=utf-8",
             f"Content-Length: {len(data)}", "Connection: close"]
    if key:
        lines.append(f"X-Clawgate-Policy-Key: {key}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + data
