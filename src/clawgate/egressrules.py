"""Which connections a sandboxed command may make: a host name and a port against the policy's
``executor.network`` lists. Pure data, no sockets: ``executors/egress/proxy.py`` asks, and
connects. A leaf module, as ``protectedpaths`` is: the policy models check their entries with
it and the proxy decides with it.

A listed name covers itself and its subdomains at a label boundary (``pypi.org`` covers
``files.pypi.org``, never ``evilpypi.org`` or ``pypi.org.evil.test``); ``*`` covers every
name. An IP address is judged as the text it is written in: it is allowed only when that text
is listed itself, and a private, loopback, link-local or otherwise special one never by
``*``. The host's loopback (``localhost``, ``127.0.0.0/8``, ``::1``) is reachable only on the
ports ``allow_loopback_ports`` names. ``denied_domains`` wins over everything else.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass

ALLOWED_KEY = "executor.network.allowed_domains"
DENIED_KEY = "executor.network.denied_domains"
LOOPBACK_KEY = "executor.network.allow_loopback_ports"
ANY = "*"

# The package registries, GitHub and the toolchains' download hosts: what installing and
# fetching dependencies needs, and nothing else.
DEFAULT_ALLOWED_DOMAINS: tuple[str, ...] = (
    # Python
    "pypi.org", "files.pythonhosted.org", "pypi.python.org", "bootstrap.pypa.io",
    "www.python.org",
    # JavaScript
    "registry.npmjs.org", "registry.yarnpkg.com", "repo.yarnpkg.com", "nodejs.org",
    # Rust
    "crates.io", "static.crates.io", "index.crates.io", "static.rust-lang.org", "sh.rustup.rs",
    # Go
    "proxy.golang.org", "sum.golang.org", "go.dev", "dl.google.com",
    # Ruby
    "rubygems.org", "index.rubygems.org",
    # GitHub
    "github.com", "api.github.com", "codeload.github.com", "objects.githubusercontent.com",
    "raw.githubusercontent.com", "release-assets.githubusercontent.com",
)

_LABEL = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)")
LOOPBACK_NAMES = ("localhost",)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One connection's decision: allowed or not, the policy key that decided, and why."""

    allowed: bool
    key: str
    why: str
    loopback: bool = False  # the host's own loopback: connect to 127.0.0.1 (or ::1)


def normal_host(host: str) -> str | None:
    """``host`` lowercased, without a trailing dot or IPv6 brackets, IDNA-encoded; None when
    it is neither a host name nor an IP address."""
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    text = text.rstrip(".").lower()
    if not text or len(text) > 253:
        return None
    if _ip(text) is not None:
        return text
    try:
        text = text.encode("idna").decode("ascii") if not text.isascii() else text
    except UnicodeError:
        return None
    return text if all(_LABEL.fullmatch(label) for label in text.split(".")) else None


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address ``text`` writes (an IPv4-mapped IPv6 one as its IPv4), or None."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped if mapped is not None else address


