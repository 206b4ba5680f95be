"""Destructive or outward-facing commands beyond git: ASK with a warning (CG-DEST-)."""

from __future__ import annotations

import re

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell import parse
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.consoles import fed_text
from clawgate.validators.dataclients import client_target
from clawgate.validators.datatargets import Target, throwaway_name, verdict
from clawgate.validators.degree import fed_targets_spared
from clawgate.validators.deletes import delete_targets
from clawgate.validators.paths import resolve, under
from clawgate.validators.xargsfeed import ITEM as XARGS_ITEM

_SQL_CLIENTS = frozenset({"psql", "mysql", "mariadb", "sqlite3", "duckdb", "clickhouse-client",
                          "pgcli", "mycli", "litecli", "usql", "sqlcmd", "cqlsh", "cockroach",
                          "mysqlsh", "influx", "trino", "bq", "snowsql"})
_OPTION_PREFIX = lazy_pattern(r"^(--[A-Za-z-]+=|-[A-Za-z])")
_DROP = lazy_pattern(r"\b(drop\s+(table|database|schema|index|view|user|role|owned|"
                     r"materialized|sequence|function|type|extension|keyspace|measurement|"
                     r"series|retention|collection)|truncate)\b", re.IGNORECASE)
_UNBOUNDED = lazy_pattern(r"^\s*(delete\s+from|update\s+\S+\s+set)\b", re.IGNORECASE)
_WHERE = lazy_pattern(r"\bwhere\b", re.IGNORECASE)
# A path whose directory is a variable or a substitution (``$src/x``, ``"${D}"/*``, ``$(pwd)``):
# what mv takes away from there may be anywhere.
_PLACE_FROM_VARIABLE = lazy_pattern(r"^[\"']?(?:\$\{?\w+\}?|\$\(.*\)|`.*`)[\"']?(?:/|$)")
_SUBSTITUTION = lazy_pattern(r"^(?:`([^`]*)`|\$\(([^()]*)\))$")


@register
class DestructiveSql(Validator):
    """``DROP``, ``TRUNCATE``, and ``DELETE``/``UPDATE`` without ``WHERE`` handed to a database
    client: the rows are gone unless there is a backup. Judged by the target
    (``datatargets``): DENY on a production or remote database (``psql -h db.prod.example``,
    ``postgresql://u@prod/app``, ``DROP DATABASE app_prod``), ASK on this machine's, left alone
    on a local test database (``psql -d app_test``, ``sqlite3 test.db``, a local ``DROP
    DATABASE app_test``).

    Bad: ``psql -h db.prod.example -c 'DROP DATABASE app'``.
    Harmless: ``psql -c 'DELETE FROM t WHERE id = 3'``.
    """

    id = "CG-DEST-004"
    programs = _SQL_CLIENTS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in _SQL_CLIENTS:
            return NO_OPINION
        texts = [w.shown for w in cmd.words[1:]] + fed_text(cmd)
        for text in texts:
            statement = _destructive(text)
            if statement is not None:
                target = client_target(cmd, objects=(statement,))
                if target is Target.LOCAL and _drops_throwaway_database(text):
                    target = Target.THROWAWAY  # DROP DATABASE app_test on this machine
                return verdict(self.id, f"destructive SQL: {statement[:60]}", target,
                               hint="add a WHERE clause, or back the table up first")
        return NO_OPINION


_DROP_DATABASE = lazy_pattern(r"^\s*drop\s+(?:database|schema)\s+(?:if\s+exists\s+)?"
                              r"[\"`]?([\w.-]+)[\"`]?\s*(?:cascade|restrict|with\s*\(\s*force"
                              r"\s*\))?\s*$", re.IGNORECASE)


def _drops_throwaway_database(sql: str) -> bool:
    """Every destructive statement of ``sql`` drops a whole database or schema whose name
    says it is test data (``DROP DATABASE IF EXISTS app_test``): the statement names its
    own target, a throwaway one."""
    statements = [s for s in _OPTION_PREFIX.sub("", sql.strip()).strip("'\"").split(";")
                  if s.strip()]
    found = [_DROP_DATABASE.match(s) for s in statements if _destructive(s) is not None]
    return bool(found) and all(m is not None and throwaway_name(m.group(1)) for m in found)


def _destructive(sql: str) -> str | None:
    for statement in _OPTION_PREFIX.sub("", sql.strip()).strip("'\"").split(";"):
        if _DROP.search(statement):
            return statement.strip()
        if _UNBOUNDED.match(statement) and not _WHERE.search(statement):
            return statement.strip()
    return None


