"""URL safety for ``web_fetch``: no requests into the host's own network (SSRF).

Only http and https. The host is resolved once; every address it resolves to must be public
(loopback, private, link-local, CGNAT, unique-local, IPv4-mapped, multicast, reserved and
documentation ranges are blocked, and cloud metadata endpoints always). The connection is then
made to the checked address itself, with the name kept for the Host header and TLS (SNI and
certificate), so a second DNS answer cannot rebind it. Each redirect is checked the same way
before anything connects to it. A DNS failure is a refusal. Bodies stop at ``max_bytes``.

An operator who trusts an internal network says so explicitly with ``allowed_networks``; there
is no switch that turns the check off. Metadata endpoints stay blocked even then.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote, urljoin, urlsplit

from clawgate.errors import ToolError, ToolErrorKind

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[str]]

_BLOCKED: tuple[tuple[str, str], ...] = (
    ("0.0.0.0/8", "this-network"), ("10.0.0.0/8", "private"), ("100.64.0.0/10", "CGNAT"),
    ("127.0.0.0/8", "loopback"), ("169.254.0.0/16", "link-local"),
    ("172.16.0.0/12", "private"), ("192.0.0.0/24", "IETF protocol"),
    ("192.0.2.0/24", "documentation"), ("192.88.99.0/24", "6to4 relay"),
    ("192.168.0.0/16", "private"), ("198.18.0.0/15", "benchmarking"),
    ("198.51.100.0/24", "documentation"), ("203.0.113.0/24", "documentation"),
    ("224.0.0.0/4", "multicast"), ("240.0.0.0/4", "reserved"),
    ("::/128", "unspecified"), ("::1/128", "loopback"), ("::ffff:0:0/96", "IPv4-mapped"),
    ("::/96", "IPv4-compatible"), ("64:ff9b::/96", "NAT64"), ("64:ff9b:1::/48", "NAT64"),
    ("100::/64", "discard"), ("2001::/32", "Teredo"), ("2001:db8::/32", "documentation"),
    ("2002::/16", "6to4"), ("fc00::/7", "unique-local"), ("fe80::/10", "link-local"),
    ("fec0::/10", "site-local"), ("ff00::/8", "multicast"),
)
BLOCKED_NETWORKS = tuple((ipaddress.ip_network(net), why) for net, why in _BLOCKED)
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254",
                                       "100.100.100.200")
)
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata", "instance-data",
                            "metadata.azure.internal"})
REDIRECTS = frozenset({301, 302, 303, 307, 308})


def _deny(message: str) -> ToolError:
    return ToolError(ToolErrorKind.PERMISSION_DENIED, message)


def _system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


@dataclass(frozen=True, slots=True)
class UrlPolicy:
    """What ``web_fetch`` may reach.

    ``allowed_domains`` empty means any public domain; otherwise the host must equal one of them
    or be a subdomain. ``blocked_domains`` always wins. ``allowed_networks`` lists CIDR networks
    the operator trusts although they are in a blocked range (default: none).
    """

    allowed_domains: tuple[str, ...] = ()
    blocked_domains: tuple[str, ...] = ()
    allowed_networks: tuple[str, ...] = ()
    max_bytes: int = 10 * 1024 * 1024
    max_redirects: int = 5
    timeout_s: float = 15.0  # for connecting and for each read
    deadline_s: float = 60.0  # for the whole fetch, redirects included (no slow drip)
    ca_file: str | None = None  # CA bundle to trust instead of the system store (e.g. a proxy's)
    resolver: Resolver = field(default=_system_resolver, repr=False, compare=False)

    def __post_init__(self) -> None:
        for net in self.allowed_networks:  # a typo fails when the policy is built, not mid-fetch
            ipaddress.ip_network(net, strict=False)

    def trusted(self, ip: IPAddress) -> bool:
        return any(ip in ipaddress.ip_network(n, strict=False) for n in self.allowed_networks)


@dataclass(frozen=True, slots=True)
class CheckedUrl:
    """A URL that passed the check, pinned to the address that was checked."""

    url: str
    scheme: str
    host: str
    port: int
    address: str
    target: str  # path and query, as sent in the request line


@dataclass(frozen=True, slots=True)
class FetchResult:
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    final_url: str
    truncated: bool


def _normal_host(host: str) -> str:
    host = host.rstrip(".").lower()
    try:
        return host.encode("idna").decode("ascii") if host and not host.isascii() else host
    except UnicodeError as exc:
        raise _deny(f"host {host!r} is not a valid name") from exc


def _matches(host: str, domains: Sequence[str]) -> bool:
    for domain in domains:
        d = domain.strip(".").lower()
        if host == d or host.endswith("." + d):
            return True
    return False


def address_problem(ip: IPAddress, policy: UrlPolicy) -> str | None:
    """Why ``ip`` may not be reached, or None. Metadata endpoints are refused even if trusted."""
    if ip in METADATA_ADDRESSES:
        return "a cloud metadata endpoint"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped in METADATA_ADDRESSES:
        return "a cloud metadata endpoint"
    if policy.trusted(ip):
        return None
    for net, why in BLOCKED_NETWORKS:
        if ip.version == net.version and ip in net:
            return f"in a blocked range ({why}, {net})"
    return None


def check_url(url: str, policy: UrlPolicy) -> CheckedUrl:
    """Check ``url`` and resolve its host once. Raises ``ToolError(PermissionDenied)``."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise _deny(f"{url}: only http and https URLs may be fetched")
    if parts.username is not None or parts.password is not None:
        raise _deny(f"{scheme}://…: credentials in a URL are not allowed")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError as exc:
        raise _deny(f"{url}: bad port") from exc
    host = _normal_host(parts.hostname or "")
    if not host:
        raise _deny(f"{url}: no host")
    if host in METADATA_HOSTS:
        raise _deny(f"{host}: a cloud metadata endpoint")
    if _matches(host, policy.blocked_domains):
        raise _deny(f"{host}: the domain is blocked")
    if policy.allowed_domains and not _matches(host, policy.allowed_domains):
        raise _deny(f"{host}: not in the allowed domains")
    address = _resolve_checked(host, port, policy)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    # non-ASCII, spaces and control characters percent-encoded; existing escapes kept
    target = quote(target, safe="!#$%&'()*+,/:;=?@[]~")
    return CheckedUrl(url, scheme, host, port, address, target)


