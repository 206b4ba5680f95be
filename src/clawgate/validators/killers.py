"""Signals sent to processes chosen by name, pattern, user or listing, not by id (CG-DEST-017).

A process id names one process. A name or a pattern names whatever matches when it runs: a
pattern that matches the programs an agent session is made of (``pkill -f node``, ``killall
python3``, ``kill $(pgrep -f claude)``: the interpreters agents run in, the agents, editors,
browsers, shells and terminal multiplexers, a script run by an interpreter) ends the agent
itself, the editor or the browser with the task's process. A name of the task's own program
(``killall afl-fuzz``, ``pkill -f pantsd``) is that program. A user (``pkill -u "$USER"``,
``killall -u me``), a pattern every command line matches (``pkill -f .``), ``kill -1`` or a
listing of every process (``kill $(ps -e -o pid=)``, ``ps -eo pid= | xargs kill``) names all
of them: the session, the agent and the user's work end at once.

What the selection is, is read from the words the killer is given and, for ``kill`` and
``xargs kill``, from the command that lists the ids: a substitution in ``kill``'s operands or
the stages of the pipeline that feeds ``xargs``. Ids read from a port (``lsof -ti :3000``),
from a pid file, from the shell's own jobs (``jobs -p``, ``$!``) or the shell's own children
(``pkill -P $$``) name the processes the line itself started or chose.
"""

from __future__ import annotations

import shlex

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.flags import parse_options

ID = "CG-DEST-017"
_BY_NAME = frozenset({"pkill", "killall", "skill"})
_KILLERS = _BY_NAME | {"kill", "killall5"}
# A signal word: -9, -KILL, -SIGTERM, -USR1 (two capitals or more: a single one, -U, -P or
# -G, is an option of pkill's)
_SIGNAL = lazy_pattern(r"^-(?:\d+|(?:SIG)?[A-Z]{2,}[0-9+-]*[A-Z0-9]*)$")
# Patterns that match every process name or command line
_EVERYTHING = frozenset({"", ".", ".*", ".+", "^", "$", "^.*", "^.*$", "*", "[^ ]*"})
# The shell's own process and its children: what the line itself started
_OWN = frozenset({"$$", "${$}", "$BASHPID", "${BASHPID}", "$!", "${!}"})
_PARENT = frozenset({"$PPID", "${PPID}", "-$PPID", "-${PPID}"})
# pkill's and pgrep's options that take a value, and killall's
_PGREP_VALUES = frozenset({"d", "g", "G", "P", "s", "t", "u", "U", "F", "--signal", "--ns",
                           "--nslist", "--delimiter", "--pgroup", "--group", "--parent",
                           "--session", "--terminal", "--euid", "--uid", "--pidfile"})
_PGREP_ALIASES = {"--euid": "u", "--uid": "U", "--parent": "P", "--pgroup": "g",
                  "--group": "G", "--pidfile": "F", "--full": "f"}
_KILLALL_VALUES = frozenset({"u", "s", "o", "y", "n", "Z", "--user", "--signal",
                             "--older-than", "--younger-than", "--ns", "--context"})
_KILLALL_ALIASES = {"--user": "u", "--regexp": "r"}
# What the listings of process ids select
ALL, PATTERN, OWN = "all", "pattern", "own"
# The programs an agent session is made of, as process names and command-line words: the
# interpreters agents run in, the agents, the editors and browsers beside them, shells and
# terminal multiplexers, and git (an agent's command line holds the task's words: git's too)
_SESSION = ("node", "nodejs", "python", "python3", "dotnet", "bun", "deno", "java", "ruby",
            "claude", "codex", "gemini", "copilot", "cursor", "cursor-agent", "aider", "goose",
            "opencode", "code", "code-insiders", "electron", "firefox", "chrome", "chromium",
            "bash", "zsh", "sh", "fish", "tmux", "screen", "sshd", "ssh", "git")
# A script an interpreter runs (``cli.py``, ``server.js``): the agent is one
_SCRIPT = lazy_pattern(r"\.(?:py|js|mjs|cjs|ts|rb)\b")


def _session_pattern(pattern: str, exact: bool) -> bool:
    """``pattern`` (an extended regular expression as pkill and pgrep search process names
    or command lines with it, or killall's exact name) can match a program of the agent's
    session; an unreadable pattern can match anything."""
    import re

    if exact:
        return pattern in _SESSION or _SCRIPT.search(pattern) is not None
    if _SCRIPT.search(pattern) or any(w in _SESSION for w in pattern.split()[:1]):
        return True  # a command line that starts with a session program's name
    try:
        found = re.compile(pattern)
    except re.error:
        return True
    return any(found.search(name) for name in _SESSION)


def _without_signals(words: tuple[Word, ...]) -> tuple[Word, ...]:
    return tuple(w for w in words if not (w.value is not None and _SIGNAL.match(w.value)))


