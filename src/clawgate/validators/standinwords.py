"""What a stand-in reading's asks are about: the words the line wrote, or only the program
the reading put in.

A command whose program is a variable the line never sets is read with each stand-in program
in its place (``shell/standins.py``); the name gives way when every reading is ALLOW. Some
readings ask whatever the words are, for the program alone: a network client's risk tier, an
eraser's delete of a file of the workspace. Those asks say what the program would be, which
the environment chose, not what these words can do. Here a reading's ask is set aside when
the program's own grammar shows that these words reach nothing and destroy nothing with it:

- ``ssh``, ``curl``, ``wget``, ``nc``, ``scp``, ``rsync``: every word the program takes for a
  host or URL (ssh's first operand, every operand of curl, wget and nc, an operand of scp or
  rsync with a ``:``, the value of an option that names a host, a proxy or a configuration) is
  one literal label, letters first, no dot, colon, ``@`` or slash (``install``, ``run``): a
  name only this machine's own configuration resolves (its hosts file, its ssh aliases, its
  resolver's search list), never a public DNS name (dotless domains are not delegated) nor an
  address. An option that names a host, a proxy, a socket or a configuration, sends data,
  runs a command or writes a file, or a word known only at run time, keeps the ask; an option
  the client does not have stops it with a usage error before it connects
  (``standinclients.py``). The command
  reads nothing on its standard input (no pipe into it, no ``<`` or here-document), so
  nothing of the user's leaves that the words do not name; ssh's remote command is judged as a
  command by the reading itself (``ssh run rm -rf ~`` stays DENY). Only the risk tier
  (CG-RISK-001) and ssh's interactive-shell ask (CG-WRAP-009) are set aside this way.
- ``kubectl``: its first word is its command; a literal word that is none of kubectl's
  commands makes it look for a plugin ``kubectl-WORD`` the user installed and stop with an
  error when there is none; ``run`` without ``--image``, and a first long flag that is none
  of its global flags (it takes no abbreviations), stop it with an error. Its risk tier is
  set aside then.
- ``bash``: its first word a long option it does not have (it takes them whole), it stops
  with "invalid option" before it reads a command: its ask for an interactive shell
  (CG-WRAP-004) is set aside.
- ``ssh`` given, before its host or after it (OpenSSH reads options in both places, with BSD
  getopt), an option letter it does not have (``ssh run --features debug``: ``-``): it
  prints its usage and exits before it connects, so neither its own asks (risk tier, a
  remote shell) nor any about its remote command stand. An ask about its redirections, or
  about another command of the line, stays.
- ``shred``: the line's only command, each operand a literal relative name that names no
  file, not even a dangling link, where it runs: shred opens nothing and destroys nothing
  (CG-DEG-002 set aside). With another command on the line, that one may make the file
  first: the ask stays, already at the look at the command alone.

Any other reason, a DENY, or a reason about another command than the stand-in's keeps the ask.
"""

from __future__ import annotations

import os

from clawgate import fsfacts
from clawgate.decision import Outcome, Reason, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell import parse
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context
from clawgate.validators.flags import parse_options
from clawgate.validators.standinclients import CLIENTS, Client, reaching