_SUBCOMMAND_RULES: dict[str, tuple[tuple[tuple[str, ...], str], ...]] = {
    "kubectl": ((("delete",), "deletes cluster resources"), (("drain",), "evicts every pod")),
    "terraform": ((("destroy",), "destroys the managed infrastructure"),),
    "tofu": ((("destroy",), "destroys the managed infrastructure"),),
    "helm": ((("uninstall",), "removes a release"), (("delete",), "removes a release")),
    "gh": ((("repo", "delete"), "deletes a repository"),
           (("release", "delete"), "deletes a release")),
    "npm": ((("publish",), "publishes a package"), (("unpublish",), "unpublishes a package")),
    "yarn": ((("publish",), "publishes a package"), (("npm", "publish"), "publishes")),
    "pnpm": ((("publish",), "publishes a package"),),
    "cargo": ((("publish",), "publishes a crate"), (("yank",), "yanks a crate")),
    "twine": ((("upload",), "publishes a package"),),
    "poetry": ((("publish",), "publishes a package"),),
    "uv": ((("publish",), "publishes a package"),),
    "gem": ((("push",), "publishes a gem"), (("yank",), "yanks a gem")),
    # the package registries of other ecosystems: Hackage, opam, Nimble, LuaRocks, pub.dev,
    # Hex, Clojars, NuGet, Swift registries, Gleam's Hex
    "cabal": ((("upload",), "uploads a package to Hackage"),),
    "stack": ((("upload",), "uploads a package to Hackage"),),
    "opam": ((("publish",), "publishes a package to the opam repository"),),
    "nimble": ((("publish",), "publishes a package"),),
    "luarocks": ((("upload",), "publishes a rock"),),
    "dart": ((("pub", "publish"), "publishes a package to pub.dev"),),
    "flutter": ((("pub", "publish"), "publishes a package to pub.dev"),),
    "pub": ((("publish",), "publishes a package to pub.dev"),),
    "mix": ((("hex.publish",), "publishes a package to Hex"),
            (("hex.retire",), "retires a release on Hex")),
    "rebar3": ((("hex", "publish"), "publishes a package to Hex"),),
    "gleam": ((("publish",), "publishes a package to Hex"),),
    "lein": ((("deploy",), "deploys an artifact to a repository"),),
    "dotnet": ((("nuget", "push"), "publishes a package to NuGet"),),
    "swift": ((("package-registry", "publish"), "publishes a package to a registry"),),
    "docker": ((("system", "prune"), "deletes every unused image and volume"),
               (("volume", "prune"), "deletes unused volumes"), (("push",), "publishes an image")),
    "aws": ((("s3", "rb"), "removes a bucket"),),
    "systemctl": ((("stop",), "stops a service"), (("disable",), "disables a service"),
                  (("mask",), "masks a service"), (("kill",), "kills a service")),
    "ufw": ((("disable",), "turns the firewall off"), (("reset",), "resets the firewall")),
    "nft": ((("flush",), "flushes the firewall rules"),),
}


def _starts_within(operands: tuple[str, ...], prefix: tuple[str, ...]) -> bool:
    """``prefix`` among the first operands (``kubectl -n prod delete``: prod is a value)."""
    return any(operands[i : i + len(prefix)] == prefix for i in range(min(3, len(operands))))


@register
class DestructiveSubcommand(Validator):
    """Subcommands that delete infrastructure, publish to the world or stop services:
    ``kubectl delete``, ``terraform destroy``, ``gh repo delete``, ``npm publish`` and the
    other package registries' uploads (``cabal upload``, ``mix hex.publish``, ``dart pub
    publish``, ``lein deploy``, ``dotnet nuget push`` ...), ``systemctl stop`` ... They reach
    beyond the workspace and cannot be taken back.

    Bad: ``terraform destroy -auto-approve``. Harmless: ``terraform plan``.
    """

    id = "CG-DEST-005"
    programs = frozenset(_SUBCOMMAND_RULES)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        rules = _SUBCOMMAND_RULES.get(cmd.program or "")
        if rules is None:
            return NO_OPINION
        operands = tuple(w for w in cmd.argv[1:] if not w.startswith("-"))
        if "--dry-run" in cmd.argv and operands[:1] == ("publish",):
            return NO_OPINION  # a rehearsal: the package is packed and checked, not sent
        for prefix, what in rules:
            if _starts_within(operands, prefix):
                return Verdict.ask(self.id, f"{cmd.program} {' '.join(prefix)} {what}",
                                   hint="confirm the target first")
        if cmd.program == "terraform" and "-destroy" in cmd.argv and "apply" in operands:
            return Verdict.ask(self.id, "terraform apply -destroy destroys the infrastructure")
        if cmd.program == "aws" and operands[:2] == ("s3", "rm") and "--recursive" in cmd.argv:
            return Verdict.ask(self.id, "aws s3 rm --recursive empties a bucket prefix")
        return NO_OPINION


