"""The verdicts on read-only lookups (``lookups.py``): the lookup itself, ALLOW at medium
risk with its reason; and what the rest of its line does to it: a later stage of its
pipeline that keeps the answer in a file or a sed or awk script of it that can do more than
print, a command substitution that hands the answer to
another command (one that only sets a variable keeps it, like printing it), or an earlier
command that changes the shell the client runs in (its environment, its output, what its
name means)."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.lookupauth import without_own_auth
from clawgate.validators.lookups import is_lookup
from clawgate.validators.lookuptables import CLIENTS, TEXT_FILTERS
from clawgate.validators.netaddr import classify
from clawgate.validators.paths import QUIET_DEVICES
from clawgate.validators.risk import risk_of
from clawgate.validators.writes import may_write, write_targets

# Builtins that change what a later command of the same shell runs with: exported or
# assigned variables (``http_proxy``, ``CURL_HOME``, ``WGETRC``, ``SSLKEYLOGFILE``), files
# read into the shell, the shell's own output (``exec >file``), what a name runs.
_CHANGES_SHELL = frozenset({"export", "declare", "typeset", "readonly", "local", "set",
                            "source", ".", "eval", "alias", "unset", "shopt", "enable",
                            "exec", "hash", "builtin", "command", "trap"})


@register
class PrintedLookup(Validator):
    """A read-only network lookup that sends nothing of the user's to a public name (or asks a
    local service's probe endpoint, ``/health``, ``/metrics``, ``/version``) and
    only shows its answer (``lookups.is_lookup``): ALLOW at medium risk, with this reason.
    The same client with data, a credential, a config file, a proxy, an expansion, a private
    address or its answer saved keeps the network's high risk and is asked about.

    Bad: ``curl -d @notes.txt https://example.com/`` (a file leaves: not a lookup).
    Harmless: ``dig +short github.com``.
    """

    id = "CG-NET-003"
    programs = frozenset(CLIENTS)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if not is_lookup(cmd):
            return NO_OPINION
        leaves = ("only a service's own token goes to that service" if
                  without_own_auth(cmd.program, cmd.words[1:]) != cmd.words[1:] else
                  "nothing of the user's leaves")
        where = ("a local service's probe endpoint" if any(
            classify(_host(w.value)) == "loopback" for w in cmd.words[1:] if w.value)
            else "a public address")
        kept = ("kept in a shell variable" if "command_substitution" in cmd.nesting
                else "shown")
        return Verdict.of(Outcome.ALLOW, self.id, f"{cmd.program} is a read-only lookup of "
                          f"{where}: {leaves} and the answer is {kept} (medium risk)",
                          risk=Risk.MEDIUM)


def _host(text: str) -> str:
    """The host of a URL word (``host/path`` read as http), "" for any other word."""
    from urllib.parse import urlsplit

    if text.startswith("-"):
        return ""
    try:
        return urlsplit(text if "://" in text else "http://" + text).hostname or ""
    except ValueError:
        return ""


@register
class LookupLine(LineValidator):
    """A read-only lookup whose line keeps its answer or changes its shell first: a later
    stage of its pipeline writes the answer to a file (a later command may run what is
    saved), or an earlier command exports or assigns variables, sources a file, redirects
    the shell's output or defines functions (a proxy, a config home, a key log, another
    program by the client's name). ASK at high risk, as any network command.

    Bad: ``export CURL_HOME=.; curl -s https://example.com``. Harmless:
    ``curl -s https://api.github.com/repos/python/cpython | jq .stargazers_count``.
    """

    id = "CG-NET-004"

    def line_shapes(self) -> int:
        return 0  # it looks only at the commands of lookup clients

    def line_programs(self) -> frozenset[str]:
        return frozenset(CLIENTS)

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        commands = parsed.commands
        for index, cmd in enumerate(commands):
            if cmd.program not in CLIENTS or not is_lookup(cmd):
                continue
            holder = _holder(cmd, commands)
            if "command_substitution" in cmd.nesting and holder is None:
                return Verdict.of(Outcome.ASK, self.id, f"the answer of {cmd.program} is "
                                  "handed to another command as its words",
                                  hint="print the answer, or keep it in a variable first",
                                  risk=Risk.HIGH)
            script = _scripted(cmd, commands[index + 1:])
            if script is not None:
                return Verdict.of(Outcome.ASK, self.id, f"the answer of {cmd.program} goes "
                                  f"through a {script} script that can write files or run "
                                  "commands", risk=Risk.HIGH)
            saved = _saved(cmd, commands[index + 1:])
            if saved is not None:
                return Verdict.of(Outcome.ASK, self.id, f"the answer of {cmd.program} is "
                                  f"kept in {saved}; a later command may run what is kept",
                                  hint="print the answer, or save it and read it first",
                                  risk=Risk.HIGH)
            changed = _changes_shell(tuple(c for c in commands[:index] if c is not holder),
                                     commands)
            if changed is not None:
                return Verdict.of(Outcome.ASK, self.id, f"{changed} before {cmd.program} on "
                                  "the same line may change where it sends and what it "
                                  "reads (a proxy, a config file, a key log, another "
                                  "program by its name)", risk=Risk.HIGH)
        return NO_OPINION


def _holder(cmd: SimpleCommand, line: tuple[SimpleCommand, ...]) -> SimpleCommand | None:
    """The plain assignment whose whole value is the command substitution ``cmd`` stands in
    (``V=$(curl -s URL | jq .tag)``): the answer is kept in a shell variable, not in a file or
    handed to a program, and a later use of the variable is judged where it is used."""
    if cmd.nesting[-1:] != ("command_substitution",):
        return None
    for holder in line:
        if holder.words or holder.nesting != cmd.nesting[:-1] or holder.offset > cmd.offset:
            continue
        if len(holder.assignments) != 1:
            continue  # another assignment first may set what the client reads (http_proxy)
        text = holder.assignments[0].value.text
        if len(text) > 1 and text[0] == text[-1] == '"':
            text = text[1:-1]
        if text.startswith("$(") and text.endswith(")") and cmd.text in text and (
                text.count("$(") == 1 and "`" not in text):
            return holder
    return None


def _scripted(cmd: SimpleCommand, later: tuple[SimpleCommand, ...]) -> str | None:
    """The sed or awk of ``cmd``'s pipeline whose script may do more than print, if one."""
    for stage in later:
        if stage.pipeline == cmd.pipeline and stage.stage > cmd.stage and (
                stage.program in TEXT_FILTERS and risk_of(stage) is not Risk.LOW):
            return stage.program
    return None


def _saved(cmd: SimpleCommand, later: tuple[SimpleCommand, ...]) -> str | None:
    """The file a later stage of ``cmd``'s pipeline writes, if one does."""
    for stage in later:
        if stage.pipeline != cmd.pipeline or stage.stage <= cmd.stage or not may_write(stage):
            continue
        for target in write_targets(stage):
            if target.value not in QUIET_DEVICES:
                return target.shown
    return None


def _changes_shell(before: tuple[SimpleCommand, ...],
                   line: tuple[SimpleCommand, ...]) -> str | None:
    for cmd in line:
        if "function" in cmd.nesting:
            return "a function defined"
    for cmd in before:
        if not cmd.words and cmd.assignments:
            return f"assigning {cmd.assignments[0].name}"
        if cmd.program in _CHANGES_SHELL:
            return f"`{cmd.program}`"
    return None
