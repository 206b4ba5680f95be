"""Read-only network lookups judged by what leaves the machine and where the answer goes.

A lookup is a network client (``curl``, ``wget``, httpie, ``dig``, ``nslookup``, ``host``,
``whois``, ``ping``, ``traceroute``, ``tracepath``, ``mtr``, ``openssl s_client`` with its
input closed) written so that nothing of the user's leaves and its answer is only shown:

- what leaves: a method that sends no body, only the options of ``lookuptables`` (no data,
  form, upload, cookie, credential, proxy or config-file option), headers that carry no
  credential, and addresses that are public names or addresses written out whole: no
  variable, substitution or other expansion (but the directory's name or the date in a
  URL's path, ``publicparts.py``), no user or password in the URL, no query key
  that names a credential, no credential-shaped or encoded text in a path, query or DNS name;
- where it is sent: a public name (not loopback, private, link-local or a cloud metadata
  address, ``netaddr.classify``, nor a single-label name or a private suffix such as
  ``.internal``, ``.local``, ``.lan``, ``.corp``, ``.home``);
- how it runs: written directly (no launcher in front: ``env``, ``nohup``, ``sudo``,
  ``xargs``, ``find -exec`` change its environment, where its output goes or which
  arguments it gets; nor read out of another command's text, ``bash -c '…'``, which the
  engine tells ``risk_of`` as ``nested``), no variable assignment before it
  (``http_proxy=``, ``CURL_HOME=``, ``SSLKEYLOGFILE=``), nothing piped or redirected into
  it, not inside a substitution or a function;
- where the answer goes: printed, dropped (``-o /dev/null``) or piped into readers that run
  nothing they read (``jq``, ``head``, ``grep`` ...). Saved to a file, a later command may run
  it; into a shell or interpreter, it runs now (other rules deny that).

Such a command is medium risk instead of the network's high (``risk.py``), which supervised
autonomy allows. Its verdicts, and what the rest of the line does to it (a reader that saves
the answer, the environment changed before it), are ``lookupline.py``'s.
"""

from __future__ import annotations

import shlex

from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators import dockerapi
from clawgate.validators.lookupauth import without_own_auth
from clawgate.validators.lookupnames import plain_text, public_name, public_url
from clawgate.validators.lookuptables import (
    CLIENTS,
    DNS,
    FORMAT,
    HEADER,
    HEADERS,
    HOST,
    HOSTPORT,
    HTTPIE,
    INERT_READERS,
    METHOD,
    METHODS,
    NONE,
    NUMBER,
    PRINTED,
    PRINTED_TARGETS,
    SERVER,
    TEXT_FILTERS,
    TOKEN,
    URL,
    Client,
)
from clawgate.validators.paths import QUIET_DEVICES
from clawgate.validators.publicparts import public_value

# constructs that leave its input and output alone; a command substitution hands its output
# to what holds it, which ``lookupline.LookupLine`` requires to be a variable assignment
_NESTING = frozenset({"if", "loop", "command_substitution"})
_QUESTIONS = frozenset({"-x", "-q"})  # dig's options that give the name
_DNS_TYPES = frozenset("""
A AAAA ANY CAA CNAME DNSKEY DS HINFO HTTPS MX NAPTR NS NSEC NSEC3 PTR SOA SPF SRV SSHFP SVCB
TLSA TXT IN CH HS AXFR
""".split())


def is_lookup(cmd: SimpleCommand) -> bool:
    """Whether ``cmd`` is a read-only lookup of a public name whose answer is only shown."""
    client = CLIENTS.get(cmd.program or "")
    if client is None or len(cmd.words) < 2 or not _stands_alone(cmd):
        return False
    words = without_own_auth(cmd.program, cmd.words[1:])  # a service's token sent to it
    if words is None:
        return False
    values = [public_value(w) for w in words]  # the directory's name, the date: public
    if any(not v for v in values):
        return False
    args = [v for v in values if v]
    docker = dockerapi.without_socket(args) if cmd.program == "curl" else None
    if docker is not None:  # the Docker API through its socket: only its listings
        args = docker
    if client.subcommand is not None:
        if args[0] != client.subcommand:
            return False
        args = args[1:]
    if client.closed_input and not any(r.op == "<" and r.target is not None
                                       and r.target.value == "/dev/null" for r in cmd.redirects):
        return False
    return _arguments(client, args, docker is not None)


def _stands_alone(cmd: SimpleCommand) -> bool:
    """Written directly, its input its own, its output shown."""
    if cmd.depth or cmd.assignments or cmd.background or cmd.upstream:
        return False
    if not set(cmd.nesting) <= _NESTING or "/" in cmd.words[0].shown:
        return False
    if any(p not in INERT_READERS and p not in TEXT_FILTERS
           for p in cmd.pipeline[cmd.stage + 1:]):
        return False  # an unknown stage (None) included
    return all(_quiet(r.op, r.target) for r in cmd.redirects)


# readers that take commands from their input or their terminal (openssl with no command
# reads commands, less and more take ``!``): not a plain printer of what they are fed
_INTERACTIVE = frozenset({"openssl", "less", "more"})


def _quiet(op: str, target: Word | None) -> bool:
    """``2>&1``, ``>&2``, ``2>/dev/null``, ``</dev/null``: nothing kept, nothing fed; or
    ``> >(jq -r .tag_name)``, the answer written into a reader as a pipe into it would."""
    if target is not None and op == ">" and into_reader(target.text):
        return True
    if target is None or target.value is None:
        return False
    if op in {">&", "<&"} or op.endswith("&"):
        return target.value in {"1", "2", "-"}
    return op in {">", ">>", "&>", "<"} and target.value in QUIET_DEVICES


