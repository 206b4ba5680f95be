"""ssh run in a mode that reaches no shell: ``-G`` prints the configuration it would use and
exits, ``-Q`` lists what it supports, ``-O check|exit|stop`` speaks to a running master over its
local socket; and a code forge's git account (``ssh -T git@github.com``), which has no shell
and answers a connection without a command with a greeting that names the key's owner."""

from __future__ import annotations

from clawgate.shell.model import SimpleCommand

# ssh's options that take a value (the letters of ``man ssh``'s synopsis)
_VALUED = frozenset("BbcDEeFIiJLlmOopQRSWw")
_LOCAL_CONTROL = frozenset({"check", "exit", "stop"})
# Hosts whose ssh service is a forge's git endpoint: its account runs git's commands only
_FORGES = frozenset({"github.com", "ssh.github.com", "gitlab.com", "bitbucket.org",
                     "codeberg.org", "ssh.dev.azure.com", "vs-ssh.visualstudio.com",
                     "git.sr.ht", "gitea.com"})


# ssh's options that only choose how to connect and authenticate (-i, -p, -4, -v …)
_GREETING_LETTERS = frozenset("Tqv46xakntCipbcme")
_GREETING_SETTINGS = frozenset("""identityfile identitiesonly batchmode connecttimeout
connectionattempts stricthostkeychecking loglevel preferredauthentications
pubkeyauthentication passwordauthentication kbdinteractiveauthentication serveraliveinterval
serveralivecountmax port compression addressfamily ciphers macs kexalgorithms
hostkeyalgorithms pubkeyacceptedalgorithms pubkeyacceptedkeytypes requesttty tcpkeepalive
checkhostip hashknownhosts visualhostkey""".split())


def _options(cmd: SimpleCommand) -> tuple[list[tuple[str, str]], list[str]] | None:
    """(each option as (letter, value), the operands), or None when a word is not known."""
    values = [w.value for w in cmd.words[1:]]
    if any(v is None for v in values):
        return None
    words = [v for v in values if v is not None]
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        word = words[i]
        for at, letter in enumerate(word[1:], start=1):
            if letter in _VALUED:
                rest = word[at + 1:]
                if not rest:
                    i += 1
                    rest = words[i] if i < len(words) else ""
                found.append((letter, rest))
                break
            found.append((letter, ""))
        i += 1
    operands = words[i + 1:] if i < len(words) and words[i] == "--" else words[i:]
    return found, operands


def ssh_local(cmd: SimpleCommand) -> bool:
    """``cmd`` is ssh in a mode that connects to no machine (``ssh -G host``, ``ssh -O check
    host``, ``ssh -Q cipher``)."""
    if cmd.program != "ssh":
        return False
    parsed = _options(cmd)
    if parsed is None:
        return False
    options = parsed[0]
    letters = {letter for letter, _ in options}
    if "E" in letters:
        return False  # -E FILE appends ssh's log to FILE: a write, wherever it is
    if "G" in letters or "Q" in letters:
        return True
    controls = [value for letter, value in options if letter == "O"]
    return bool(controls) and all(c in _LOCAL_CONTROL for c in controls)


def forge_greeting(cmd: SimpleCommand) -> bool:
    """``ssh [-T] git@FORGE`` with no command: the forge's git account answers with a greeting
    (an authentication check) and closes; no shell runs there."""
    if cmd.program != "ssh":
        return False
    parsed = _options(cmd)
    if parsed is None:
        return False
    options, operands = parsed
    if len(operands) != 1 or not all(_greeting_option(letter, value)
                                     for letter, value in options):
        return False  # a command after the host, or an option that does more than connect
    user, _, host = operands[0].rpartition("@")
    return user == "git" and host.lower() in _FORGES


def _greeting_option(letter: str, value: str) -> bool:
    """An option that changes only how ssh connects to the forge and authenticates there:
    not where it goes (``-J``, ``-o HostName=``), what it forwards or sends (``-A``, ``-L``,
    ``-R``, ``-D``, ``-W``, ``-o SendEnv=``), what it writes (``-E FILE``, ``-o
    UserKnownHostsFile=``) or loads (``-I LIB``, ``-o PKCS11Provider=``), nor its
    configuration (``-F``)."""
    if letter == "o":
        key = value.replace("=", " ").split(maxsplit=1)[0].lower() if value.strip() else ""
        return key in _GREETING_SETTINGS
    return letter in _GREETING_LETTERS
