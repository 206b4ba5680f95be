"""Commands that disrupt the machine's other users or leave something running: ASK (CG-DEST-)."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Risk, Verdict
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.flags import parse_options
from clawgate.validators.indexhosts import index_kind
from clawgate.validators.paths import resolve, under
from clawgate.validators.risk import risk_of

_FIREWALLS = frozenset({"iptables", "ip6tables", "iptables-legacy", "iptables-nft", "ebtables"})
_KILLERS = frozenset({"kill", "pkill", "killall", "killall5"})
_FIRST_PROCESS = frozenset({"init", "systemd", "1"})  # the names process 1 goes by
# kill's options that take the next word (the signal), and those that end its options
_KILL_VALUE = frozenset({"-s", "-n", "--signal", "-q", "--queue", "--timeout"})
_KILL_STOPS = frozenset({"-l", "-L", "--list", "--table"})
_KILL_FLAGS = frozenset({"-a", "-p", "-r"})  # util-linux kill's flags that are not signals
_PIP = frozenset({"pip", "pip3", "pipx", "uv", "uvx", "poetry", "pipenv", "pdm",
                  "easy_install"})
_NODE = frozenset({"npm", "yarn", "pnpm", "bun", "npx"})
# Runners that fetch what they run, whatever their first word (uvx ruff, npx eslint)
_RUNNERS = frozenset({"npx", "uvx"})
# pip's index options whose value may be glued to the letter (-ihttps://…, -f./dist)
_GLUED = frozenset({"-i", "-f"})
# The subcommands that fetch packages from the index (npx fetches what it runs): a clean
# install, an update, a download or a wheel build reach the index an install does
_FETCHING = frozenset({"install", "add", "i", "ci", "install-test", "it", "install-ci-test",
                       "cit", "update", "up", "upgrade", "download", "wheel", "dlx", "exec",
                       "x", "sync", "lock"})
# A Python runner's run fetches its packages first (pipx run, uv run --with, uv tool run)
_PY_FETCHING = _FETCHING | {"run"}
_INDEX_OPTIONS = frozenset({"--index-url", "--extra-index-url", "--trusted-host", "--find-links",
                            "--registry", "--source", "--index", "--default-index", "--pre-index",
                            "-i", "-f"})
# openvt starts its command on another virtual console, out of the agent's session.
_LOCAL_LINKS = frozenset({"--find-links", "-f"})
_DETACHERS = frozenset({"nohup", "setsid", "disown", "daemonize", "start-stop-daemon", "openvt"})
_DETACH_PROGRAMS = _DETACHERS | {"screen", "tmux", "docker", "podman"}
_LAST_JOB = frozenset({"$!", '"$!"', "${!}", '"${!}"'})
# Constructs that run in a shell of their own: its jobs and traps are not the line's.
_SEPARATE = frozenset({"subshell", "command_substitution", "process_substitution"})


@register
class SystemDisruption(Validator):
    """Commands that hit everyone on the machine: ``crontab -r`` (deletes every cron job),
    ``kill -9 -1`` (kills every process you own), ``kill 1`` and ``pkill init`` (signal the
    machine's first process: as root, the end of the machine or the container),
    ``iptables -F`` (drops the firewall), ``hostname NAME`` (renames the machine).

    Bad: ``kill -9 -1``, ``kill -KILL 1``, ``hostname pwned``. Harmless: ``kill 12345``,
    ``kill -1 12345`` (``-1`` is the signal there), ``crontab -l``, ``hostname -f``.
    """

    id = "CG-DEST-006"
    programs = _KILLERS | _FIREWALLS | {"crontab", "hostname"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program == "crontab" and parse_options(cmd.words[1:]).has("r"):
            return Verdict.ask(self.id, "crontab -r deletes every cron job")
        if program == "killall5" or (program == "kill" and "-1" in _kill_targets(cmd)):
            return Verdict.ask(self.id, f"{program} signals every process you may signal",
                               hint="kill the process by its id")
        if (program == "kill" and "1" in _kill_targets(cmd)) or (
                program in ("pkill", "killall") and _FIRST_PROCESS & {
                    w.value for w in cmd.words[1:] if not (w.value or "-").startswith("-")}):
            return Verdict.ask(self.id, f"{program} signals the machine's first process "
                               "(init): as root that ends the machine or the container",
                               hint="kill the process by its id")
        if program == "hostname" and any(
                value in ("-F", "--file", "-b", "--boot") or value.startswith("--file=")
                or not value.startswith("-") for value in (w.value or "" for w in cmd.words[1:])):
            return Verdict.ask(self.id, "hostname with a name or a file renames the machine")
        if program in _FIREWALLS:
            options = parse_options(cmd.words[1:], aliases={"--flush": "F",
                                                            "--delete-chain": "X"})
            if options.has("F", "X", "P"):
                return Verdict.ask(self.id, f"{program} flushes or opens the firewall")
        return NO_OPINION


@register
class CustomPackageIndex(Validator):
    """Package installs from an index, registry or URL other than the project's default: a
    look-alike index is the usual way to slip a malicious package in. The ecosystem's own
    public index named (``--index-url https://pypi.org/simple``) is no other index; one over
    plain HTTP at a public address is DENY (``indexhosts.py``). Every subcommand that fetches
    packages is an install here (``npm ci``, ``update``, ``pip download``/``wheel``, ``uv
    sync``, ``npx``, ``uvx``, ``pipx run``, ``uv run``): the index each reaches is the one
    given, however spelled (``-ihttps://…``, the value glued to pip's letter).

    Bad: ``pip install --index-url https://pypi.example.net/simple requests``.
    Harmless: ``pip install -r requirements.txt``.
    """

    id = "CG-DEST-007"
    programs = _PIP | _NODE | {"gem", "cargo"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program not in _PIP and program not in _NODE and program not in {"gem", "cargo"}:
            return NO_OPINION
        fetching = _PY_FETCHING if program in _PIP else _FETCHING
        if program not in _RUNNERS and not any(w.value in fetching for w in cmd.words[1:3]):
            return NO_OPINION
        words = cmd.words[:_runner_end(cmd)]
        named_default: set[int] = set()
        for i, word in enumerate(words[1:], 1):
            if i in named_default:
                continue
            text = word.shown
            if program in _PIP and text[:2] in _GLUED and len(text) > 2 and text[2] != "=":
                text = f"{text[:2]}={text[2:]}"  # -ihttps://h/simple: -i https://h/simple
            name = text.split("=", 1)[0]
            if name in _LOCAL_LINKS and program in _PIP and _local_dir(
                    text.split("=", 1)[1] if "=" in text else
                    (words[i + 1].value if i + 1 < len(words) else None), ctx):
                continue  # wheels from a folder of the workspace (``-f dist``): no index
            if name in _INDEX_OPTIONS and (name not in ("-i", "-f") or program in _PIP):
                url = text.split("=", 1)[1] if "=" in text else (
                    words[i + 1].value if i + 1 < len(words) else None)
                kind = "custom" if name == "--trusted-host" else index_kind(url)
                if kind == "default":
                    if "=" not in text:  # the ecosystem's own public index, named
                        named_default.add(i + 1)
                    continue
                if kind == "plain":
                    return Verdict.deny(self.id, f"{program} installs from {url} over plain "
                                        "HTTP at a public address: whoever is on the path "
                                        "chooses the code the install runs",
                                        hint="use the project's index over HTTPS")
                return Verdict.ask(self.id, f"{program} installs from a custom index ({text})",
                                   hint="install from the project's configured index")
            if text.startswith(("git+", "http://", "https://", "svn+", "hg+")):
                return Verdict.ask(self.id, f"{program} installs straight from {text}",
                                   hint="pin the package in the project's requirements")
        return NO_OPINION


def _runner_end(cmd: SimpleCommand) -> int | None:
    """Where a package runner's own words end (``npx [OPTIONS] PACKAGE``, ``npm exec``, ``pnpm
    dlx``, ``yarn dlx``, ``bun x``): after the package, the words are its program's arguments
    (``npx ts-node f.ts --url https://h/x``: an address the script is given, not a package),
    None for any other command (all its words are its own)."""
    from clawgate.validators.argv import command_start
    from clawgate.validators.wraptable import SUBCOMMAND

    sub = cmd.words[1].value if cmd.program != "npx" and len(cmd.words) > 1 else ""
    spec = SUBCOMMAND.get((cmd.program or "", sub or ""))
    if spec is None or (cmd.program, sub) not in _RUNNER_VERBS:
        return None
    start = command_start(cmd.words, 1 if cmd.program == "npx" else 2, spec.options)
    return None if start is None else start + 1


_RUNNER_VERBS = frozenset({("npx", ""), ("npm", "exec"), ("npm", "x"), ("pnpm", "dlx"),
                           ("yarn", "dlx"), ("bun", "x")})


def _local_dir(value: str | None, ctx: Context) -> bool:
    """A ``--find-links`` value naming a folder in the workspace, not an address."""
    if not value or "://" in value or value.startswith(("~", "$")):
        return False
    path = resolve(Word(value, value), ctx).path
    return path is not None and under(path, ctx.workspace)


@register
class Detached(Validator):
    """Detached processes (``nohup``, ``setsid``, ``openvt``, ``screen -dm``, ``tmux new -d``,
    ``docker run -d``) are made to outlive the agent's command, its session and its timeout.
    (A job started with ``&`` is CG-DEST-010's.)

    ``nohup`` in the foreground (``nohup pnpm install``) detaches nothing: the agent waits for
    it and its timeout ends it; only ``nohup … &`` is asked about.

    Bad: ``nohup ./server &``, ``setsid ./server``. Harmless: ``./server --port 8080``,
    ``nohup pnpm install`` (both run in the foreground).
    """

    id = "CG-DEST-008"
    programs = _DETACH_PROGRAMS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program not in _DETACH_PROGRAMS:
            return NO_OPINION
        if program == "nohup" and not cmd.background:
            # In the foreground ``nohup`` keeps the process group, the session and the wait:
            # only a hangup is ignored, and the agent's own timeout still ends it. What it
            # runs is judged as the wrapped command.
            return NO_OPINION
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
        return NO_OPINION

    def _ask(self, message: str) -> Verdict:
        return Verdict.ask(self.id, message, hint="run it in the foreground with a timeout")



@register
class BackgroundJob(LineValidator):
    """A job the line starts in the background and then takes out of its shell's reach: one
    started by a subshell (``(./server &)``, the double-fork idiom: no job of this shell, so
    nothing here can wait for it or end it) or handed over with ``disown``. ASK, unless the
    line bounds it itself (``wait``, ``kill $!``/``%1``/``"$pid"`` after ``pid=$!``, a
    ``trap`` that ends it, ``timeout``).

    A plain ``cmd &`` is left alone: it runs the program that would be judged in the
    foreground, stays in the shell's job table and process group, and clawgate's executors
    end what a call leaves in its process group (and control group) when the call ends; a
    background server is an everyday shape of CI scripts and of agents' sessions (every
    corpus of everyday commands here has it). Detaching with ``nohup``, ``setsid`` or
    ``screen -dm`` is CG-DEST-008's.

    Bad: ``(./server --port 8080 &)``, ``./worker & disown``. Harmless: ``node server.js &``,
    ``make serve & sleep 2; curl -s localhost:8000; wait``.
    """

    id = "CG-DEST-010"

    def line_shapes(self) -> int:
        return ls.AMP

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "&" not in parsed.source:
            return NO_OPINION
        commands = parsed.commands
        for i, cmd in enumerate(commands):
            if not cmd.background or risk_of(cmd) is Risk.LOW or not _detached(commands, i) \
                    or _bounded(commands, i):
                continue
            return Verdict.ask(self.id, f"{cmd.program or 'the command'} runs in the background, "
                               "out of this shell's reach",
                               hint="run it in the foreground with a timeout, or wait for it "
                               "or kill it in the same command").about(cmd.text)
        return NO_OPINION


def _detached(commands: tuple[SimpleCommand, ...], index: int) -> bool:
    """The job is started by a subshell or a nested line, or a later ``disown`` of this shell
    takes it out of the job table."""
    job = commands[index]
    if _SEPARATE.intersection(job.nesting) or job.depth:
        return True
    return any(c.program == "disown" and c.offset > job.offset
               and not _SEPARATE.intersection(c.nesting) for c in commands)


def _bounded(commands: tuple[SimpleCommand, ...], index: int) -> bool:
    """The job started by ``commands[index]`` is waited for or ended later in the line."""
    job = commands[index]
    if job.program == "timeout":
        return True
    if _SEPARATE.intersection(job.nesting):
        return False  # ``(./server &)``: a job of another shell, which nothing here can reach
    shell = [c for c in commands if not _SEPARATE.intersection(c.nesting)]
    if any(c.program == "trap" and len(c.words) > 2 and _trap_ends_all(c.words[1])
           for c in shell):
        return True
    names: set[str] = set()  # variables holding this job's process id
    own = True  # whether ``$!`` still names this job
    for cmd in shell:
        if cmd.offset <= job.offset:
            continue
        if cmd.background:
            own = False  # a later job: ``$!`` names that one now
        for assignment in cmd.assignments:
            if own and assignment.value.text in _LAST_JOB:
                names.add(assignment.name)
        program = cmd.program
        if program == "wait" and len(cmd.words) == 1 and not cmd.pipeline:
            return True  # (in a pipeline, ``wait`` runs in a subshell: it has no jobs)
        if program in ("wait", "kill") and any(_names(w, names, own) for w in cmd.words[1:]):
            return True
        if program == "trap" and len(cmd.words) > 2 and _trap_ends(cmd.words[1], names, own):
            return True
    return False


def _names(word: Word, names: set[str], own: bool) -> bool:
    text = word.text
    if text.startswith("%"):
        return True  # a job specification
    if own and text in _LAST_JOB:
        return True
    bare = text.strip('"').removeprefix("$").strip("{}")
    return text.strip('"').startswith("$") and bare in names


def _trap_ends(code: Word, names: set[str], own: bool) -> bool:
    """``trap 'kill $pid' EXIT``: the code kills this job when the shell ends."""
    text = code.value or code.text
    return "kill" in text and any(_names(Word(w, w), names, own)
                                  for w in text.replace(";", " ").split())


def _trap_ends_all(code: Word) -> bool:
    """``trap 'kill $(jobs -p)' EXIT`` (or ``kill 0``: the whole group), wherever it stands."""
    text = " ".join((code.value or code.text).replace(";", " ").split())
    return any(f" kill {whom} " in f" {text} " for whom in ("$(jobs -p)", "0", "-- -$$"))


def _kill_targets(cmd: SimpleCommand) -> list[str]:
    """The process ids ``kill`` is given: its words after its options. A signal (``-9``,
    ``-KILL``, ``-s KILL``) ends the options: after it, or after ``--``, ``-1`` is a target
    (every process) and not the signal it is when it comes first."""
    words = [w.value or "" for w in cmd.words[1:]]  # a value known only at run time: ""
    index = 0
    while index < len(words):
        word = words[index]
        if word in _KILL_STOPS:
            return []
        if word == "--" or word in _KILL_VALUE:
            return words[index + (1 if word == "--" else 2):]
        if not word.startswith("-") or word == "-":
            break
        index += 1
        if not word.startswith("--") and word not in _KILL_FLAGS:
            break  # the signal
    return words[index:]
