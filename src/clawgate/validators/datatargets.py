"""What a data-store command is aimed at, read from the names on its line: the hosts and
connection URLs it reaches, the database, file or environment it names.

A target is **production** when any of those names says so (``prod``, ``production``,
``prd``, ``live`` as a word of the name: ``prod-cache.internal``, ``RAILS_ENV=production``,
``app_prod``); **remote** when it reaches a named host that is not this machine (a dotted name or
an address other than loopback); **throwaway** when it stays on this machine and names a test
database or environment (``app_test``, ``RAILS_ENV=test``, ``--env=testing``); **local**
otherwise (no host, ``localhost``, a socket, a one-word service name such as CI's ``db``).

A destructive verb is DENY on a production or remote target (nothing here can bring the data
back, and nobody should wipe a named shared store from an agent's session), ASK on a local one
(the developer's own database, whose contents may still matter), and left alone on a
throwaway one (a test database is rebuilt by every test run).
"""

from __future__ import annotations

import ipaddress
import re
from enum import IntEnum

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern


class Target(IntEnum):
    THROWAWAY = 0
    LOCAL = 1
    REMOTE = 2
    PRODUCTION = 3


_PRODUCTION = frozenset({"prod", "production", "prd", "live", "prod1", "prod2"})
_THROWAWAY = frozenset({"test", "tests", "testing", "ci", "tmp", "temp", "scratch", "e2e",
                        "sandbox", "throwaway", "spec"})
_WORDS = lazy_pattern(r"[a-z0-9]+")
_URL = lazy_pattern(r"^(?:[a-z][\w+.-]*:)?//(?:[^@/?#]*@)?(\[[^\]]*\]|[^/:?#,]*)"
                    r"(?::\d+)?(?:,[^/?#]*)?(?:/([^?#]*))?")
_LOOPBACK = frozenset({"", "localhost", "localhost.localdomain", "0.0.0.0", "::1", "[::1]",
                       "host.docker.internal", "127.0.0.1"})


def _words(name: str) -> set[str]:
    return set(_WORDS.findall(name.lower()))


def url_parts(text: str) -> tuple[str, str] | None:
    """(host, path) of a connection URL (``postgresql://u@db.prod/app``, ``jdbc:mysql://h/d``,
    ``redis://h:6379/0``), or None when ``text`` is not one."""
    text = text.removeprefix("jdbc:")
    if "//" not in text:
        return None
    found = _URL.match(text.strip("'\""))
    if found is None:
        return None
    return found.group(1), found.group(2) or ""


def host_kind(host: str) -> Target:
    """LOCAL for this machine or a one-word service name, REMOTE for any other host."""
    host = host.strip("[]").lower()
    if host in _LOOPBACK or host.startswith(("/", "127.", "unix:")) or host.endswith(".sock"):
        return Target.LOCAL
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return Target.LOCAL if "." not in host and ":" not in host else Target.REMOTE
    return Target.LOCAL if address.is_loopback else Target.REMOTE


def classify(hosts: list[str], names: list[str], objects: tuple[str, ...] = ()) -> Target:
    """The target of a command reaching ``hosts`` (or none: this machine) and naming
    ``names`` (databases, files, URLs, environments). ``objects`` (what a statement drops:
    ``DROP DATABASE app_prod``) can make it production, never throwaway."""
    words: set[str] = set()
    if any(_words(o) & _PRODUCTION for o in objects):
        return Target.PRODUCTION
    found = Target.LOCAL
    for name in names:
        parts = url_parts(name)
        if parts is not None:
            hosts = [*hosts, parts[0]]
        words |= _words(name)
    for host in hosts:
        host = _bare_host(host)
        words |= _words(host)
        found = max(found, host_kind(host))
    if words & _PRODUCTION:
        return Target.PRODUCTION
    if found is Target.LOCAL and words & _THROWAWAY:
        return Target.THROWAWAY
    return found


def production_name(name: str) -> bool:
    """A name with ``prod``, ``production``, ``prd`` or ``live`` as a word of it."""
    return bool(_words(name) & _PRODUCTION)


def throwaway_name(name: str) -> bool:
    """A name that says test or scratch data (``app_test``, ``ci_db``) and no production."""
    words = _words(name)
    return bool(words & _THROWAWAY) and not words & _PRODUCTION


def _bare_host(text: str) -> str:
    """The host of ``host``, ``host:port``, ``[::1]:port``, sqlcmd's ``tcp:host,port`` or a
    URL."""
    parts = url_parts(text)
    if parts is not None:
        return parts[0]
    text = _TRANSPORT.sub("", text).partition(",")[0]
    if text.startswith("[") and "]" in text:
        return text[1:text.index("]")]
    return text.rpartition(":")[0] if text.count(":") == 1 else text


_TRANSPORT = lazy_pattern(r"^(?:tcp|np|lpc|admin|unix):", re.I)


_WHERE = {Target.PRODUCTION: "a production target", Target.REMOTE: "a remote host",
          Target.LOCAL: "a local database"}


def verdict(rule_id: str, what: str, target: Target, hint: str) -> Verdict:
    """DENY on a production or remote target, ASK on a local one, nothing on a throwaway."""
    if target is Target.THROWAWAY:
        return NO_OPINION
    message = f"{what} on {_WHERE[target]}"
    if target is Target.LOCAL:
        return Verdict.ask(rule_id, message, hint=hint)
    return Verdict.deny(rule_id, f"{message}: the data cannot be brought back",
                        hint="run it by hand against the target, after a backup")


def line_target(hosts: list[str], names: list[str], assignments: list[tuple[str, str]],
                objects: tuple[str, ...] = ()) -> Target:
    """``classify`` with the line's assignments that name a host, a connection or an
    environment (``PGHOST=…``, ``DATABASE_URL=…``, ``RAILS_ENV=…``) added."""
    for name, value in assignments:
        upper = name.upper()
        if upper.endswith(("HOST", "HOSTS", "ENDPOINTS", "SERVER")):
            hosts = [*hosts, *value.split(",")]
        elif _ENV_NAME.search(upper):
            names = [*names, value]
    return classify(hosts, names, objects)


_ENV_NAME = lazy_pattern(r"(?:ENV|ENVIRONMENT|URL|URI|DATABASE|DB|DBNAME|SETTINGS_MODULE|"
                         r"STAGE|KEYSPACE)$")