def is_special(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Loopback, private, link-local (cloud metadata), multicast, unspecified or reserved."""
    return (address.is_loopback or address.is_private or address.is_link_local
            or address.is_multicast or address.is_unspecified or address.is_reserved)


def covers(domain: str, host: str) -> bool:
    """Whether the listed ``domain`` covers ``host`` (itself or a subdomain)."""
    return host == domain or host.endswith("." + domain)


@dataclass(frozen=True, slots=True)
class EgressRules:
    """The lists of ``executor.network``; ``decide`` judges one connection."""

    allowed_domains: tuple[str, ...] = DEFAULT_ALLOWED_DOMAINS
    denied_domains: tuple[str, ...] = ()
    allow_loopback_ports: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        for name in ("allowed_domains", "denied_domains"):
            entries = tuple(check_entry(e) for e in getattr(self, name))
            object.__setattr__(self, name, entries)
        for port in self.allow_loopback_ports:
            if not 0 < port < 65536:
                raise ValueError(f"allow_loopback_ports: {port} is not a port")

    @classmethod
    def from_mapping(cls, values: dict[str, object] | None) -> EgressRules:
        """From an ``executor.network`` section (a missing key keeps its default)."""
        values = dict(values or {})
        unknown = sorted(set(values) - {"allowed_domains", "denied_domains",
                                         "allow_loopback_ports"})
        if unknown:
            raise ValueError(f"unknown executor.network keys: {', '.join(unknown)}")
        return cls(**{k: tuple(v) for k, v in values.items()  # type: ignore[arg-type]
                      if v is not None})

    def decide(self, host: str, port: int) -> Verdict:
        """Whether a sandboxed command may connect to ``host:port``."""
        name = normal_host(host)
        if name is None or not 0 < port < 65536:
            return Verdict(False, ALLOWED_KEY, f"{host!r} port {port} is not a host and port")
        if any(covers(d, name) for d in self.denied_domains if d != ANY) \
                or ANY in self.denied_domains:
            return Verdict(False, DENIED_KEY, f"{name} is listed in {DENIED_KEY}")
        address = _ip(name)
        if name in LOOPBACK_NAMES or name.endswith(".localhost") \
                or (address is not None and address.is_loopback):
            return self._loopback(name, port)
        if address is not None:
            if name in self.allowed_domains:
                return Verdict(True, ALLOWED_KEY, f"{name} is listed in {ALLOWED_KEY}")
            kind = "a private or special address" if is_special(address) else "an IP address"
            return Verdict(False, ALLOWED_KEY, f"{name} is {kind} not listed in {ALLOWED_KEY}")
        if ANY in self.allowed_domains or any(covers(d, name) for d in self.allowed_domains):
            return Verdict(True, ALLOWED_KEY, f"{name} is covered by {ALLOWED_KEY}")
        return Verdict(False, ALLOWED_KEY, f"{name} is not covered by {ALLOWED_KEY}")

    def _loopback(self, name: str, port: int) -> Verdict:
        if port in self.allow_loopback_ports:
            return Verdict(True, LOOPBACK_KEY, f"port {port} of the host's loopback is listed "
                           f"in {LOOPBACK_KEY}", loopback=True)
        return Verdict(False, LOOPBACK_KEY, f"{name} is the host's loopback; port {port} is "
                       f"not listed in {LOOPBACK_KEY}", loopback=True)

    def address_allowed(self, address: str, port: int) -> Verdict | None:
        """None when a name's resolved ``address`` may be reached, else why not: a name that
        resolves to the host's loopback is held to ``allow_loopback_ports``, and one that
        resolves to a link-local address (cloud metadata) or a multicast, unspecified or
        reserved one is refused whatever the lists say."""
        ip = _ip(address.split("%", maxsplit=1)[0])
        if ip is None:
            return Verdict(False, ALLOWED_KEY, f"{address!r} is not an address")
        if ip.is_loopback:
            verdict = self._loopback(address, port)
            return None if verdict.allowed else verdict
        if ip.is_link_local or ip.is_multicast or ip.is_unspecified or ip.is_reserved:
            return Verdict(False, ALLOWED_KEY, f"the name resolves to {address}, a link-local "
                           "or special address no sandboxed command may reach")
        return None


def check_entry(entry: str) -> str:
    """A list entry as it is matched: a host name, an IP address, or ``*``. Raises ValueError
    for a URL, a port, a path or a pattern."""
    if entry == ANY:
        return entry
    if entry.startswith("*."):
        raise ValueError(f"{entry!r}: write {entry[2:]!r} (a name covers its subdomains)")
    name = normal_host(entry)
    if name is None or "/" in entry or (":" in entry and _ip(entry.strip("[]")) is None):
        raise ValueError(f"{entry!r} is not a host name or an IP address (no scheme, port "
                         "or path)")
    return name


def entries(values: Iterable[str]) -> tuple[str, ...]:
    """Every entry checked (``check_entry``)."""
    return tuple(check_entry(v) for v in values)
