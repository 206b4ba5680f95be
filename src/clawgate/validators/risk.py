"""Risk tiers of a simple command: low reads, medium changes the workspace, high reaches out.

Medium is the home of everyday work (builds, tests, installs into the project, ``git commit``,
editors): supervised autonomy allows it. High must be earned: the network (this machine's own
services included; only probing them, ``ping``/``nc -z``, is medium, and so is a read-only
lookup of a public name that sends nothing of the user's, ``lookups.py``), writes to remotes
(``git push``, publishing), the host's containers, system administration, installs outside
the project, privilege changes. The tiers are the program catalog's (``clawgate.programs``);
an unknown program is medium; a program whose name is only known at run time is high.
Validators raise the tier with their verdicts (a write outside the workspace is high; see
``files.py``).
"""

from __future__ import annotations

from clawgate import programs
from clawgate.decision import Risk
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.functioncalls import POSITIONAL_NAME
from clawgate.validators.lookups import is_lookup
from clawgate.validators.paths import QUIET_DEVICES
from clawgate.validators.risktables import RULES
from clawgate.validators.writes import may_write, write_targets

_LOOPBACK = lazy_pattern(r"^(\w+://)?(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)([:/]|$)")
_NAME_FROM_HOME = lazy_pattern(r"^(\$HOME|\$\{HOME\}|~)/[\w./-]+$")
# The tiers as module names: a member read off its class (``Risk.LOW``) goes through
# ``EnumType``, whose ``__getattr__`` keeps attribute reads of the class off the fast path.
_LOW, _MEDIUM, _HIGH = Risk.LOW, Risk.MEDIUM, Risk.HIGH
_TIERS = {"low": Risk.LOW, "medium": Risk.MEDIUM, "high": Risk.HIGH, "network": Risk.HIGH}
# (A bare ``version`` operand is left to the catalog: ``yarn version`` bumps the version.)
_ASKS_ITSELF = frozenset({("--version",), ("--help",), ("-version",), ("-help",)})
_ONLY_PRINTS = frozenset({"--version", "-V", "--help", "version"})
_ACTING = frozenset({"write", "run", "code", "config", "runs", "deletes"})


def risk_of(cmd: SimpleCommand, nested: bool = False) -> Risk:
    """The tier from the program and its arguments; validators may raise it with verdicts.
    ``nested``: the command was unwrapped from another (``bash -c '…'``, ``env …``), whose
    assignments, redirections and pipes it runs under: it is never a read-only lookup."""
    if not cmd.words:
        return _LOW
    program = cmd.program or _static_name(cmd)
    if program is None and "function" in cmd.nesting and POSITIONAL_NAME.fullmatch(
            cmd.words[0].text):
        return _LOW  # an argument of the function run: each call carries its own tier
    if program is None:
        return _HIGH
    tier = _program_tier(program, cmd)
    if tier is _HIGH:
        if not nested and is_lookup(cmd):
            return _MEDIUM  # sends nothing of the user's, shows its answer (lookups.py)
        return tier
    found = programs.effects(cmd)
    if any(e.kind == "network" and e.word is not None and _remote(e.word.shown)
           for e in found):
        return _HIGH  # restic -r rest:https://h/x: an option names another machine
    if tier is _LOW and (_writes(cmd) or any(e.kind in _ACTING for e in found)):
        return _MEDIUM  # a reader that writes, deletes or runs something
    return tier


_SCHEME = lazy_pattern(r"^(?:[\w.+-]+@)?[A-Za-z][\w.+-]+:")


def _remote(address: str) -> bool:
    """An option value that names another machine: a URL, ``[user@]host:path``, a backend
    spelled ``scheme:…`` (``sftp:h:/x``, ``s3:bucket``); not ``file:`` or loopback."""
    if address.startswith("file:") or not _SCHEME.match(address):
        return False
    rest = address.split("://", 1)[-1] if "://" in address else address.split(":", 1)[-1]
    return not _LOOPBACK.match(rest.split("@", 1)[-1])


def _static_name(cmd: SimpleCommand) -> str | None:
    """``$HOME/bin/tool`` and ``~/bin/tool`` name a program as surely as a literal path."""
    text = cmd.words[0].text.strip('"')
    if _NAME_FROM_HOME.match(text):
        return text.rsplit("/", 1)[-1]
    return None


def _program_tier(program: str, cmd: SimpleCommand) -> Risk:
    """The catalog's tier (by subcommand where it has them), through its tier rule if any; a
    switch the catalog says publishes (``cargo release --execute``) is high, rule or not."""
    found = programs.tier(cmd, program)
    if found is None:
        return _MEDIUM
    if cmd.args in _ASKS_ITSELF and "/" not in cmd.words[0].shown:
        return _LOW  # aws --version, terraform -help: the tool describes itself
    name, rule = found
    if programs.status_query(cmd):
        return _LOW  # prints the system's state, changes nothing (ufw status)
    if rule is not None:
        if any(e.kind == "publishes" for e in programs.effects(cmd)):
            return _HIGH  # a switch that sends the result out, whatever the rule reads
        return RULES[rule](cmd, _TIERS[name])
    if name == "network":
        return _network_tier(program, cmd)
    return _TIERS[name]


def _network_tier(program: str, cmd: SimpleCommand) -> Risk:
    """The network is high, loopback included (a request to a local service can act on it:
    the docker API, a database, an admin port), except probing this machine (``ping
    localhost``, ``nc -z localhost 8080``: no data sent) and local copies (``rsync -a src/
    build/``), and asking a client which version it is (``curl --version``: no address)."""
    if cmd.args and all(a in _ONLY_PRINTS for a in cmd.args):
        return _LOW
    if (programs.entry(program) or {}).get("loopback") and _probe(program, cmd):
        targets = [w.shown for w in cmd.words[1:] if not w.shown.startswith("-")]
        if targets and all(_LOOPBACK.match(t) for t in targets if _looks_like_host(t)) and any(
                _looks_like_host(t) for t in targets):
            return _MEDIUM
    if program in ("rsync", "scp") and not any(":" in w.shown for w in cmd.words[1:]):
        return _MEDIUM  # no operand names a host (host:path): a copy on this machine
    if program == "ssh":
        from clawgate.validators.sshmodes import forge_greeting, ssh_local

        if ssh_local(cmd):
            return _LOW  # ssh -G, -Q, -O check: no machine is reached
        if forge_greeting(cmd):
            return _MEDIUM  # a forge's greeting: the key authenticates, nothing is sent
    return _HIGH


def _probe(program: str, cmd: SimpleCommand) -> bool:
    """ping sends nothing but echo requests; netcat only with ``-z`` (scan, send nothing)."""
    if program.startswith("ping"):
        return True
    return any(w.shown.startswith("-") and not w.shown.startswith("--") and "z" in w.shown
               for w in cmd.words[1:])


def _looks_like_host(text: str) -> bool:
    return "://" in text or text.startswith(("localhost", "127.", "[", "0.0.0.0")) or (
        "." in text and "/" not in text.split(".", 1)[0] and not text.startswith("."))


def _writes(cmd: SimpleCommand) -> bool:
    return may_write(cmd) and any(word.value not in QUIET_DEVICES
                                  for word in write_targets(cmd))
