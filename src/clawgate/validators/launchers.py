"""Programs that are launchers by nature: schedulers, terminal multiplexers, file managers and
consoles that run shells, remote-control listeners and ``shell``/``console`` subcommands."""

from __future__ import annotations

import shlex

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.records import replace
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.agents import agent_query
from clawgate.validators.argv import command_start, opts
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.djangoshell import INTERACTIVE, as_python, shell_code
from clawgate.validators.programs import words_of
from clawgate.validators.risktables import DPKG_UNPACKS
from clawgate.validators.wrappers import runs_command

_SCHEDULERS = {"at": {"-l", "-r", "-d", "-c"}, "batch": set(), "crontab": {"-l"},
               "run-parts": {"--test", "--list"}, "atq": None, "atrm": None}
_MULTIPLEXER_READS = frozenset({"ls", "list-sessions", "list-windows", "list-panes", "-V",
                                "has-session", "has", "kill-session", "kill-server",
                                "display-message", "capture-pane", "-ls", "-list",
                                # tmux's verbs that print, name or move focus and run nothing
                                "display", "lsw", "lsp", "lsk", "list-keys", "list-buffers",
                                "lsb", "show-options", "show", "showw", "show-window-options",
                                "show-buffer", "showb", "list-clients", "lsc",
                                "rename-window", "renamew", "rename-session", "rename",
                                "select-window", "selectw", "select-pane", "selectp"})
_TERMINAL_APPS = words_of("""
tmux tmate byobu ranger mc nnn lf vifm ncdu minicom picocom opencode aider claude codex
""")
_SELF_DESCRIBING = frozenset({"--version", "-v", "--help", "-h", "version", "help"})
_SHELL_SUBCOMMANDS = sh.SESSION_WORDS
# Programs whose first word names a target or recipe of the project's own build file, not a
# subcommand of the program: ``make shell`` runs what the Makefile says, as ``npm run shell``
# runs what package.json says.
_RECIPE_RUNNERS = words_of("make gmake bmake remake ninja just mage")
# Subcommands spelled like a session that open none, by each program's documentation: ``dbt
# debug`` tests the connection and prints what it found; ``pyenv shell 3.11`` (and its kin)
# sets the version for the current shell through a variable.
_NOT_SESSIONS = {"dbt": frozenset({"debug"}),
                 **dict.fromkeys(words_of("pyenv rbenv nodenv goenv jenv plenv phpenv"),
                                 frozenset({"shell"}))}
_SUBCOMMAND_READERS = words_of("man help tldr info git cargo go pip npm echo printf")
_PACKAGE_MANAGERS = words_of("dpkg rpm yum dnf zypper apt apt-get snap pkg opkg apk pacman "
                             "flatpak installer gdebi")
_PACKAGE_FILE = lazy_pattern(r"\.(?:deb|rpm|snap|txz|tbz|pkg|ipk|apk|flatpak|flatpakref|"
                             r"pkg\.tar(?:\.\w+)?)$")
_TMUX_GLOBAL = opts("LSfcT", "")
_TMUX_OPTIONS = opts("sntcxyeFlf", "")  # the options of these subcommands that take a word
_TMUX_RUNS = frozenset({"new", "new-session", "neww", "new-window", "splitw", "split-window",
                        "respawnp", "respawn-pane", "respawnw", "respawn-window", "run",
                        "run-shell", "popup", "display-popup"})
_TMUX_TYPES = frozenset({"send", "send-keys"})
# Verbs that keep a tmux command to run later (a hook, a key binding) or run one on a
# condition, and the options of them that take a word.
_TMUX_KEEPS = frozenset({"set-hook", "bind-key", "bind", "if-shell", "if"})
_TMUX_KEEP_OPTIONS = opts("tTN", "")
# tmux's option naming the command every new window starts (``set -g default-command …``).
_TMUX_SETS = frozenset({"set", "set-option", "setw", "set-window-option"})
_TMUX_COMMAND_OPTIONS = frozenset({"default-command", "default-shell"})
_TMUX_KEYS = frozenset({"Enter", "C-m", "C-j", "KPEnter", "Escape", "C-c", "C-d", "Space"})
_FZF_RUN = lazy_pattern(r"(?:execute(?:-silent)?|become|reload|preview)\s*[(:]|--listen")