def by_name(cmd: SimpleCommand) -> str | None:
    """What ``pkill``/``killall``/``skill`` select: ALL (a user's every process, a
    pattern that matches everything), PATTERN (a name or pattern), OWN (the shell's own
    children, a pid file) or None (nothing: a listing, a help text)."""
    words = _without_signals(cmd.words[1:])
    if cmd.program == "killall":
        options = parse_options(words, aliases=_KILLALL_ALIASES, takes_value=_KILLALL_VALUES)
        names = options.operand_values
        if options.has("l", "--list", "V", "--version", "h", "--help"):
            return None
        if not names:
            return ALL if options.has("u") else None
        if options.has("r") and any(n in _EVERYTHING for n in names):
            return ALL
        regex = options.has("r")
        return PATTERN if any(_session_pattern(n, exact=not regex) for n in names) else OWN
    if cmd.program == "skill":
        options = parse_options(words, takes_value=frozenset({"t", "u", "p", "c"}))
        if options.has("l", "L", "V", "h"):
            return None
        return ALL if options.has("u") and not options.has("p", "c", "t") else PATTERN
    options = parse_options(words, aliases=_PGREP_ALIASES, takes_value=_PGREP_VALUES)
    if options.has("V", "--version", "h", "--help"):
        return None
    return _pgrep_selection(options.operand_values, options.value("P"), options.has("F"),
                            options.has("u", "U", "g", "G", "s", "t"))


def _pgrep_selection(patterns: tuple[str, ...], parent: str | None, pidfile: bool,
                     narrowed: bool) -> str | None:
    if parent is not None and parent in _OWN:
        return OWN
    if pidfile and not patterns:
        return OWN
    if not patterns:
        return ALL if narrowed else None
    if any(p in _EVERYTHING for p in patterns):
        return ALL
    return PATTERN if any(_session_pattern(p, exact=False) for p in patterns) else OWN


def listing(stages: list[list[str]]) -> str | None:
    """What the process ids a pipeline prints select (its stages as argv lists): ALL for a
    listing of every process (``ps -e``, ``ps aux``, ``pgrep -u me``) that no stage narrows
    by a pattern, PATTERN for one narrowed (``ps aux | grep node``, ``pgrep -f vite``), OWN for
    ids of the line's own making (``jobs -p``, ``cat x.pid``, ``lsof -ti :3000``), None when
    the first stage is no process listing."""
    if not stages or not stages[0]:
        return None
    first = stages[0][0].rsplit("/", 1)[-1]
    greps = [s for s in stages[1:] if s and s[0].rsplit("/", 1)[-1] in (
        "grep", "egrep", "fgrep", "rg", "ag")]
    filters = bool(greps) or any(s and s[0] in ("awk", "gawk", "mawk") and any(
        "/" in a for a in s[1:]) for s in stages[1:])
    if first == "ps":
        args = " ".join(stages[0][1:])
        every = any(f in f" {args} " for f in (" -e", " -A", " ax", " aux", " -ax", " -aux",
                                               " -u", " -U", " --user", " x ", " -x"))
        if not filters:
            return ALL if every else PATTERN
        grepped = [a for s in greps for a in s[1:] if not a.startswith("-")]
        if grepped and not any(_session_pattern(w, exact=False) for w in grepped):
            return OWN  # the task's own program, found by name
        return PATTERN
    if first in ("pgrep", "pidof"):
        words = tuple(Word(a, a) for a in _plain(stages[0][1:]))
        if first == "pidof":
            names = [w.shown for w in words if not w.shown.startswith("-")]
            return PATTERN if any(_session_pattern(n, exact=True) for n in names) else OWN
        options = parse_options(words, aliases=_PGREP_ALIASES, takes_value=_PGREP_VALUES)
        chosen = _pgrep_selection(options.operand_values, options.value("P"), options.has("F"),
                                  options.has("u", "U", "g", "G", "s", "t"))
        return PATTERN if filters and chosen == ALL else chosen
    return OWN


def _plain(args: list[str]) -> list[str]:
    return [a for a in args if not _SIGNAL.match(a)]


def substitution_stages(text: str) -> list[list[str]] | None:
    """The stages of the command substitution a word is (``$(ps -e -o pid=)``, backquotes),
    as argv lists; None when the word is no substitution or its text does not split."""
    inner = text.strip('"')
    if inner.startswith("$(") and inner.endswith(")"):
        inner = inner[2:-1]
    elif inner.startswith("`") and inner.endswith("`"):
        inner = inner[1:-1]
    else:
        return None
    try:
        return [shlex.split(part) for part in inner.split("|")]
    except ValueError:
        return [["?"]]


