"""Where a data-store client connects, read from its options and operands: the host options
each client spells its own way (``psql -h``, ``sqlcmd -S``, ``redis-cli -u URL``,
``etcdctl --endpoints``, influx's ``-host``), connection URLs anywhere on the line, the
database or file it names, and the line's ``PGHOST=``/``DATABASE_URL=``-style assignments."""

from __future__ import annotations

import re

from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.argv import option_values
from clawgate.validators.datatargets import Target, line_target

# program: (short host options, long host options, whether the first operand is a host)
_HOSTS: dict[str, tuple[str, frozenset[str], bool]] = {
    **dict.fromkeys(("psql", "pgcli", "dropdb", "dropuser", "pg_restore", "mysql", "mariadb",
                     "mycli", "mysqladmin", "clickhouse-client", "redis-cli", "valkey-cli",
                     "keydb-cli"), ("h", frozenset({"host"}), False)),
    "sqlcmd": ("S", frozenset({"server"}), False),
    "cqlsh": ("", frozenset(), True),
    **dict.fromkeys(("cockroach", "mongosh", "mongo", "influx", "mysqlsh", "usql", "trino"),
                    ("", frozenset({"host", "url", "server"}), False)),
    "etcdctl": ("", frozenset({"endpoints"}), False),
}
_CONNINFO = lazy_pattern(r"(?:^|[\s;])(host|hostaddr|server|dbname|database)\s*=\s*"
                         r"['\"]?([^\s;'\"]+)", re.I)
_URL_SHORT = {"redis-cli": "u", "valkey-cli": "u", "keydb-cli": "u"}
# Clients of stores that only live in someone's cloud.
_CLOUD_ONLY = frozenset({"bq", "snowsql", "athena", "heroku"})


def client_target(cmd: SimpleCommand, objects: tuple[str, ...] = ()) -> Target:
    """The target of ``cmd``, a data-store client (``datatargets`` says what each means)."""
    program = cmd.program or ""
    if program in _CLOUD_ONLY:
        return max(Target.REMOTE, line_target([], [], [], objects))
    short, long, positional = _HOSTS.get(program, ("", frozenset(), False))
    words = cmd.words
    hosts = [v for _, _, v in option_values(words, 1, short + _URL_SHORT.get(program, ""), long)
             if v is not None]
    taken = {id(w) for _, w, _ in option_values(words, 1, short, long) if w is not None}
    names: list[str] = []
    for i, word in enumerate(words[1:], start=1):
        text = word.value if word.value is not None else word.shown
        if text.startswith("-") and text.lstrip("-") in {"host", "server", "url", "endpoints"} \
                and i + 1 < len(words):
            hosts.append(words[i + 1].shown)  # influx -host, sqlplus-style single dashes
        elif id(word) not in taken and not text.startswith("-") and not any(
                c.isspace() for c in text):
            names.append(text)
    if positional and names:
        hosts.append(names.pop(0))
    for word in words[1:]:  # libpq's "host=h dbname=d", ODBC's "Server=h;Database=d"
        text = word.value or word.shown
        for key, value in _CONNINFO.findall(text):
            (hosts if key.lower() in ("host", "server", "hostaddr") else names).append(value)
    assignments = [(a.name, a.value.value or a.value.text) for a in cmd.assignments]
    return line_target(hosts, names, assignments, objects)