@register
class Scheduler(Validator):
    """``at``, ``batch``, ``crontab`` and ``run-parts`` run commands later or run whatever a
    directory holds: the payload cannot be seen here. ASK (listing is fine).

    Bad: ``echo /tmp/x | at now``, ``run-parts /tmp/dir``. Harmless: ``crontab -l``.
    """

    id = "CG-ESC-008"
    programs = frozenset(_SCHEDULERS)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program not in _SCHEDULERS:
            return NO_OPINION
        reads = _SCHEDULERS[program]
        if reads is None or reads.intersection(cmd.args):
            return NO_OPINION
        return Verdict.ask(self.id, f"{program} runs commands that cannot be reviewed here",
                           hint="run the command directly")


@register
class TerminalLauncher(Validator):
    """Terminal multiplexers, file managers and agent consoles (``tmux``, ``screen``,
    ``ranger``, ``mc``, ``minicom``, ``ncdu``) open shells or run commands from keystrokes;
    ``fzf --bind …execute(…)``/``--listen`` runs or accepts commands: ASK.

    Bad: ``tmux -S /tmp/sock``, ``ranger``. Harmless: ``tmux ls``, ``fzf --height 40%``.
    """

    id = "CG-ESC-009"
    programs = _TERMINAL_APPS | {"fzf"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program == "fzf":
            if any(_FZF_RUN.search(a) for a in cmd.args):
                return Verdict.ask(self.id, "fzf runs commands from key bindings or a socket")
            return NO_OPINION
        if program not in _TERMINAL_APPS:
            return NO_OPINION
        if _MULTIPLEXER_READS.intersection(cmd.args[:1]) or "-V" in cmd.args or (
                len(cmd.args) == 1 and cmd.args[0] in _SELF_DESCRIBING) or agent_query(cmd):
            return NO_OPINION  # tmux ls, claude --version, claude mcp list
        lines = tmux_commands(cmd) if program in ("tmux", "tmate") else []
        return Verdict.unwrap(*lines, outcome=Outcome.ASK, rule_id=self.id,
                              message=f"{program} is an interactive program that runs shells",
                              ) if lines else Verdict.ask(
            self.id, f"{program} is an interactive program that runs shells",
            hint="run the command itself")


def tmux_commands(cmd: SimpleCommand) -> list[str]:
    """The shell command of ``tmux new-session|new-window|split-window|respawn-pane|
    run-shell|display-popup … CMD`` and the line typed by ``send-keys … Enter``, where
    literal."""
    words = cmd.words
    at = command_start(words, 1, _TMUX_GLOBAL)
    sub = words[at].value if at is not None else None
    if at is not None and sub in _TMUX_KEEPS | _TMUX_SETS:
        return _kept_commands(cmd, at, sub)
    if at is None or (sub not in _TMUX_RUNS and sub not in _TMUX_TYPES):
        return []
    start = command_start(words, at + 1, _TMUX_OPTIONS)
    rest = [w.value for w in words[start:]] if start is not None else []
    if not rest or any(v is None for v in rest):
        return []
    texts = [v for v in rest if v is not None]
    if sub in _TMUX_TYPES:
        texts = [t for t in texts if t not in _TMUX_KEYS]
    return [" ".join(texts)] if texts else []


def _kept_commands(cmd: SimpleCommand, at: int, sub: str | None) -> list[str]:
    """What a hook, a key binding, a condition or ``default-command`` will run: the tmux
    command it keeps (``set-hook -g NAME 'run-shell "CMD"'``, ``bind-key KEY run-shell CMD``),
    as a ``tmux`` line of its own, and the shell line ``if-shell`` tests or ``default-command``
    starts."""
    start = command_start(cmd.words, at + 1, _TMUX_KEEP_OPTIONS)
    rest = [w.value for w in cmd.words[start:]] if start is not None else []
    if not rest or any(v is None for v in rest):
        return []
    texts = [v for v in rest if v is not None]
    if sub in _TMUX_SETS:
        return texts[1:2] if texts[0] in _TMUX_COMMAND_OPTIONS else []
    if sub == "set-hook":
        return [f"tmux {texts[-1]}"] if len(texts) > 1 else []
    if sub in ("bind-key", "bind"):
        return [f"tmux {shlex.join(texts[1:])}"] if len(texts) > 1 else []
    return [texts[0], *(f"tmux {t}" for t in texts[1:3])]  # if-shell SHELL-CMD CMD [CMD]


@register
class ShellSubcommand(Validator):
    """A subcommand that opens an interactive shell, console or tunnel (``poetry shell``,
    ``rails console``, ``ansible-test shell``, ``code tunnel``): a launcher. ASK.

    A wrapper subcommand given a command (``devenv shell -- make``, ``nix shell pkg -c jq``)
    runs that command, checked as itself (CG-WRAP-001); without one it opens a shell.

    A target of the project's build file (``make shell``, ``just debug``) is the project's
    recipe, not a session of make's; ``debug`` given to a project's script (``./build.sh
    debug``) names a build, and a few programs' ``debug`` or ``shell`` open no session (``dbt
    debug``, ``pyenv shell 3.11``).

    Django's ``shell`` (``./manage.py shell``, ``python manage.py shell``, ``django-admin
    shell``) opens a console; with ``-c CODE`` it runs CODE and exits, judged as ``python3
    -c CODE``.

    Bad: ``cdist shell -s /bin/sh``. Harmless: ``man shell`` (a page, not a shell).
    """

    id = "CG-ESC-010"

    def shapes(self, program: str | None) -> int:
        return 0 if program is None or program in _SUBCOMMAND_READERS else sh.SESSION

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program is None or len(cmd.words) < 2 or program in _SUBCOMMAND_READERS:
            return NO_OPINION
        code = shell_code(cmd)
        if code == INTERACTIVE:
            return Verdict.ask(self.id, "Django's shell opens an interactive console",
                               hint="give it the code to run with -c")
        if code is not None:
            return Verdict.unwrap(as_python(code))  # the code, judged as python -c CODE
        sub = cmd.words[1].value
        if sub not in _SHELL_SUBCOMMANDS or runs_command(cmd):
            return NO_OPINION  # devenv shell -- make: make, checked as itself
        if program in _RECIPE_RUNNERS or sub in _NOT_SESSIONS.get(program, ()) or (
                sub == "debug" and "/" in (cmd.words[0].value or "")):
            return NO_OPINION  # make debug, dbt debug, ./build.sh debug: no session
        return Verdict.ask(self.id, f"{program} {sub} opens an interactive session",
                           hint="run the command you need directly")


@register
class LocalPackage(Validator):
    """A system package installed from a local file (``dpkg -i x.deb``, ``rpm -ivh x.rpm``,
    ``snap install x.snap --dangerous``): its install scripts run as root and cannot be read
    here. ASK.

    ``dpkg -x PKG DIR`` installs nothing: it unpacks the package's files into DIR, and is
    judged as the extraction it is (``tar -xf PKG -C DIR``); ``dpkg -c``/``-I`` only list.

    Bad: ``dpkg -i x_1.0_all.deb``. Harmless: ``dpkg -l``, ``apt-get install jq`` (from the
    distribution's repositories, judged by the risk tier), ``dpkg -x x.deb out/``.
    """

    id = "CG-ESC-012"
    programs = _PACKAGE_MANAGERS | {"dpkg-deb"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program == "dpkg-deb":
            return _unpacked(cmd) if DPKG_UNPACKS & set(cmd.args) else NO_OPINION
        if cmd.program not in _PACKAGE_MANAGERS:
            return NO_OPINION
        local = next((a for a in cmd.args if _PACKAGE_FILE.search(a)), None)
        if local is None:
            return NO_OPINION
        if cmd.program in ("dpkg", "dpkg-deb") and DPKG_UNPACKS & set(cmd.args):
            return _unpacked(cmd)
        return Verdict.ask(self.id, f"{cmd.program} installs {local!r}, whose scripts run as "
                           "root", hint="inspect the package first")


_DPKG_EXTRACTS = frozenset({"-x", "--extract", "-X", "--vextract", "-e", "--control"})


def _unpacked(cmd: SimpleCommand) -> Verdict:
    """``dpkg -x PKG DIR`` as ``tar -xf PKG -C DIR``; a listing: no opinion."""
    words = cmd.words[1:]
    at = next((i for i, w in enumerate(words) if w.value in _DPKG_EXTRACTS), None)
    if at is None:
        return NO_OPINION
    rest = [w for w in words[at + 1:] if not (w.value or "").startswith("-")]
    if len(rest) < 2:
        return NO_OPINION
    head = (Word("tar", "tar"), Word("-xf", "-xf"), rest[0], Word("-C", "-C"), rest[1])
    return Verdict.unwrap(replace(cmd, words=head, text=" ".join(w.text for w in head),
                                  depth=cmd.depth + 1))
