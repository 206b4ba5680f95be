"""Risk tiers of a simple command: low reads, medium changes the workspace, high reaches out."""

from __future__ import annotations

from clawgate.decision import Risk
from clawgate.shell.model import SimpleCommand

READ_ONLY = frozenset("""
cat head tail less more ls ll dir tree pwd echo printf wc sort uniq cut tr grep egrep fgrep rg ag
ack find locate which whereis type file stat du df free uptime uname hostname whoami id groups date
cal env printenv diff cmp comm column fold fmt nl od hexdump xxd strings md5sum sha1sum sha256sum
sha512sum cksum b2sum basename dirname realpath readlink jq yq true false test [ [[ seq expr bc
ps pgrep top htop lsof lsblk lscpu lsusb lspci man info help history whatis apropos tldr w who
last finger getent nproc tty sleep yes look rev tac paste join split csplit expand unexpand iconv
""".split())
NETWORK = frozenset("""
curl wget ssh scp sftp rsync nc ncat netcat socat telnet ftp ping traceroute dig nslookup host
whois nmap http https aria2c lftp mosh
""".split())
SEMANTIC_LOW_SUBCOMMANDS = {
    "git": frozenset({"status", "log", "diff", "show", "branch", "blame", "grep", "ls-files",
                      "rev-parse", "describe", "shortlog", "reflog", "remote", "tag", "config"}),
}


def risk_of(cmd: SimpleCommand) -> Risk:
    """The tier from the program alone; validators may raise it with their verdicts."""
    program = cmd.program
    if program is None:
        return Risk.HIGH
    if not cmd.words:
        return Risk.LOW
    if program in NETWORK:
        return Risk.HIGH
    if any(r.writes for r in cmd.redirects):
        return Risk.MEDIUM
    if program in READ_ONLY:
        return Risk.LOW
    subcommands = SEMANTIC_LOW_SUBCOMMANDS.get(program)
    if subcommands is not None and len(cmd.words) > 1 and cmd.words[1].value in subcommands:
        return Risk.LOW
    return Risk.MEDIUM
