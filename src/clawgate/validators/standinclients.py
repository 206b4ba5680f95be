"""The grammar of the network clients that stand in for a program the environment names:
which words each takes for a host, and which options it has.

Read by ``standinwords.py``. Each client reads its whole command line before it connects,
and stops with a usage error at an option it does not have (curl: "option --x: is unknown",
wget and rsync: "unrecognized option", ssh and scp have no long options at all). So what
matters of an option is whether the client has it and what it does: the short options listed
as switches, or as taking a value that names nothing that connects nor carries the user's
data (a port, a login name, a count, the output file, which the reading judges as a write),
are read; any other short option keeps the ask. A long option keeps the ask when it is, or
abbreviates (curl, wget and rsync take any unambiguous prefix), one that names a host, a
proxy, a socket or a configuration, sends data or credentials, runs a command, or writes a
file; any other long one is a switch the reading may pass, or one the client stops at.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)

if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from clawgate.records import NamedTuple


class Client(NamedTuple):
    flags: frozenset[str]  # short switches
    valued: frozenset[str]  # short options whose value names nothing that connects
    long_valued: frozenset[str]  # long ones likewise (their value is the next word)
    reaching: frozenset[str]  # long options that reach, send, run or write (no dashes)
    hosts: str  # "first" (ssh: the rest is the remote command), "all", "colon" (host:path)
    long_options: bool  # it has long options (else a "--x" word stops it)


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CURL_REACHING = _names("""
url url-query proxy preproxy proxy1.0 socks4 socks4a socks5 socks5-hostname
socks5-gssapi-service connect-to resolve doh-url dns-servers dns-interface dns-ipv4-addr
dns-ipv6-addr interface unix-socket abstract-unix-socket haproxy-clientip ipfs-gateway config
data data-ascii data-binary data-raw data-urlencode json form form-string upload-file header
cookie cookie-jar user oauth2-bearer aws-sigv4 netrc netrc-file netrc-optional cert key cacert
capath crlfile pinnedpubkey tlsuser tlspassword variable expand-url expand-data write-out next
request-target mail-from mail-rcpt mail-auth engine output-dir trace trace-ascii
trace-config stderr libcurl dump-header etag-save etag-compare hsts alt-svc ssl-sessions
ftp-port krb delegation sasl-authzid login-options service-name quote telnet-option
""")
_WGET_REACHING = _names("""
execute input-file input-metalink base config load-cookies save-cookies post-data post-file
body-data body-file method header user password http-user http-password ftp-user
ftp-password proxy-user proxy-password ask-password use-askpass certificate private-key
ca-certificate ca-directory crl-file pinnedpubkey bind-address bind-dns-address dns-servers
directory-prefix output-file append-output output-document warc-file warc-dedup rejected-log
metalink-over-http referer hsts-file egd-file random-file
""")
_RSYNC_REACHING = _names("""
rsh rsync-path remote-option files-from exclude-from include-from filter password-file log-file
write-batch only-write-batch read-batch backup-dir partial-dir temp-dir compare-dest copy-dest
link-dest address port sockopts config daemon dparam early-input copy-as usermap groupmap chown
""")
_NCAT_REACHING = _names("""
exec sh-exec lua-exec proxy proxy-auth proxy-type proxy-dns source output hex-dump
append-output ssl-cert ssl-key ssl-trustfile ssl-ciphers ssl-servername ssl-alpn broker chat
listen keep-open send-only recv-only unixsock vsock
""")

CLIENTS: dict[str, Client] = {
    # not -A (the agent forwarded: the user's keys usable there) nor -X, -Y (the display)
    "ssh": Client(frozenset("46aCfGgKkMNnqsTtVvxy"), frozenset("lp"), frozenset(),
                  frozenset(), "first", long_options=False),
    "scp": Client(frozenset("346ABCpqrTv"), frozenset("Pl"), frozenset(), frozenset(),
                  "colon", long_options=False),
    "curl": Client(frozenset("fsSLIiOJgGNnqv#"), frozenset("omrXYyz"),
                   frozenset({"--retry", "--max-time", "--connect-timeout"}), _CURL_REACHING,
                   "all", long_options=True),
    "wget": Client(frozenset("qcNrSv"), frozenset("Ot"), frozenset({"--tries", "--timeout"}),
                   _WGET_REACHING, "all", long_options=True),
    "rsync": Client(frozenset("avzrlptgoDHAXnucPhq"), frozenset(), frozenset(),
                    _RSYNC_REACHING, "colon", long_options=True),
    # netcat: OpenBSD's has no long options, ncat's are these
    "nc": Client(frozenset("46dDhklnNuUvz"), frozenset("pqw"), frozenset(), _NCAT_REACHING,
                 "all", long_options=True),
}


def reaching(client: Client, name: str) -> bool:
    """``--name`` is, or abbreviates, an option of ``client`` that reaches, sends, runs or
    writes."""
    return any(option.startswith(name) for option in client.reaching)