@register
class RecursiveDeleteOfUnknown(Validator):
    """A recursive delete (or a move away) whose target is only known at run time (a variable
    the engine cannot see, a command substitution): nobody can tell what it removes before it
    is gone. ASK.

    An item ``xargs`` feeds (``"$XARGS_ITEM"``) is left to CG-DEG-003, which reads the feeder
    (``find . -name __pycache__ | xargs rm -rf`` deletes only regenerable names); a ``find``
    substituted in place (``rm -rf `find . -name __pycache__```) is read the same way.

    Bad: ``rm -rf "$TARGET"`` or ``rm -rf $(cat dirs.txt)``, ``mv "$SRC"/x .``, ``mv "$D" .``.
    Harmless: ``rm -rf ./build`` or ``rm -f "$LOG"`` (one file, not a tree).
    """

    id = "CG-DEST-009"
    programs = frozenset({"rm", "find", "mv"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in ("rm", "find", "mv"):
            return NO_OPINION
        for word in delete_targets(cmd) or ():
            if XARGS_ITEM in word.text or _found_regenerable(word, ctx) or (
                    cmd.program == "mv" and not _PLACE_FROM_VARIABLE.match(word.text)):
                continue  # mv "$APP-$VERSION.AppImage" dist: a name made at run time, here
            if resolve(word, ctx).path is None:
                what = "moves away" if cmd.program == "mv" else "deletes"
                return Verdict.ask(self.id, f"{cmd.program} {what} {word.text}, which is only "
                                   "known at run time", hint="name the directory literally")
        return NO_OPINION


def _found_regenerable(word: Word, ctx: Context) -> bool:
    """``$(find . -name __pycache__)``: a find of the workspace that lists only regenerable
    names (or starts only in regenerable directories)."""
    found = _SUBSTITUTION.match(word.text)
    if found is None:
        return False
    try:
        commands = parse(found.group(1) or found.group(2)).commands
    except ValueError:
        return False
    if len(commands) != 1 or commands[0].program != "find":
        return False
    finder = commands[0]
    roots: list[Word] = []
    for root in finder.words[1:]:
        if root.shown.startswith(("-", "(", "!")):
            break
        roots.append(root)
    inside = all(w.value is not None and (p := resolve(w, ctx).path) is not None
                 and under(p, ctx.workspace) for w in roots or [Word(".", ".")])
    return inside and fed_targets_spared(finder, ctx)


# Switches that tell a build to send its result away: ``DOCKER_PUSH=true make image``. Builds
# take switches as variables, on the command or (make) as ``NAME=VALUE`` words; names are read
# by their words, split at ``_`` (``MACOSX_DEPLOYMENT_TARGET``, ``PREPUBLISH``: no such word).
_MAKES = frozenset({"make", "gmake", "bmake", "remake"})
# ``export DOCKER_PUSH=true && make image``: the switch set for every build after it
_SETTERS = _MAKES | {"export", "declare", "typeset", "readonly", "local"}
_SENDS = frozenset({"PUSH", "PUBLISH", "DEPLOY", "UPLOAD"})
_ON = frozenset({"1", "true", "yes", "on", "y"})
_MAKE_VARIABLE = lazy_pattern(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def sends(name: str, value: str | None) -> bool:
    """Whether ``NAME=VALUE`` turns on a switch that sends the build's result away."""
    if value is None or value.strip().lower() not in _ON:
        return False
    return bool(_SENDS & set(name.upper().split("_")))


def _switches(cmd: SimpleCommand) -> list[tuple[str, str | None]]:
    found = [(a.name, a.value.value) for a in cmd.assignments]
    if cmd.program in _SETTERS:
        for word in cmd.words[1:]:
            matched = _MAKE_VARIABLE.match(word.value or "")
            if matched is not None:
                found.append((matched.group(1), matched.group(2)))
    return found


@register
class SendingSwitch(Validator):
    """A build told by a switch to push, publish, deploy or upload its result (a variable
    named so, turned on, on the command, exported for the builds after it, or as a make
    variable): it sends something beyond the workspace, as ``docker push`` or ``npm publish``
    would. ASK.

    Bad: ``DOCKER_PUSH=true make image``, ``make release PUBLISH=1``. Harmless: ``make image``,
    ``DOCKER_PUSH=false make image``, ``MACOSX_DEPLOYMENT_TARGET=10.15 cargo build``.
    """

    id = "CG-DEST-011"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program in _SETTERS else sh.ASSIGN

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not cmd.assignments and cmd.program not in _SETTERS:
            return NO_OPINION
        for name, value in _switches(cmd):
            if sends(name, value):
                return Verdict.ask(self.id, f"{name}={value} tells the build to send its result "
                                   "beyond the workspace (a push, a publish or a deploy)",
                                   hint="run the build without the switch, then send the "
                                   "result yourself")
        return NO_OPINION