def kill_targets(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """``kill``'s operands after its options and signal (``-1`` after a signal is a target)."""
    index = 0
    while index < len(words):
        text = words[index].shown
        if text in ("-l", "-L", "--list", "--table"):
            return ()
        if text == "--":
            return words[index + 1:]
        if text in ("-s", "-n", "--signal", "-q", "--queue", "--timeout"):
            index += 2
            return words[index:]
        if not text.startswith("-") or text == "-":
            break
        index += 1
        if not text.startswith("--") and text not in ("-a", "-p", "-r"):
            break  # the signal
    return words[index:]


def _signal_zero(cmd: SimpleCommand) -> bool:
    values = [w.shown for w in cmd.words[1:3]]
    return values[:1] in (["-0"], ["-s0"]) or values[:2] in (["-s", "0"], ["-n", "0"])


def judge(selection: str | None, program: str, how: str, rule: str = ID) -> Verdict:
    if selection == ALL:
        return Verdict.deny(rule, f"{program} {how} every process the user may signal: the "
                            "session, the agent and every program of the user end at once",
                            hint="kill the processes the task started, by their ids")
    if selection == PATTERN:
        return Verdict.ask(rule, f"{program} {how} whatever a name or pattern matches when it "
                           "runs: the agent's own process, the editor or the browser may be "
                           "among them", hint="find the process id first and kill that id")
    return NO_OPINION


@register
class BroadKill(Validator):
    """Signals sent to processes chosen by user, by pattern or name, or by a listing of every
    process, rather than by id: DENY for every process (``kill -9 -1``, ``pkill -u "$USER"``,
    ``pkill -f .``, ``kill $(ps -e -o pid=)``), ASK for a name or pattern (``pkill -f node``,
    ``killall python3``, ``kill $(pgrep -f vite)``) and for the shell's parent (``kill
    $PPID``: the agent) or its whole process group (``kill 0``).

    Bad: ``pkill -9 -u "$USER"``, ``killall node``. Harmless: ``kill 48213``, ``kill %1``,
    ``pkill -P $$``, ``kill "$(cat .devserver.pid)"``, ``kill -0 "$pid"``.
    """

    id = ID
    programs = _KILLERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program or ""
        if program == "killall5":
            return judge(ALL, program, "signals")
        if program in _BY_NAME:
            return judge(by_name(cmd), program, "signals")
        if program != "kill" or _signal_zero(cmd):
            return NO_OPINION
        targets = kill_targets(cmd.words[1:])
        found: str | None = None
        for word in targets:
            text = word.shown
            if text == "-1":
                return judge(ALL, program, "with -1 signals")
            if text in _PARENT or text in ("0", "-0"):
                found = found or PATTERN
                continue
            stages = substitution_stages(word.text)
            if stages is not None:
                chosen = listing(stages)
                if chosen == ALL:
                    return judge(ALL, program, "given a listing of")
                if chosen == PATTERN:
                    found = PATTERN
        if found == PATTERN:
            return Verdict.ask(ID, "kill signals the shell's parent, its process group, or "
                               "what a name or pattern matches: the agent's own process may "
                               "be among them", hint="kill the process by its id")
        return NO_OPINION


@register
class FedKill(LineValidator):
    """``xargs kill`` fed by a listing of processes: judged by what the listing selects, as
    ``kill $(…)`` is (``ps -eo pid= | xargs kill -9``: every process, DENY; ``pgrep -f vite
    | xargs kill``: a pattern, ASK; ``lsof -ti :3000 | xargs kill``, ``jobs -p | xargs kill``:
    the ids the line chose).

    Bad: ``ps -eo pid= | xargs kill -9``. Harmless: ``lsof -ti tcp:3000 | xargs kill``.
    """

    id = "CG-DEST-018"

    def line_shapes(self) -> int:
        return 0

    def line_programs(self) -> frozenset[str]:
        return frozenset({"xargs"})

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        verdicts: list[Verdict] = []
        commands = parsed.commands
        for index, cmd in enumerate(commands):
            if cmd.program != "xargs" or cmd.stage == 0 or _template(cmd) not in _KILLERS:
                continue
            feeders = [c for c in commands[:index] if c.pipeline == cmd.pipeline
                       and c.nesting == cmd.nesting and c.stage < cmd.stage]
            stages = [list(c.argv) for c in sorted(feeders, key=lambda c: c.stage)]
            verdict = judge(listing(stages), "xargs kill", "fed a listing signals", self.id)
            if verdict is not NO_OPINION:
                verdicts.append(verdict)
        if not verdicts:
            return NO_OPINION
        return max(verdicts, key=lambda v: v.outcome)


_XARGS_VALUES = frozenset({"-n", "-I", "-L", "-P", "-d", "-a", "-E", "-s", "-i", "-l", "-e",
                           "--max-args", "--max-lines", "--max-procs", "--delimiter",
                           "--arg-file", "--eof", "--max-chars", "--replace"})


def _template(cmd: SimpleCommand) -> str | None:
    """The program ``xargs`` runs: its first word after its options."""
    words = cmd.argv[1:]
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            index += 1
            break
        if not word.startswith("-"):
            break
        index += 2 if word in _XARGS_VALUES else 1
    return words[index].rsplit("/", 1)[-1] if index < len(words) else None
