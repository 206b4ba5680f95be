"""Wiping verbs of key-value, document and time-series stores' clients (redis ``FLUSHALL``,
MongoDB ``dropDatabase()``, ``etcdctl del --prefix``, ``influx delete``, ``dropdb``), judged
by the verb and by the target (``datatargets``): DENY on a production or remote store, ASK on a
local one, nothing on a test one. SQL statements are CG-DEST-004's."""

from __future__ import annotations

import re
import shlex

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.argv import option_values
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.consoles import fed_text
from clawgate.validators.dataclients import client_target
from clawgate.validators.datatargets import Target, verdict

_REDIS = frozenset({"redis-cli", "valkey-cli", "keydb-cli"})
_MONGO = frozenset({"mongosh", "mongo"})
_REDIS_WIPE = lazy_pattern(r"(?:^|\s)(flushall|flushdb|(?:function|script)\s+flush)\b", re.I)
_MONGO_WIPE = lazy_pattern(r"\.(dropDatabase|dropAllUsers|dropAllRoles)\s*\(|\.(drop)\s*\(\s*\)|"
                           r"\.(deleteMany|remove)\s*\(\s*(?:\{\s*\})?\s*[,)]")
_REACHES_NODE = lazy_pattern(r"\b(?:require|import)\s*\(|\bprocess\s*\.|\bglobalThis\b|"
                             r"\beval\s*\(|\bFunction\s*\(")
_RUNS_PROGRAM = lazy_pattern(r"\b_?run(?:Mongo)?Program\s*\(|(?<![.\w])run\s*\(")
_DROPPERS = frozenset({"dropdb", "mysqladmin"})


def _redis(cmd: SimpleCommand) -> str | None:
    texts = [" ".join(w.shown for w in cmd.words[1:]), *fed_text(cmd)]
    found = next((m for t in texts if (m := _REDIS_WIPE.search(t))), None)
    return found.group(1).upper() if found else None


def _numbered_database(cmd: SimpleCommand) -> bool:
    """``redis-cli -n 15 …``, ``redis://localhost:6379/15``: a database other than the default
    0 is selected. On this machine it is the scratch one tests and one-off work pick (what an
    application stores goes to 0 unless it is told otherwise), and ``FLUSHDB`` empties only
    it; ``FLUSHALL`` empties every one and stays a local wipe."""
    numbers = [v for _, _, v in option_values(cmd.words, 1, "n", frozenset())]
    numbers += [m.group(1) for w in cmd.words[1:] if w.value is not None
                and (m := _REDIS_URL_DB.match(w.value)) is not None]
    return bool(numbers) and all(n is not None and n.isdigit() and int(n) > 0 for n in numbers)


_REDIS_URL_DB = lazy_pattern(r"^rediss?://[^/]*/(\d+)$")


def _mongo_scripts(cmd: SimpleCommand) -> list[str]:
    """The JavaScript mongosh is given on the line: ``--eval`` values and fed text."""
    texts = [v or "" for _, _, v in option_values(cmd.words, 1, "", frozenset({"eval"}))]
    return [t for t in [*texts, *fed_text(cmd)] if t.strip()]


def _mongo(cmd: SimpleCommand) -> str | None:
    for text in _mongo_scripts(cmd):
        found = _MONGO_WIPE.search(text)
        if found:
            return next(g for g in found.groups() if g) + "()"
    return None


def _etcd(cmd: SimpleCommand) -> str | None:
    args = [w.shown for w in cmd.words[1:]]
    if "del" in args and any(a.startswith(("--prefix", "--from-key")) for a in args):
        return "etcdctl del --prefix"
    return None


def _other(cmd: SimpleCommand) -> str | None:
    args = [w.shown for w in cmd.words[1:] if not w.shown.startswith("-")]
    if cmd.program == "influx" and ("delete" in args[:1] or (
            args[:1] in (["bucket"], ["org"]) and args[1:2] == ["delete"])):
        return "influx " + " ".join(args[: 1 if args[0] == "delete" else 2])
    if cmd.program == "dropdb" and args:
        return f"dropdb {args[-1]}"
    if cmd.program == "mysqladmin" and "drop" in args:
        return "mysqladmin drop"
    if cmd.program == "heroku" and args[:1] == ["pg:reset"]:
        return "heroku pg:reset"
    return None


@register
class DataStoreWipe(Validator):
    """A store's client told to wipe it (``redis-cli FLUSHALL``/``FLUSHDB``, mongosh
    ``db.dropDatabase()``, ``.drop()``, ``deleteMany({})``, ``etcdctl del --prefix``,
    ``influx delete``, ``dropdb``, ``mysqladmin drop``, ``heroku pg:reset``): DENY on a
    production or remote host (``-h prod-cache.internal``, ``mongodb://db.example.com/app``),
    ASK on this machine, left alone on a test database (``dropdb app_test``). mongosh's
    scripts run in Node: one that reaches Node's modules is checked as ``node -e`` too, and
    the legacy shell's ``runProgram()`` is ASK.

    Bad: ``redis-cli -h prod-cache.internal FLUSHALL``. Harmless: ``redis-cli ping``.
    """

    id = "CG-DATA-001"
    programs = _REDIS | _MONGO | _DROPPERS | {"etcdctl", "influx", "heroku"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program in _REDIS:
            what = _redis(cmd)
        elif program in _MONGO:
            what = _mongo(cmd)
        elif program == "etcdctl":
            what = _etcd(cmd)
        elif program in self.programs:
            what = _other(cmd)
        else:
            return NO_OPINION
        # mongosh runs its scripts in Node: one that reaches Node's modules or process
        # (``require('child_process')``) is checked as ``node -e``; the legacy shell's
        # ``runProgram()`` starts a program itself.
        scripts = tuple(f"node -e {shlex.quote(t)}" for t in _mongo_scripts(cmd)
                        if _REACHES_NODE.search(t)) if program in _MONGO else ()
        if what is None and program in _MONGO and any(
                _RUNS_PROGRAM.search(t) for t in _mongo_scripts(cmd)):
            return Verdict.ask(self.id, f"{program} script starts a program")
        if what is None:
            return Verdict.unwrap(*scripts) if scripts else NO_OPINION
        target = client_target(cmd)
        if program in _REDIS and what == "FLUSHDB" and target is Target.LOCAL and \
                _numbered_database(cmd):
            target = Target.THROWAWAY
        found = verdict(self.id, f"{program}: {what} wipes stored data", target,
                        hint="name a local or test instance, or back it up first")
        return Verdict(found.outcome, found.reasons, nested=scripts) if scripts else found
