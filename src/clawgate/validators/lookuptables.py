"""What each network client may be given in a read-only lookup: its options that send nothing
of the user's, the shape of their values, and what its operands are.

An option not listed here is not a lookup's (``-d``, ``-F``, ``-T``, ``-u``, ``-b``, ``-K``,
``-x``, ``-E``, ``--resolve``, ``dig -f``/``-k``/``-y``, ``ping -p``, ``wget -i``/``-e`` ...):
whatever it does, the command keeps its network tier. The tables are deliberately short; a
lookup that uses anything else is asked about, as every network command was before.
"""

from __future__ import annotations

from clawgate.records import record

# What an option's value (or an operand) must be. ``number``: digits; ``method``: a method
# that sends no body; ``header``: a header from ``HEADERS`` with a plain value; ``printed``:
# standard output or the null device (the answer is printed or dropped, never kept);
# ``format``: a ``curl -w`` format that reads and writes nothing; ``token``: a short plain
# word (a record type, a user agent, an address family); ``server``: a public name or address.
# ``hostport``: a public name or address and a port (``openssl s_client -connect``).
NUMBER, METHOD, HEADER, PRINTED, FORMAT, TOKEN, SERVER, HOSTPORT = (
    "number", "method", "header", "printed", "format", "token", "server", "hostport")
# What the operands are. ``url``: addresses to fetch; ``dns``: names, record types and
# classes, ``@server``; ``host``: one host and then numbers (a packet size); ``httpie``: an
# optional method, then one URL and no request items; ``none``: no operand at all.
URL, DNS, HOST, HTTPIE, NONE = "url", "dns", "host", "httpie", "none"

METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Headers that describe what answer is wanted; none carries a credential or a cookie.
HEADERS = frozenset({"accept", "accept-encoding", "accept-language", "cache-control", "pragma",
                     "user-agent", "if-none-match", "if-modified-since", "range",
                     "x-github-api-version"})
# Where an answer may go on the client's own command: printed or dropped.
PRINTED_TARGETS = frozenset({"-", "/dev/null", "/dev/stdout", "/dev/stderr"})


@record(frozen=True, slots=True)
class Client:
    """A network client's lookup form. ``flags``: options that take no value (short ones
    may be clustered, ``-fsSL``); ``valued``: options taking a value, and its kind;
    ``required``: one of these options must be given (``wget`` saves to a file without
    ``-O -``); ``plus``: dig's ``+keyword`` options that send nothing (their ``no`` forms
    too); ``assigned``: options written ``-name=value`` (nslookup); ``subcommand``: the
    first word it must have (``openssl s_client``); ``closed_input``: what it reads from
    its input is sent, so its input must be ``< /dev/null``."""

    operands: str
    flags: frozenset[str] = frozenset()
    valued: tuple[tuple[str, str], ...] = ()
    required: frozenset[str] = frozenset()
    plus: frozenset[str] = frozenset()
    assigned: tuple[tuple[str, str], ...] = ()
    subcommand: str | None = None
    closed_input: bool = False

    def kind_of(self, option: str) -> str | None:
        return next((kind for name, kind in self.valued if name == option), None)


