"""The Docker Engine API read through its socket: ``curl --unix-socket /var/run/docker.sock
http://localhost/containers/json`` is ``docker ps``, ``…/version`` is ``docker version``.

The socket acts for root, so every request through it keeps the network's question, except a
GET of the API's listings of the engine's own state: ``/_ping``, ``/version``, ``/info``,
``/containers/json``, ``/images/json``, ``/networks``, ``/volumes``, ``/system/df`` (with an
optional ``/v1.NN`` version prefix and a plain query such as ``?all=1``). Not among them:
what reads a container's or an image's contents or settings (``/containers/ID/json`` holds
its environment, ``…/logs``, ``…/archive``, ``…/export``, ``/images/NAME/get``), the event
stream, and anything that attaches or runs (``…/attach``, ``…/exec``). The host of the URL is
not reached (the socket is); it must be ``localhost``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from clawgate.lazyre import lazy_pattern

SOCKETS = frozenset({"/var/run/docker.sock", "/run/docker.sock"})
_SOCKET_OPTION = "--unix-socket"
_LISTINGS = lazy_pattern(r"^(?:/v1\.\d{1,2})?/(?:_ping|version|info|containers/json|"
                         r"images/json|networks|volumes|system/df)/?$")
_PLAIN_QUERY = lazy_pattern(r"^(?:[a-z_]+=[A-Za-z0-9_.-]*(?:&[a-z_]+=[A-Za-z0-9_.-]*)*)?$")


def without_socket(args: list[str]) -> list[str] | None:
    """``args`` of curl without its one ``--unix-socket`` option naming Docker's socket;
    None when there is no such option (or more than one socket option)."""
    found = [i for i, a in enumerate(args) if a.partition("=")[0] == _SOCKET_OPTION]
    if len(found) != 1:
        return None
    at = found[0]
    word = args[at]
    if "=" in word:
        return args[:at] + args[at + 1:] if word.partition("=")[2] in SOCKETS else None
    if at + 1 < len(args) and args[at + 1] in SOCKETS:
        return args[:at] + args[at + 2:]
    return None


def listing(url: str) -> bool:
    """``url`` asks the Docker API, through its socket, for one of its listings."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    return (parts.scheme == "http" and parts.hostname == "localhost" and port is None
            and not parts.username and not parts.fragment
            and _LISTINGS.match(parts.path) is not None
            and _PLAIN_QUERY.match(parts.query) is not None)
