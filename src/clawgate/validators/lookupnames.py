"""Whether an address a lookup sends to is a public one, and whether the text it carries
(a URL's path and query, a DNS name's labels, a header's value) is free of the user's data:
no credential, nothing encoded.

"Encoded" is judged by shape, as exfiltration through names and paths has it: a long run of
hex digits or of base32/base64 characters mixing digits and letters, base64 padding, a long
run of percent escapes. Ordinary names (``api.github.com``, ``repos/python/cpython``,
``v1.2.3``) and a git object name in a URL path (a commit or tree, hex of 7 to 64 digits)
pass; a DNS label may not carry one (a query for ``<hex>.example.com`` is the classic
channel).
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.validators.netaddr import classify

_PRIVATE_SUFFIXES = (".internal", ".local", ".lan", ".corp", ".home", ".localdomain",
                     ".intranet", ".private", ".home.arpa", ".test", ".invalid", ".example",
                     ".onion", ".i2p")
_NAME = lazy_pattern(r"^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?\.)+"
                     r"[a-z][a-z0-9-]{0,61}\.?$")
_IPV4 = lazy_pattern(r"^\d{1,3}(?:\.\d{1,3}){3}$")
_ASN = lazy_pattern(r"^as\d{1,10}$")
_HEX_RUN = lazy_pattern(r"[0-9a-f]{16,}")
_BASE_RUN = lazy_pattern(r"[A-Za-z0-9+/_=-]{20,}")
_ESCAPES = lazy_pattern(r"(?:%[0-9A-Fa-f]{2}){6,}")
_GIT_OBJECT = lazy_pattern(r"^[0-9a-f]{7,64}$")
_GIT_LENGTHS = frozenset({*range(7, 13), 40, 64})  # short and full SHA-1 and SHA-256 names
_PLAIN = lazy_pattern(r"^[\w .,:;/*+=?!@~()<>{}\[\]%&'\"#^|\\-]*$")
# Paths of cloud metadata services: a public name may resolve to one (DNS rebinding), and
# Amazon's first version answers a plain GET with the machine's credentials.
_METADATA_PATHS = ("/latest/meta-data", "/latest/user-data", "/latest/api/token",
                   "/computemetadata", "/metadata/instance", "/metadata/identity",
                   "/opc/v1", "/opc/v2", "/openstack", "/metadata/v1")
_CREDENTIAL_KEYS = ("token", "secret", "password", "passwd", "pwd", "auth", "session", "key",
                    "sig", "signature", "credential", "cookie", "jwt", "bearer", "otp")


def public_name(text: str) -> bool:
    """A DNS name under a public suffix, a public IP address, or an AS number (whois)."""
    host = text.lower().rstrip(".")
    if _ASN.match(host):
        return True
    if ":" in host or _IPV4.match(host):
        return _public_address(host)
    if not _NAME.match(host) or host.endswith(_PRIVATE_SUFFIXES):
        return False
    return classify(host) is None and not any(_encoded_label(label)
                                              for label in host.split("."))


def _public_address(host: str) -> bool:
    import ipaddress

    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return classify(host) is None and ip.is_global


def _encoded_label(label: str) -> bool:
    letters = sum(c.isalpha() for c in label)
    digits = sum(c.isdigit() for c in label)
    return len(label) > 40 or (len(label) >= 16 and digits >= 3 and letters >= 3) or (
        len(label) >= 16 and _HEX_RUN.search(label) is not None)


def public_url(text: str) -> bool:
    """An http(s) URL (a bare ``host/path`` is http) to a public name, with no user or
    password, no credential-named query key, no cloud metadata path, and a path and query
    that carry nothing encoded or credential-shaped; no curl glob (``{a,b}``, ``[1-9]``)."""
    from urllib.parse import parse_qsl, urlsplit

    if "://" not in text:
        text = "http://" + text
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return False
    if parts.scheme.lower() not in {"http", "https"} or parts.username or parts.password:
        return False
    if not parts.hostname or port == 0 or not (
            public_name(parts.hostname) or loopback_probe(parts.hostname, port, parts.path,
                                                          parts.query)):
        return False
    if any(c in text for c in "{}[]\\ ") and not parts.netloc.startswith("["):
        return False
    if parts.path.lower().startswith(_METADATA_PATHS):
        return False
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(_credential_key(key) for key, _ in query):
        return False
    raw = parts.query.replace("=", "&").split("&")  # as sent: escapes not yet decoded
    pieces = [*parts.path.split("/"), *raw, *(v for _, v in query), parts.fragment]
    return all(_plain_piece(p) for p in pieces) and not _secret_in(text)


# A local service's probe endpoints: what a developer asks a server they started on this
# machine (is it up, which version, its metrics), not its data or its admin API
_PROBE_PATH = lazy_pattern(r"^/(?:api/)?(?:_?health(?:z|check)?(?:/(?:live|ready|liveness|"
                           r"readiness))?|readyz?|livez?|ping|status|metrics|version)/?$")
# Ports whose services act for whoever reaches them even on a GET of those paths: the Docker
# and Kubernetes APIs, the kubelet, etcd, kubectl proxy
_ADMIN_PORTS = frozenset({2375, 2376, 2379, 2380, 6443, 8001, 10250, 10255})


def loopback_probe(host: str, port: int | None, path: str, query: str) -> bool:
    """``http://localhost:3000/health``: a probe path, no query, on a loopback address and a
    port that is no admin API's."""
    return (classify(host.strip("[]")) == "loopback" and port not in _ADMIN_PORTS
            and not query and _PROBE_PATH.match(path) is not None)


def _credential_key(key: str) -> bool:
    lowered = key.lower()
    return any(word in lowered for word in _CREDENTIAL_KEYS)


def _plain_piece(piece: str) -> bool:
    if _ESCAPES.search(piece):
        return False
    if _GIT_OBJECT.match(piece) and len(piece) in _GIT_LENGTHS:
        return True  # a commit or tree in a URL path names a version
    if _HEX_RUN.search(piece.lower()):
        return False
    for run in _BASE_RUN.findall(piece):
        upper = any(c.isupper() for c in run)
        lower = any(c.islower() for c in run)
        digits = sum(c.isdigit() for c in run)
        if run.endswith("=") or (upper and lower and digits) or (upper and digits >= 3
                                                                 and not lower):
            return False
    return True


def plain_text(text: str) -> bool:
    """Printable text with nothing encoded or credential-shaped in it."""
    return bool(_PLAIN.match(text)) and _plain_piece(text) and not _secret_in(text)


def _secret_in(text: str) -> bool:
    from clawgate.tools.scrub import Scrubber

    return bool(Scrubber().findings(text))
