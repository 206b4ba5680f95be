"""URL safety: address table, URL table, and real fetches against a server on 127.0.0.1."""

from __future__ import annotations

import ipaddress
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.tools.urls import Resolver, UrlPolicy, address_problem, check_url, fetch

LOOPBACK = ("127.0.0.0/8",)


@pytest.mark.parametrize(("address", "blocked"), [
    ("8.8.8.8", False), ("93.184.216.34", False), ("2606:4700::1111", False),
    ("127.0.0.1", True), ("127.9.9.9", True), ("10.0.0.1", True), ("172.16.5.4", True),
    ("192.168.1.1", True), ("100.64.0.1", True), ("169.254.1.1", True),
    ("169.254.169.254", True), ("0.0.0.0", True), ("224.0.0.1", True), ("255.255.255.255", True),
    ("::1", True), ("::", True), ("::ffff:127.0.0.1", True), ("::ffff:8.8.8.8", True),
    ("fc00::1", True), ("fd12:3456::1", True), ("fe80::1", True), ("2001:db8::1", True),
    ("64:ff9b::a00:1", True), ("2002:7f00:1::", True), ("ff02::1", True),
])
def test_address_table(address: str, blocked: bool) -> None:
    assert (address_problem(ipaddress.ip_address(address), UrlPolicy()) is not None) is blocked


def test_trusted_network_lifts_the_range_but_never_metadata() -> None:
    policy = UrlPolicy(allowed_networks=("169.254.0.0/16", "10.0.0.0/8"))
    assert address_problem(ipaddress.ip_address("10.1.2.3"), policy) is None
    assert address_problem(ipaddress.ip_address("169.254.1.1"), policy) is None
    assert "metadata" in str(address_problem(ipaddress.ip_address("169.254.169.254"), policy))
    mapped = ipaddress.ip_address("::ffff:169.254.169.254")
    assert "metadata" in str(address_problem(mapped, UrlPolicy(allowed_networks=("::/0",))))


def table_resolver(table: dict[str, Sequence[str]]) -> Resolver:
    def resolve(host: str, port: int) -> Sequence[str]:
        if host in table:
            return table[host]
        return [str(info[4][0]) for info in socket.getaddrinfo(host, port)]
    return resolve


NAMES = {"public.example": ["93.184.216.34"], "docs.python.org": ["151.101.0.223"],
         "rebind.example": ["93.184.216.34", "127.0.0.1"], "empty.example": []}
POLICY = UrlPolicy(resolver=table_resolver(NAMES))


@pytest.mark.parametrize(("url", "why"), [
    ("ftp://public.example/x", "only http and https"),
    ("file:///etc/passwd", "only http and https"),
    ("gopher://public.example/", "only http and https"),
    ("http://user:pw@public.example/", "credentials"),
    ("http://public.example@127.0.0.1/", "credentials"),
    ("http://127.0.0.1/", "loopback"),
    ("http://2130706433/", "loopback"),
    ("http://0x7f.1/", "loopback"),
    ("http://[::1]:8080/", "loopback"),
    ("http://[::ffff:10.0.0.1]/", "IPv4-mapped"),
    ("http://169.254.169.254/latest/meta-data/", "metadata"),
    ("http://metadata.google.internal/computeMetadata/v1/", "metadata"),
    ("http://METADATA.google.internal./", "metadata"),
    ("http://10.0.0.1/", "private"),
    ("http://100.64.1.1/", "CGNAT"),
    ("http://[fd00::1]/", "unique-local"),
    ("http://rebind.example/", "loopback"),
    ("http://empty.example/", "no address"),
    ("http://nonexistent.invalid/", "cannot be resolved"),
    ("http:///nohost", "no host"),
    ("http://public.example:99999/", "bad port"),
])
def test_refused_urls(url: str, why: str) -> None:
    with pytest.raises(ToolError, match=why) as err:
        check_url(url, POLICY)
    assert err.value.kind is ToolErrorKind.PERMISSION_DENIED


def test_dns_failure_with_the_system_resolver_is_a_refusal() -> None:
    with pytest.raises(ToolError, match="cannot be resolved") as err:
        fetch("http://nonexistent.invalid/", UrlPolicy())
    assert err.value.kind is ToolErrorKind.PERMISSION_DENIED


def test_domain_lists() -> None:
    allow = UrlPolicy(allowed_domains=("python.org",), blocked_domains=("evil.python.org",),
                      resolver=POLICY.resolver)
    checked = check_url("https://docs.python.org/3/?q=1", allow)
    assert (checked.host, checked.port, checked.address, checked.target) == (
        "docs.python.org", 443, "151.101.0.223", "/3/?q=1")
    with pytest.raises(ToolError, match="not in the allowed"):
        check_url("http://public.example/", allow)
    with pytest.raises(ToolError, match="blocked"):
        check_url("http://a.evil.python.org/", allow)
    with pytest.raises(ToolError, match="not in the allowed"):
        check_url("http://notpython.org/", allow)


# --- a real server on 127.0.0.1 ---------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        if parts.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", query["to"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if parts.path == "/drip":
            self._drip()
            return
        if parts.path.startswith("/echo"):
            body = self.path.encode()
        else:
            body = {"/big": b"x" * 5000, "/host": self.headers["Host"].encode()}.get(
                parts.path, b"hello")
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _drip(self) -> None:
        """One byte every 50 ms: each read is quick, the whole takes seconds."""
        self.send_response(200)
        self.send_header("Content-Length", "40")
        self.end_headers()
        try:
            for _ in range(40):
                self.wfile.write(b".")
                self.wfile.flush()
                time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: tests read results, not logs."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_loopback_server_is_refused_by_default(server: str) -> None:
    with pytest.raises(ToolError, match="loopback") as err:
        fetch(server + "/")
    assert err.value.kind is ToolErrorKind.PERMISSION_DENIED