def _flags(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _valued(**kinds: str) -> tuple[tuple[str, str], ...]:
    """``_valued(number="-m --max-time")``: each option of each kind."""
    return tuple((name, kind) for kind, names in kinds.items() for name in names.split())


_CURL = Client(
    URL,
    flags=_flags("-s -S -f -L -I -i -k -v -g -N -q -4 -6 --silent --show-error --fail "
                 "--fail-with-body --location --head --include --insecure --verbose --globoff "
                 "--no-buffer --compressed --http1.1 --http2 --ipv4 --ipv6 --no-progress-meter "
                 "--progress-bar -# --retry-connrefused --retry-all-errors"),
    valued=_valued(number="-m --max-time --connect-timeout --retry --retry-delay "
                          "--retry-max-time --max-redirs --max-filesize",
                   method="-X --request", header="-H --header", printed="-o --output -D "
                   "--dump-header", format="-w --write-out", token="-A --user-agent -r --range",
                   url="--url"),
)
_WGET = Client(
    URL,
    flags=_flags("-q -S -nv -4 -6 --quiet --server-response --no-verbose --spider "
                 "--no-check-certificate --inet4-only --inet6-only --no-cookies"),
    valued=_valued(printed="-O --output-document", number="-T --timeout -t --tries "
                   "--max-redirect --wait", header="--header", token="-U --user-agent"),
    required=frozenset({"-O", "--output-document", "--spider"}),
)
_HTTPIE = Client(
    HTTPIE,
    flags=_flags("-h -b -v -F -I -4 -6 --headers --body --verbose --follow --ignore-stdin "
                 "--check-status --all --quiet -q"),
    valued=_valued(token="-p --print --pretty --style -s", number="--timeout --max-redirects"),
)
_DIG = Client(
    DNS,
    flags=_flags("-4 -6 -r -u"),
    valued=_valued(token="-t -c", server="-x -q", number="-p"),
    plus=_flags("short answer noall all authority additional question comments stats cmd "
                "trace multiline dnssec tcp vc recurse ttlid ttlunits identify search "
                "nssearch class qr rrcomments onesoa besteffort split time tries retry ndots "
                "bufsize edns"),
)
_NSLOOKUP = Client(
    DNS,
    assigned=_valued(token="-type -query -q -querytype -class", number="-timeout -retry "
                     "-port"),
    flags=_flags("-debug -nodebug -d2 -vc -novc -recurse -norecurse -search -nosearch"),
)
_HOST = Client(
    DNS,
    flags=_flags("-a -A -v -d -4 -6 -r -s -C -T -U -l -w"),
    valued=_valued(token="-t -c", number="-W -R -N"),
)
_WHOIS = Client(
    DNS,
    flags=_flags("-H -I --verbose"),
    valued=_valued(server="-h --host", number="-p --port"),
)
_PING = Client(
    HOST,
    flags=_flags("-q -n -4 -6 -D -O -a -A"),
    valued=_valued(number="-c -i -W -w -s -t"),
)
_TRACEROUTE = Client(
    HOST,
    flags=_flags("-n -I -T -U -4 -6 -e -A"),
    valued=_valued(number="-m -q -w -f -p -N -z"),
)
_TRACEPATH = Client(HOST, flags=_flags("-n -b -4 -6"), valued=_valued(number="-l -m -p"))
_MTR = Client(
    HOST,
    flags=_flags("-r -w -n -b -j -4 -6 -T -u --report --report-wide --no-dns --show-ips "
                 "--json --tcp --udp"),
    valued=_valued(number="-c --report-cycles -P --port -i --interval"),
)
# A TLS handshake to read a server's certificate chain (``| openssl x509 -noout -dates``).
_S_CLIENT = Client(
    NONE,
    flags=_flags("-showcerts -brief -tls1_2 -tls1_3 -status -verify_return_error -crlf "
                 "-no_ign_eof -4 -6 -quiet -prexit"),
    valued=_valued(hostport="-connect", server="-servername", token="-alpn -verify"),
    required=frozenset({"-connect"}),
    subcommand="s_client",
    closed_input=True,
)

CLIENTS: dict[str, Client] = {
    "curl": _CURL, "wget": _WGET, "http": _HTTPIE, "https": _HTTPIE, "xh": _HTTPIE,
    "dig": _DIG, "nslookup": _NSLOOKUP, "host": _HOST, "whois": _WHOIS,
    "ping": _PING, "ping6": _PING, "traceroute": _TRACEROUTE, "tracepath": _TRACEPATH,
    "mtr": _MTR, "openssl": _S_CLIENT,
}

# Programs an answer may be piped into: they print text, run nothing they read and, written
# without a redirection or an output option (the line's check), keep nothing. (``openssl``:
# ``x509 -noout -dates`` parses a certificate; its options that load code are its own
# command's concern.)
INERT_READERS = frozenset("""
jq gojq jaq head tail grep egrep fgrep rg wc sort uniq cut tr column less more cat nl fold fmt
tac rev expand sha256sum sha1sum sha512sum md5sum shasum b2sum od hexdump strings openssl
""".split())
# Text tools an answer may be piped into when their script only reads: sed and awk print what
# they are given unless the script writes a file or runs a command (``w``, ``e``,
# ``system()``, ``print >``), which ``lookupline.LookupLine`` reads in the script itself.
TEXT_FILTERS = frozenset({"sed", "gsed", "awk", "gawk", "mawk", "nawk"})
