"""Commands that turn a Redis server into a way onto its host: ``CONFIG SET dir`` and
``dbfilename`` point the dump file anywhere the server may write (a crontab, an
``authorized_keys``), ``MODULE LOAD`` loads native code into it, ``REPLICAOF host port`` makes
it copy (and, with a rogue primary, load) what another server sends. Whoever runs the server,
local or remote, these run code as that server."""

from __future__ import annotations

import re

from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.consoles import fed_text

_CLIENTS = frozenset({"redis-cli", "valkey-cli", "keydb-cli"})
_TAKEOVER = lazy_pattern(r"(?:^|\s)(config\s+set\s+(?:dir|dbfilename|logfile)|module\s+load(?:ex)?|"
                         r"(?:replicaof|slaveof)\s+(?!no\s+one\b)\S+)", re.I)
_RECONFIGURE = lazy_pattern(r"(?:^|\s)(config\s+(?:set|rewrite)|acl\s+(?:setuser|load)|"
                            r"debug\s+\w+)\b", re.I)


@register
class RedisServerTakeover(Validator):
    """A Redis client telling the server to write its dump where it is told (``CONFIG SET
    dir``/``dbfilename``/``logfile``), load a module, or replicate from another server: the
    known ways to run code on the server's host. DENY. Other reconfiguration (``CONFIG SET``
    of another parameter, ``ACL SETUSER``, ``DEBUG``) is ASK.

    Bad: ``redis-cli -h 10.0.0.5 CONFIG SET dir /var/spool/cron``. Harmless: ``redis-cli
    CONFIG GET maxmemory``.
    """

    id = "CG-DATA-004"
    programs = _CLIENTS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in _CLIENTS:
            return NO_OPINION
        texts = [" ".join(w.shown.strip("'\"") for w in cmd.words[1:]), *fed_text(cmd)]
        for text in texts:
            found = _TAKEOVER.search(text)
            if found is not None:
                return Verdict.deny(self.id, f"{cmd.program}: {found.group(1)} makes the server "
                                    "write files, load code or copy another server's data",
                                    hint="reconfigure the server through its config file")
        for text in texts:
            found = _RECONFIGURE.search(text)
            if found is not None:
                return Verdict.of(Outcome.ASK, self.id, f"{cmd.program}: {found.group(1)} "
                                  "changes how the server runs", risk=Risk.HIGH)
        return NO_OPINION
