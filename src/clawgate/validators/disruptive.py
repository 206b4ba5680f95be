"""Commands that disrupt the machine's other users or leave something running: ASK (CG-DEST-)."""

from __future__ import annotations

from clawgate.decision import Risk, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.flags import parse_options
from clawgate.validators.risk import risk_of

_FIREWALLS = frozenset({"iptables", "ip6tables", "iptables-legacy", "iptables-nft", "ebtables"})
_KILLERS = frozenset({"kill", "pkill", "killall", "killall5"})
_PIP = frozenset({"pip", "pip3", "pipx", "uv", "poetry", "pipenv", "pdm", "easy_install"})
_NODE = frozenset({"npm", "yarn", "pnpm", "bun", "npx"})
_INDEX_OPTIONS = frozenset({"--index-url", "--extra-index-url", "--trusted-host", "--find-links",
                            "--registry", "--source", "--index", "--default-index", "--pre-index",
                            "-i", "-f"})
# openvt starts its command on another virtual console, out of the agent's session.
_DETACHERS = frozenset({"nohup", "setsid", "disown", "daemonize", "start-stop-daemon", "openvt"})
_DETACH_PROGRAMS = _DETACHERS | {"screen", "tmux", "docker", "podman"}


@register
class SystemDisruption(Validator):
    """Commands that hit everyone on the machine: ``crontab -r`` (deletes every cron job),
    ``kill -9 -1`` (kills every process you own), ``iptables -F`` (drops the firewall).

    Bad: ``kill -9 -1``. Harmless: ``kill 12345``, ``crontab -l``.
    """

    id = "CG-DEST-006"
    programs = _KILLERS | _FIREWALLS | {"crontab"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program == "crontab" and parse_options(cmd.words[1:]).has("r"):
            return Verdict.ask(self.id, "crontab -r deletes every cron job")
        if program in _KILLERS and (program == "killall5" or "-1" in cmd.args[-1:]):
            return Verdict.ask(self.id, f"{program} signals every process you may signal",
                               hint="kill the process by its id")
        if program in _FIREWALLS:
            options = parse_options(cmd.words[1:], aliases={"--flush": "F",
                                                            "--delete-chain": "X"})
            if options.has("F", "X", "P"):
                return Verdict.ask(self.id, f"{program} flushes or opens the firewall")
        return Verdict.passthrough()


@register
class CustomPackageIndex(Validator):
    """Package installs from an index, registry or URL other than the project's default: a
    look-alike index is the usual way to slip a malicious package in.

    Bad: ``pip install --index-url https://pypi.example.net/simple requests``.
    Harmless: ``pip install -r requirements.txt``.
    """

    id = "CG-DEST-007"
    programs = _PIP | _NODE | {"gem", "cargo"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program not in _PIP and program not in _NODE and program not in {"gem", "cargo"}:
            return Verdict.passthrough()
        if not any(w.value in ("install", "add", "i") for w in cmd.words[1:3]):
            return Verdict.passthrough()
        for word in cmd.words[1:]:
            text = word.shown
            name = text.split("=", 1)[0]
            if name in _INDEX_OPTIONS and (name not in ("-i", "-f") or program in _PIP):
                return Verdict.ask(self.id, f"{program} installs from a custom index ({text})",
                                   hint="install from the project's configured index")
            if text.startswith(("git+", "http://", "https://", "svn+", "hg+")):
                return Verdict.ask(self.id, f"{program} installs straight from {text}",
                                   hint="pin the package in the project's requirements")
        return Verdict.passthrough()


@register
class Detached(Validator):
    """Background and detached processes (``&``, ``nohup``, ``setsid``, ``openvt``,
    ``screen -dm``, ``tmux new -d``, ``docker run -d``) outlive the agent's command and escape
    its timeout.

    A read in the background (``ls &``) finishes on its own and is left alone.

    Bad: ``nohup ./server &``. Harmless: ``./server --port 8080`` (runs in the foreground).
    """

    id = "CG-DEST-008"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program in _DETACH_PROGRAMS else sh.BACKGROUND

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if not cmd.background and program not in _DETACH_PROGRAMS:
            return Verdict.passthrough()
        if cmd.background and risk_of(cmd) is not Risk.LOW:
            return self._ask(f"{program or 'the command'} runs in the background")
        if program in _DETACHERS:
            return self._ask(f"{program} detaches a process from the session")
        args = cmd.args
        if program == "screen" and parse_options(cmd.words[1:]).has("d"):
            return self._ask("screen starts a detached session")
        if program == "tmux" and args[:1] in (("new",), ("new-session",)) and "-d" in args:
            return self._ask("tmux starts a detached session")
        if program in {"docker", "podman"} and {"run", "up"} & set(args) and (
                {"-d", "--detach", "-itd", "-dit"} & set(args)):
            return self._ask(f"{program} starts a detached container")
        return Verdict.passthrough()

    def _ask(self, message: str) -> Verdict:
        return Verdict.ask(self.id, message, hint="run it in the foreground with a timeout")