RISK_ID, SHELL_ID, ERASE_ID = "CG-RISK-001", "CG-WRAP-009", "CG-DEG-002"
INTERACTIVE_ID = "CG-WRAP-004"
# bash's long options (``bash --help``), matched whole: any other first word ``--x`` stops it.
_BASH_LONG = frozenset("""
debug debugger dump-po-strings dump-strings help init-file login noediting noprofile norc
posix pretty-print rcfile restricted verbose version wordexp
""".split())
_LABEL = lazy_pattern(r"[A-Za-z][A-Za-z0-9_-]*")
# kubectl's own commands (``kubectl help``): any other first word is a plugin's name.
_KUBECTL = frozenset("""
create expose run set explain get edit delete rollout scale autoscale certificate cluster-info
top cordon uncordon drain taint describe logs attach exec port-forward proxy cp auth debug
events diff apply patch replace wait kustomize label annotate completion api-resources
api-versions config plugin version alpha options help
""".split())
# kubectl's global flags (``kubectl options``): any other long flag first stops it.
_KUBECTL_FLAGS = frozenset("""
as as-group as-uid cache-dir certificate-authority client-certificate client-key cluster context
disable-compression insecure-skip-tls-verify kubeconfig log-flush-frequency match-server-version
namespace password profile profile-output request-timeout server tls-server-name token user
username warnings-as-errors v vmodule log-backtrace-at log-dir log-file log-file-max-size
logtostderr alsologtostderr one-output skip-headers skip-log-headers stderrthreshold
""".split())
# OpenSSH's options (``ssh.c``: its getopt string): switches, and those taking a value.
_SSH_FLAGS = frozenset("1246afgknqstvxACGKMNTVXYy")
_SSH_VALUED = frozenset("bceilmopBDEFIJLOPQRSwW")
_REDIRECTIONS = lazy_pattern(r"(?:\s+(?:\d*|&)[<>].*)?")
_SHRED_VALUES = frozenset({"n", "s", "--iterations", "--size", "--random-source"})


def set_aside(program: str, reading: str, verdicts: list[Verdict], ctx: Context,
              whole: int = 1) -> bool:
    """Every ask of ``reading`` (the line with ``program`` standing in, or the commands it
    names alone; ``whole``: how many commands the line has) is one the program alone makes,
    which these words cannot turn into harm (see the module); False for a DENY, a misreading,
    or a reason about anything else."""
    if program not in CLIENTS and program not in ("kubectl", "shred", "bash"):
        return False
    commands = parse(reading).commands
    if program == "ssh" and _ssh_stopped(verdicts, commands):
        return True
    if program == "shred" and whole > 1:
        return False  # another command of the line may make the file first
    for verdict in verdicts:
        if verdict.outcome <= Outcome.ALLOW:
            continue
        if verdict.outcome is Outcome.DENY or verdict.misparsing or not verdict.reasons:
            return False
        if not all(_set_aside(program, reason, commands, ctx) for reason in verdict.reasons):
            return False
    return True


def _set_aside(program: str, reason: Reason, commands: tuple[SimpleCommand, ...],
               ctx: Context) -> bool:
    cmd = next((c for c in commands if c.depth == 0 and _about(reason.command, c.text)), None)
    if cmd is None or cmd.program != program or not cmd.words or cmd.words[0].value != program:
        return False
    if program == "shred":
        return reason.rule_id == ERASE_ID and len(commands) == 1 and _names_nothing(cmd, ctx)
    if program == "bash":
        return reason.rule_id == INTERACTIVE_ID and _stops_bash(cmd.words[1:])
    if reason.rule_id != RISK_ID and not (program == "ssh" and reason.rule_id == SHELL_ID):
        return False
    if cmd.stage > 0 or any(r.feeds_input or r.op.startswith("<") for r in cmd.redirects):
        return False  # its standard input may be the user's
    if program == "kubectl":
        return _no_command(cmd.words[1:])
    return _local_hosts(program, cmd.words[1:])


def _ssh_stopped(verdicts: list[Verdict], commands: tuple[SimpleCommand, ...]) -> bool:
    """ssh stops at an option it does not have, before the host or after it, before it
    connects; so no ask about it (its tier, a remote shell) nor about its remote command
    stands. Not a DENY, nor an ask about anything else (its redirections are made)."""
    ssh = next((c for c in commands if c.depth == 0 and c.program == "ssh" and c.words and
                c.words[0].value == "ssh"), None)
    if ssh is None or not _ssh_usage_error(ssh.words[1:]):
        return False
    remote = " ".join(w.text for w in ssh.words[1:])
    for verdict in verdicts:
        if verdict.outcome <= Outcome.ALLOW:
            continue
        if verdict.outcome is Outcome.DENY or verdict.misparsing or not verdict.reasons:
            return False
        for reason in verdict.reasons:
            if _about(reason.command, ssh.text):
                if reason.rule_id not in (RISK_ID, SHELL_ID):
                    return False
            elif not reason.command or reason.command not in remote or any(
                    c is not ssh and _about(reason.command, c.text) for c in commands):
                return False
    return True


