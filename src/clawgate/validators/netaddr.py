"""Network clients pointed at this machine's or the local network's services, or at a cloud
metadata endpoint: the same address ranges ``web_fetch`` refuses (``tools/urls.py``)."""

from __future__ import annotations

from clawgate import programs as catalog
from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register

TYPE_CHECKING = False  # no runtime ``typing`` import (CLI start-up)
if TYPE_CHECKING:
    import ipaddress

_HOST = lazy_pattern(r"^(?:[a-z][\w+.-]*://)?(?:[^@/\s]*@)?(?P<host>\[[0-9a-fA-F:.]+\]|"
                     r"[\w.-]+)(?::\d+)?(?:[/?#]|$)")
# The catalog's network-tier programs, for dispatch (tests/programs holds the two equal).
NETWORK_CLIENTS = frozenset("""
aria2c autossh curl dig ftp host http httpie https lftp masscan mosh mtr mutt nc ncat netcat
nmap nslookup onionshare-cli ping ping6 rlogin rsync scp sendmail sftp smbclient socat socket ssh
ssh-keyscan sshfs telnet tftp tracepath traceroute wget whois xh
ab cancel finger GET HEAD hping hping3 lp lpr lwp-download lwp-mirror lwp-request POST ssh-copy-id
""".split())
_INET_ATON = lazy_pattern(r"^(?:0[xX][0-9a-fA-F]{1,8}|[0-9]{1,12})(?:\.(?:0[xX][0-9a-fA-F]{1,8}|"
                          r"[0-9]{1,12})){0,3}$")
_LOCAL_NAMES = frozenset({"localhost", "ip6-localhost", "ip6-loopback"})
_METADATA_NAMES = frozenset({"metadata.google.internal", "metadata", "instance-data",
                             "metadata.azure.internal"})


# Wildcard DNS services: a name resolves to the address written in it
# (``169.254.169.254.nip.io``, ``10-0-0-1.sslip.io``, ``app.127.0.0.1.nip.io``) or, for the
# second group, always to the loopback.
_EMBEDDING = lazy_pattern(r"(?:^|[.-])((?:\d{1,3}[.-]){3}\d{1,3}|[0-9a-f]{8})\."
                          r"(?:nip\.io|sslip\.io|xip\.io|nip\.direct|traefik\.me|"
                          r"backname\.io|localtls\.com)$")
_LOOPBACK_DOMAINS = ("localtest.me", "lvh.me", "vcap.me", "lacolhost.com", "fbi.com",
                     "readme.localtest.me")


def classify(host: str) -> str | None:
    """'metadata', a range name ('loopback', 'private', ...), or None for a public host."""
    host = host.strip("[]").lower().rstrip(".")
    embedded = _EMBEDDING.search(host)
    if embedded is not None:
        written = embedded.group(1)
        host = (written.replace("-", ".") if len(written) != 8 else
                ".".join(str(int(written[i:i + 2], 16)) for i in range(0, 8, 2)))
    elif any(host == d or host.endswith("." + d) for d in _LOOPBACK_DOMAINS):
        return "loopback"
    if host in _METADATA_NAMES:
        return "metadata"
    if host in _LOCAL_NAMES or host.endswith(".localhost"):
        return "loopback"
    if not host[:1].isdigit() and ":" not in host:
        return None  # a name: where it resolves is only known at run time
    import ipaddress

    # web_fetch's ranges; imported only for a literal address (the module is heavy)
    from clawgate.tools.urls import BLOCKED_NETWORKS, METADATA_ADDRESSES

    ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        # 127.1, 0x7f000001; a bare number is one only in a URL (else it is a port)
        ip = _inet_aton(host) if "." in host or host[:2].lower() == "0x" else None
        if ip is None:
            return None
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    if ip in METADATA_ADDRESSES or mapped in METADATA_ADDRESSES:
        return "metadata"
    return next((why for net, why in BLOCKED_NETWORKS
                 if ip.version == net.version and ip in net), None)


def _inet_aton(host: str) -> ipaddress.IPv4Address | None:
    """The address curl, wget and Python's sockets connect to for the other IPv4 spellings
    (``127.1``, ``0x7f000001``, ``2130706433``, ``0251.0376.0251.0376``, ``0``), as the C
    library's inet_aton reads them."""
    import ipaddress
    import socket

    if len(host) > 40 or not _INET_ATON.match(host):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


_SOCKET_ADDRESS = lazy_pattern(r"(?i)^(?:tcp[46]?|udp[46]?|tcp-connect|openssl|ssl|"
                               r"openssl-connect|sctp|dccp)(?:-connect)?:(\[[0-9a-f:.]+\]|"
                               r"[^:,\s]+):")


def _targets(cmd: SimpleCommand) -> list[str]:
    hosts = []
    for word in cmd.words[1:]:
        text = word.value if word.value is not None else _literal_head(word.text)
        if text is None or text.startswith("-"):
            continue
        address = _SOCKET_ADDRESS.match(text)  # socat's TCP:host:port and the like
        if address is not None:
            hosts.append(address.group(1))
            continue
        found = _HOST.match(text)
        if found is not None and ("://" in text or found.group("host")[:1].isdigit()
                                  or found.group("host").startswith("[")
                                  or found.group("host").lower() in _LOCAL_NAMES
                                  | _METADATA_NAMES):
            host = found.group("host")
            dotted = _inet_aton(host) if "://" in text and host.isdigit() else None
            hosts.append(host if dotted is None else str(dotted))  # http://2130706433/
    return hosts


_EXPANSION = lazy_pattern(r"[$`]")


def _literal_head(text: str) -> str | None:
    """The part of a URL before its first expansion, when that part names the host whole
    (``http://169.254.170.2$AWS_CONTAINER_CREDENTIALS_RELATIVE_URI``: the path comes from the
    variable, the address does not); None when there is no scheme to tell a URL by."""
    head = _EXPANSION.split(text.replace('"', "").replace("'", ""), 1)[0]
    return head if "://" in head and len(head) < len(text) else None


@register
class LocalAddress(Validator):
    """A network client (curl, wget, httpie, nc, ssh ...) sent to a cloud metadata endpoint
    (DENY: it hands out the machine's credentials) or to a loopback, private, link-local or
    otherwise internal address (high: a request there can act on a local service, the docker
    API, a database, an admin port). Probing (``ping``, ``nc -z``) is left to the tiers.

    Bad: ``curl http://169.254.169.254/latest/meta-data/iam/``. Harmless:
    ``curl -fsSL https://example.com/install.txt``.
    """

    id = "CG-NET-002"
    programs = NETWORK_CLIENTS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        spec = catalog.entry(cmd.program)
        if spec is None or spec["tier"] != "network" or len(cmd.words) < 2:
            return NO_OPINION
        for host in _targets(cmd):
            kind = classify(host)
            if kind == "metadata":
                return Verdict.deny(self.id, f"{cmd.program} reaches the cloud metadata "
                                    f"endpoint {host}", hint="credentials come from there")
            if kind == "loopback" and _probe(cmd):
                continue  # curl http://localhost:3000/health: a read-only lookup (CG-NET-003)
            if kind is not None and not spec.get("loopback"):
                return Verdict.of(Outcome.ASK, self.id, f"{cmd.program} reaches {host}, a "
                                  f"{kind} address", hint="local services act on requests",
                                  risk=Risk.HIGH)
        return NO_OPINION


def _probe(cmd: SimpleCommand) -> bool:
    """``cmd`` is a read-only lookup of a local service's probe endpoint."""
    from clawgate.validators.lookups import is_lookup

    return is_lookup(cmd)