def test_loopback_server_serves_when_trusted(server: str) -> None:
    result = fetch(server + "/", UrlPolicy(allowed_networks=LOOPBACK))
    assert (result.status, result.body, result.truncated) == (200, b"hello", False)
    assert result.final_url == server + "/"


def test_redirect_is_followed_and_checked(server: str) -> None:
    result = fetch(f"{server}/redirect?to=/big", UrlPolicy(allowed_networks=LOOPBACK))
    assert (result.status, len(result.body), result.final_url) == (200, 5000, server + "/big")


@pytest.mark.parametrize(("target", "why"), [
    ("http://169.254.169.254/latest/meta-data/", "metadata"),
    ("http://10.0.0.1/", "private"),
    ("http://metadata.google.internal/", "metadata"),
    ("file:///etc/passwd", "only http"),
])
def test_redirect_to_a_blocked_address_is_refused(server: str, target: str, why: str) -> None:
    with pytest.raises(ToolError, match=why) as err:
        fetch(f"{server}/redirect?to={target}", UrlPolicy(allowed_networks=LOOPBACK))
    assert err.value.kind is ToolErrorKind.PERMISSION_DENIED


def test_refused_redirect_never_connects(server: str) -> None:
    """The redirect target listens on 127.0.0.2; nothing may reach its accept queue."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.2", 0))
        listener.listen(8)
        listener.setblocking(False)
        target = f"http://127.0.0.2:{listener.getsockname()[1]}/"
        with pytest.raises(ToolError, match="loopback"):
            fetch(f"{server}/redirect?to={target}", UrlPolicy(allowed_networks=("127.0.0.1/32",)))
        with pytest.raises(BlockingIOError):
            listener.accept()


def test_connection_is_pinned_and_host_header_keeps_the_name(server: str) -> None:
    port = urlsplit(server).port
    calls: list[str] = []

    def resolve(host: str, port: int) -> Sequence[str]:
        calls.append(host)
        return ["127.0.0.1"]

    policy = UrlPolicy(allowed_networks=LOOPBACK, resolver=resolve)
    result = fetch(f"http://pinned.example:{port}/host", policy)
    assert result.body == f"pinned.example:{port}".encode()
    assert calls == ["pinned.example"]


def test_path_is_percent_encoded(server: str) -> None:
    result = fetch(server + "/echo/é x?q=a b", UrlPolicy(allowed_networks=LOOPBACK))
    assert result.body == b"/echo/%C3%A9%20x?q=a%20b"


def test_slow_drip_hits_the_deadline(server: str) -> None:
    """The drip sends 40 bytes over 2 s, each read quick: only a whole-fetch deadline stops it
    (the error says which); a per-read timeout would let the body complete."""
    with pytest.raises(ToolError) as err:
        fetch(server + "/drip", UrlPolicy(allowed_networks=LOOPBACK, deadline_s=0.3))
    assert err.value.kind is ToolErrorKind.TIMEOUT


def test_body_cap(server: str) -> None:
    result = fetch(server + "/big", UrlPolicy(allowed_networks=LOOPBACK, max_bytes=1000))
    assert (len(result.body), result.truncated) == (1000, True)


def test_redirect_limit(server: str) -> None:
    url = f"{server}/redirect?to=/redirect%3Fto%3D/"
    with pytest.raises(ToolError, match="redirects"):
        fetch(url, UrlPolicy(allowed_networks=LOOPBACK, max_redirects=1))
    assert fetch(url, UrlPolicy(allowed_networks=LOOPBACK, max_redirects=2)).body == b"hello"


def test_connection_refused_is_an_execution_failure() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ToolError) as err:
        fetch(f"http://127.0.0.1:{port}/", UrlPolicy(allowed_networks=LOOPBACK))
    assert err.value.kind is ToolErrorKind.EXECUTION_FAILED


# --- TLS: the pinned connection still checks the certificate against the name -----------


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, str]]:
    """An https server on 127.0.0.1 with a self-signed certificate for ``pinned.example``."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", "/CN=pinned.example",
         "-addext", "subjectAltName=DNS:pinned.example", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1], str(cert)
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def to_loopback(host: str, port: int) -> Sequence[str]:
    return ["127.0.0.1"]


def test_https_is_pinned_with_sni_and_certificate_name(tls_server: tuple[int, str]) -> None:
    port, ca = tls_server
    policy = UrlPolicy(allowed_networks=LOOPBACK, resolver=to_loopback, ca_file=ca)
    result = fetch(f"https://pinned.example:{port}/host", policy)
    assert (result.status, result.body) == (200, f"pinned.example:{port}".encode())


@pytest.mark.parametrize("ca", ["trusted", "system"])
def test_https_certificate_for_another_name_fails(tls_server: tuple[int, str], ca: str) -> None:
    port, ca_file = tls_server
    policy = UrlPolicy(allowed_networks=LOOPBACK, resolver=to_loopback,
                       ca_file=ca_file if ca == "trusted" else None)
    host = "other.example" if ca == "trusted" else "pinned.example"
    with pytest.raises(ToolError, match="certificate") as err:
        fetch(f"https://{host}:{port}/", policy)
    assert err.value.kind is ToolErrorKind.EXECUTION_FAILED


def test_bad_network_fails_when_the_policy_is_built() -> None:
    with pytest.raises(ValueError, match="does not appear to be"):
        UrlPolicy(allowed_networks=("127.0.0.0/33",))