def _ssh_usage_error(words: tuple[Word, ...]) -> bool:
    """OpenSSH reads its options (BSD getopt: up to the first operand, and again after the
    host) and stops with its usage at a letter it does not have (``ssh run --x``: ``-``)."""
    host = False
    index = 0
    while index < len(words):
        word, index = words[index], index + 1
        text = word.value
        if text is None or not word.static:
            return False
        if text == "--":
            return False  # the options end: the rest is the host and the remote command
        if not text.startswith("-") or text == "-":
            if host:
                return False  # the remote command
            host = True
            continue
        for at, letter in enumerate(text[1:], start=1):
            if letter in _SSH_VALUED:
                index += at == len(text) - 1
                break
            if letter not in _SSH_FLAGS:
                return True
    return False


def _about(about: str | None, text: str) -> bool:
    """A reason about ``about`` is about the command whose text is ``text``: the same, or
    with its redirections after it (``shred run > out.txt``)."""
    if about is None or not about.startswith(text):
        return False
    return _REDIRECTIONS.fullmatch(about[len(text):]) is not None


def _local_hosts(program: str, words: tuple[Word, ...]) -> bool:
    """Every word ``program`` takes for a host is one label of this machine's names, and every
    option is one that names nothing that connects (``standinclients.py``)."""
    client = CLIENTS[program]
    operands: list[Word] = []
    index = 0
    while index < len(words):
        word, index = words[index], index + 1
        text = word.value
        if text is None or not word.static:
            return False  # known only at run time: any host
        if operands and client.hosts == "first":
            break  # ssh: the remote command, judged as one by the reading
        if text == "--":
            operands.extend(words[index:])
            break
        if text.startswith("--"):
            if not client.long_options:
                return True  # it stops there, having reached nothing
            name, glued, _ = text.partition("=")
            if reaching(client, name[2:]):
                return False
            index += name in client.long_valued and not glued
            continue
        if text.startswith("-") and len(text) > 1:
            takes = _short(client, text)
            if takes is None:
                return False
            index += takes
            continue
        operands.append(word)
    hosts = operands[:1] if client.hosts == "first" else operands
    return all(_local(w, client.hosts) for w in hosts)


def _short(client: Client, text: str) -> int | None:
    """A cluster of short switches, ending at most in one whose value names nothing that
    connects, glued or the next word: how many words after it are its value (0 or 1); None
    for any other option."""
    for at, letter in enumerate(text[1:], start=1):
        if letter in client.valued:
            return int(at == len(text) - 1)
        if letter not in client.flags:
            return None
    return 0


def _local(word: Word, hosts: str) -> bool:
    text = word.value
    if text is None or not word.static:
        return False
    if hosts == "colon":
        return ":" not in text
    return _LABEL.fullmatch(text) is not None


def _no_command(words: tuple[Word, ...]) -> bool:
    """kubectl given a first word that is none of its commands, or ``run`` without an
    image: it stops with an error (or runs a plugin of that name the user installed)."""
    if not words or words[0].value is None or not words[0].static:
        return False
    first = words[0].value
    if first.startswith("--") and len(first) > 2:  # no abbreviations: one it has not stops it
        return first[2:].partition("=")[0] not in _KUBECTL_FLAGS
    if first.startswith("-"):
        return False
    if first == "run":
        return all(w.value is not None and not w.value.startswith("--image") for w in words)
    return first not in _KUBECTL


def _stops_bash(words: tuple[Word, ...]) -> bool:
    """bash's first word is a long option it does not have: "invalid option", and it exits."""
    if not words or words[0].value is None or not words[0].static:
        return False
    first = words[0].value
    return first.startswith("--") and len(first) > 2 and first[2:] not in _BASH_LONG


def _names_nothing(cmd: SimpleCommand, ctx: Context) -> bool:
    """Each operand of ``shred`` is a literal relative name of no file where it runs."""
    operands = parse_options(cmd.words[1:], takes_value=_SHRED_VALUES).operands
    for word in operands:
        text = word.value
        if text is None or not word.static or not text or text.startswith(("/", "~", "-")) or \
                fsfacts.lexists(os.path.join(ctx.cwd, text)):
            return False
    return bool(operands)