def _resolve_checked(host: str, port: int, policy: UrlPolicy) -> str:
    """Every address the name resolves to must pass; the first is the one connected to."""
    try:
        answers = [str(ipaddress.ip_address(host))]
    except ValueError:
        answers = []
    try:
        answers = answers or list(policy.resolver(host, port))
    except (OSError, UnicodeError) as exc:
        raise _deny(f"{host}: cannot be resolved ({exc}); refusing") from exc
    if not answers:
        raise _deny(f"{host}: resolves to no address; refusing")
    for answer in answers:
        ip = ipaddress.ip_address(answer.split("%", 1)[0])
        problem = address_problem(ip, policy)
        if problem:
            raise _deny(f"{host} resolves to {ip}, {problem}")
    return answers[0]


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to the checked address; the Host header still carries the name."""

    def __init__(self, checked: CheckedUrl, timeout: float) -> None:
        super().__init__(checked.host, checked.port, timeout=timeout)
        self._address = checked.address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """Connects to the checked address; SNI and certificate checks use the name."""

    def __init__(self, checked: CheckedUrl, timeout: float, ca_file: str | None) -> None:
        self._tls = ssl.create_default_context(cafile=ca_file)
        super().__init__(checked.host, checked.port, timeout=timeout, context=self._tls)
        self._address = checked.address

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)


@dataclass(frozen=True, slots=True)
class Outgoing:
    """What is sent: GET by default; a POST body is sent to the first URL only (a redirect
    after a POST is followed with GET, as browsers do for 301, 302 and 303)."""

    method: str = "GET"
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()


def _read_capped(response: http.client.HTTPResponse, limit: int, deadline: float) -> bytes:
    """At most ``limit + 1`` bytes (the extra one says there was more), before ``deadline``."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        if time.monotonic() > deadline:
            raise TimeoutError("the fetch took longer than its deadline")
        chunk = response.read1(min(65536, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _request(checked: CheckedUrl, policy: UrlPolicy, deadline: float,
             out: Outgoing = Outgoing()) -> FetchResult:
    """One request. The deadline covers everything, connecting and slow headers included: a
    timer shuts the socket down when it passes, so a server that drips its status line or its
    headers a byte at a time (each read well within ``timeout_s``) cannot hold the fetch."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("the fetch took longer than its deadline")
    conn: http.client.HTTPConnection
    if checked.scheme == "https":
        conn = _PinnedHTTPS(checked, min(policy.timeout_s, remaining), policy.ca_file)
    else:
        conn = _PinnedHTTP(checked, min(policy.timeout_s, remaining))
    cutter = _Cutter(conn, remaining)
    try:
        headers = {"Accept-Encoding": "identity", "User-Agent": "clawgate-web-fetch/1",
                   **dict(out.headers)}
        conn.request(out.method, checked.target, body=out.body, headers=headers)
        with conn.getresponse() as response:
            body = _read_capped(response, policy.max_bytes, deadline)
            cutter.check()
            return FetchResult(
                status=response.status,
                headers=tuple(response.getheaders()),
                body=body[: policy.max_bytes],
                final_url=checked.url,
                truncated=len(body) > policy.max_bytes,
            )
    except (OSError, http.client.HTTPException):
        cutter.check()
        raise
    finally:
        cutter.cancel()
        conn.close()


class _Cutter:
    """Shuts a connection's socket down when its time is up; ``check`` raises TimeoutError if
    it did (what the cut made look like an error or an early end was the deadline)."""

    def __init__(self, conn: http.client.HTTPConnection, after_s: float) -> None:
        self._conn = conn
        self._fired = threading.Event()
        self._timer = threading.Timer(after_s, self._cut)
        self._timer.daemon = True
        self._timer.start()

    def _cut(self) -> None:
        self._fired.set()
        sock = self._conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def check(self) -> None:
        if self._fired.is_set():
            raise TimeoutError("the fetch took longer than its deadline")

    def cancel(self) -> None:
        self._timer.cancel()


def fetch(url: str, policy: UrlPolicy | None = None, *, method: str = "GET",
          body: bytes | None = None, headers: Mapping[str, str] | None = None) -> FetchResult:
    """GET (or POST) ``url`` under ``policy``, following redirects, each checked before it is
    connected.

    Refusals raise ``ToolError(PermissionDenied)``; network failures raise
    ``ToolError(ExecutionFailed)`` and timeouts ``ToolError(Timeout)``.
    """
    policy = policy or UrlPolicy()
    out = Outgoing(method, body, tuple((headers or {}).items()))
    deadline = time.monotonic() + policy.deadline_s
    for _ in range(policy.max_redirects + 1):
        checked = check_url(url, policy)
        try:
            result = _request(checked, policy, deadline, out)
        except TimeoutError as exc:
            raise ToolError(ToolErrorKind.TIMEOUT, f"{checked.host}: timed out") from exc
        except (OSError, http.client.HTTPException) as exc:
            raise ToolError(ToolErrorKind.EXECUTION_FAILED, f"{checked.host}: {exc}") from exc
        location = {k.lower(): v for k, v in result.headers}.get("location")
        if result.status not in REDIRECTS or not location:
            return result
        url = urljoin(url, location)
        out = Outgoing()
    raise _deny(f"more than {policy.max_redirects} redirects")