def into_reader(text: str) -> bool:
    """``>(READER WORDS)``: a process substitution of one plain command of a program that
    only shows what it reads, runs nothing of it and takes no command from it (the inner
    command is judged where it stands): writing there is printing through the reader."""
    if not (text.startswith(">(") and text.endswith(")")):
        return False
    inner = text[2:-1]
    if any(c in inner for c in "$`;&|<>()\n\\{}"):
        return False  # one plain command, its words literal, its output its own
    try:
        argv = shlex.split(inner)
    except ValueError:
        return False
    return bool(argv) and argv[0] in INERT_READERS and argv[0] not in _INTERACTIVE


def _arguments(client: Client, args: list[str], docker: bool = False) -> bool:
    """Every option is the client's lookup form and the operands are public addresses (with
    ``docker``: the Docker API's listings, ``dockerapi.listing``)."""
    operands: list[str] = []
    given: set[str] = set()
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            operands.extend(args[i + 1:])
            break
        if word.startswith("+") and client.plus:
            if not _plus(client, word[1:]):
                return False
        elif word.startswith("-") and word != "-":
            used = _option(client, args, i, given)
            if used is None:
                return False
            i += used
            continue
        else:
            operands.append(word)
        i += 1
    if client.required and not given & client.required:
        return False
    if docker:
        return bool(operands) and all(dockerapi.listing(o) for o in operands)
    return _operands(client, operands, bool(given & _QUESTIONS))


def _option(client: Client, args: list[str], i: int, given: set[str]) -> int | None:
    """How many words the option at ``args[i]`` takes, or None when it is not a lookup's."""
    word = args[i]
    if client.assigned and "=" in word:
        name, _, value = word.partition("=")
        kind = next((k for n, k in client.assigned if n == name), None)
        return 1 if kind is not None and _value(kind, value) else None
    if word.startswith("--"):
        name, eq, value = word.partition("=")
        given.add(name)
        if name in client.flags and not eq:
            return 1
        kind = client.kind_of(name)
        if kind is None:
            return None
        if eq:
            return 1 if _value(kind, value) else None
        return 2 if i + 1 < len(args) and _value(kind, args[i + 1]) else None
    if word in client.flags:
        given.add(word)
        return 1
    if client.subcommand is not None:  # openssl: single-dash long options, never clustered
        kind = client.kind_of(word)
        given.add(word)
        ok = kind is not None and i + 1 < len(args) and _value(kind, args[i + 1])
        return 2 if ok else None
    return _cluster(client, args, i, given)


def _cluster(client: Client, args: list[str], i: int, given: set[str]) -> int | None:
    """``-fsSL``, ``-qO-``, ``-c3``, ``-m 5``: flags, then at most one valued option whose
    value is the rest of the word or the next word."""
    letters = args[i][1:]
    for at, letter in enumerate(letters):
        option = "-" + letter
        given.add(option)
        if option in client.flags:
            continue
        kind = client.kind_of(option)
        if kind is None:
            return None
        rest = letters[at + 1:]
        if rest:
            return 1 if _value(kind, rest) else None
        return 2 if i + 1 < len(args) and _value(kind, args[i + 1]) else None
    return 1


def _plus(client: Client, keyword: str) -> bool:
    """dig's ``+short``, ``+noall``, ``+time=2``: a listed keyword, numbers as values."""
    name, eq, value = keyword.partition("=")
    name = name[2:] if name.startswith("no") and name[2:] in client.plus else name
    return name in client.plus and (not eq or value.isdigit())


def _value(kind: str, value: str) -> bool:
    if kind == NUMBER:
        return value.replace(".", "", 1).isdigit()
    if kind == METHOD:
        return value.upper() in METHODS
    if kind == HEADER:
        name, colon, rest = value.partition(":")
        return bool(colon) and name.strip().lower() in HEADERS and plain_text(rest)
    if kind == PRINTED:
        return value in PRINTED_TARGETS
    if kind == FORMAT:
        return not value.startswith("@") and "%output" not in value and plain_text(value)
    if kind == TOKEN:
        return plain_text(value) and len(value) <= 64
    if kind == SERVER:
        return public_name(value.strip("[]"))
    if kind == URL:
        return public_url(value)
    if kind == HOSTPORT:
        host, colon, port = value.rpartition(":")
        return bool(colon) and port.isdigit() and public_name(host.strip("[]"))
    return False


def _operands(client: Client, operands: list[str], asked: bool) -> bool:
    if client.operands == URL:
        return bool(operands) and all(public_url(o) for o in operands)
    if client.operands == HTTPIE:
        if operands and operands[0].upper() in METHODS:
            operands = operands[1:]
        return len(operands) == 1 and public_url(operands[0])
    if client.operands == HOST:
        return bool(operands) and public_name(operands[0]) and all(
            o.isdigit() for o in operands[1:])
    if client.operands == NONE:
        return not operands
    return _dns_operands(operands, asked) if client.operands == DNS else False


def _dns_operands(operands: list[str], asked: bool) -> bool:
    """Names (and a server after them, or ``@server`` for dig), record types and classes;
    at least one name (``asked``: dig's ``-x``/``-q`` gave it): without one, nslookup and
    friends read their questions from input."""
    names = 0
    for operand in operands:
        if operand.upper() in _DNS_TYPES:
            continue
        if not public_name(operand.removeprefix("@")):
            return False
        names += not operand.startswith("@")
    return names > 0 or asked

