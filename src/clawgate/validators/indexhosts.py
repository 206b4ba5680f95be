"""A package index judged by where it is: the ecosystems' own public indexes are what an
install reaches with no option at all; an index spoken to over plain HTTP at a public address
lets anyone on the path (or whoever holds the address) hand over the code the install runs.

``index_kind(url)`` says which: ``"default"`` (``https://pypi.org/simple``,
``https://registry.npmjs.org/``), ``"plain"`` (``http://`` to a host that is not loopback or a
private network, or to a bare public address), or ``"custom"`` (any other: a company mirror,
a vendor's wheel index, one known only at run time), which is asked about.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from clawgate.validators.netaddr import classify

# The public indexes an install uses when nothing is configured, over HTTPS.
DEFAULT_INDEX_HOSTS = frozenset({
    "pypi.org", "pypi.python.org", "files.pythonhosted.org",
    "registry.npmjs.org", "registry.npmjs.com", "registry.yarnpkg.com",
    "rubygems.org", "index.crates.io", "proxy.golang.org",
})
# Address ranges of the machine or a network of one's own (``netaddr.classify``'s names).
_OWN_NETWORK = frozenset({"loopback", "private", "CGNAT", "link-local", "unique-local",
                          "site-local", "this-network", "metadata"})
# Names that only resolve inside a network of one's own.
_PRIVATE_SUFFIXES = (".internal", ".local", ".lan", ".corp", ".home", ".intranet",
                     ".localdomain", ".svc", ".cluster.local")


def index_kind(url: str | None) -> str:
    """``"default"``, ``"plain"`` or ``"custom"`` for an index URL (None: known at run time)."""
    if url is None:
        return "custom"
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower().rstrip(".")
    except ValueError:
        return "custom"
    if not host:
        return "custom"  # a folder, a bare word: the caller's to judge
    if parts.scheme == "https" and host in DEFAULT_INDEX_HOSTS:
        return "default"
    if parts.scheme != "http":
        return "custom"
    if classify(host) in _OWN_NETWORK or "." not in host or host.endswith(_PRIVATE_SUFFIXES):
        return "custom"  # loopback, a private range, a name of one's own network
    return "plain"
