"""Obfuscating rewrites of a command that keep its meaning, and wrappers around a line.

A rewrite is built in three layers: (1) for programs with getopt-style flags, flags split,
merged or moved after the operands (the argv changes, its meaning to that program does not);
(2) the argv written word by word (``_render``) and joined by spaces, ``${IFS}`` or a brace
expansion, behind env prefixes, no-op redirections and wrappers that run their argument
unchanged (``exec``, ``env -S '…'``, ``bash -c '"$@"' bash …``, ``xargs``,
``find . -maxdepth 0 -exec …``), or set as an array or the positional parameters first;
(3) the line in a subshell, group, function, one-pass loop or ``if true``, under ``bash -c``
or ``eval``, fed to ``bash`` by a here-string, a pipe or a process substitution (or sourced
from one), chained with harmless commands, or sent through a base64 round trip.
"""

from __future__ import annotations

import base64
import functools
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from clawgate.testing._grammar import before_closer
from clawgate.testing._render import Preamble, render_argv, single

# Flags these programs take without an argument (GNU getopt: clusters split, options permute).
GETOPT_FLAGS: dict[str, str] = {
    "rm": "rfRidvI", "cp": "rRfaivpnuxl", "mv": "fivnu", "ln": "sfnvr", "chmod": "Rfvc",
    "chown": "Rfhvc", "chgrp": "Rfhvc", "ls": "laARhtrS1dF", "mkdir": "pv", "rmdir": "pv",
    "grep": "rRinvlcwxEFHsq", "touch": "acm", "shred": "fuvz", "du": "shac",
}
# Shell builtins that no external wrapper (env, nice, timeout ...) can run.
BUILTINS_ONLY = frozenset({
    "cd", "export", "source", ".", "eval", "exec", "set", "unset", "alias", "history", "exit",
    "shopt", "ulimit", "umask", "trap", "read", "wait", "jobs", "fg", "bg", "declare", "local",
    "readonly", "builtin", "command", "hash", "type", "return",
})
PREFIX_WRAPPERS = ("env", "command", "nice -n 0", "timeout 600", "nohup", "stdbuf -o0",
                   "env --")
ENV_PREFIXES = ("CG_FUZZ=1", "TZ=UTC", "NO_COLOR=1")
# What runs the argv other than the shell itself (see ``_command``).
RUNNERS = ("xargs", "array", "set-args", "dollar-at", "env-split", "find-exec")
# Redirections that change nothing, written before the program's name (bash allows that).
NOOP_REDIRECTS = ("2>&2", ">&1", "1>&1")
# Words ``env -S`` reads back as they are (it splits on blanks and reads quotes, backslashes,
# ``#`` and ``${…}`` itself).
_SPLIT_STRING_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                               "_-./:@%+=,")
# Silent harmless commands: chaining them changes nothing, not even the output.
HARMLESS = ("true", ":", "cd .", "test -e /", "sleep 0", "pwd >/dev/null", "[ 1 ]")
# Wrappers under which a DENY must stay a DENY (privilege changes included).
DENY_PREFIXES = (*PREFIX_WRAPPERS, "sudo", "sudo -u root", "doas", "nice", "time", "xargs",
                 "strace -f", "busybox", "chroot /", "exec", "2>&2", "setsid", "ionice -c 3",
                 "taskset -c 0", "flock /tmp/cg-fuzz.lock", "env -i PATH=/usr/bin:/bin")


@dataclass(frozen=True, slots=True)
class Rewrite:
    """``line`` means what ``original`` means; ``steps`` names each rewrite applied."""

    original: str
    line: str
    steps: tuple[str, ...]


def argv_of(line: str) -> tuple[str, ...] | None:
    """The argv of ``line`` if it is one simple command of static words, else None."""
    from clawgate.shell import parse

    parsed = parse(line)
    if parsed.has_error or len(parsed.commands) != 1:
        return None
    cmd = parsed.commands[0]
    if cmd.assignments or cmd.redirects or cmd.nesting or cmd.background or not cmd.words:
        return None
    if any(w.value is None or w.expansions for w in cmd.words):
        return None
    return tuple(w.value for w in cmd.words if w.value is not None)


def _flag_words(argv: tuple[str, ...]) -> tuple[list[int], bool]:
    """Indices of no-argument flag clusters, and whether the argv is safe to permute."""
    letters = GETOPT_FLAGS.get(argv[0].rsplit("/", 1)[-1], "")
    flags = []
    for index, word in enumerate(argv[1:], start=1):
        if word.startswith("-"):
            if len(word) < 2 or word.startswith("--") or set(word[1:]) - set(letters):
                return [], False
            flags.append(index)
    return flags, bool(letters)


@st.composite
def _semantic(draw: st.DrawFn, argv: tuple[str, ...]) -> tuple[tuple[str, ...], list[str]]:
    """Flag splitting, merging and reordering, for programs known to take them so."""
    flags, ok = _flag_words(argv)
    if not ok or not flags:
        return argv, []
    kind = draw(st.sampled_from(["none", "split", "merge", "reorder", "flags-last"]))
    operands = [w for i, w in enumerate(argv[1:], start=1) if i not in flags]
    letters = [c for i in flags for c in argv[i][1:]]
    if kind == "split":
        return (argv[0], *[f"-{c}" for c in letters], *operands), ["flag-split"]
    if kind == "merge":
        return (argv[0], "-" + "".join(letters), *operands), ["flag-merge"]
    if kind == "reorder":
        shuffled = draw(st.permutations(letters))
        return (argv[0], "-" + "".join(shuffled), *operands), ["flag-reorder"]
    if kind == "flags-last":
        return (argv[0], *operands, *[argv[i] for i in flags]), ["flag-last"]
    return argv, []


@functools.lru_cache(maxsize=256)
def _installed(program: str) -> str | None:
    """Where ``program`` is installed on this machine: only that absolute path means the same."""
    if "/" in program:
        return None
    return shutil.which(program)


def _external_ok(program: str) -> bool:
    return program not in BUILTINS_ONLY and "=" not in program and not program.startswith("-")


@st.composite
def _command(draw: st.DrawFn, argv: tuple[str, ...]) -> tuple[str, list[str]]:
    """The simple command written obfuscated, with any preamble it needs before it."""
    steps: list[str] = []
    pre = Preamble()
    program = argv[0]
    where = _installed(program)
    if where is not None and _external_ok(program) and draw(st.booleans()):
        argv = (where, *argv[1:])
        steps.append("absolute-path")
    joiner, words = render_argv(draw, argv, pre)
    steps.append(f"words:{joiner}")
    steps.extend(["variables"] if pre.statements else [])
    prefix: list[str] = []
    if _external_ok(program):
        prefix = draw(st.lists(st.sampled_from(PREFIX_WRAPPERS), max_size=2))
    env = draw(st.lists(st.sampled_from(ENV_PREFIXES), max_size=2, unique=True))
    steps.extend(["env-prefix"] if env else [])
    runner = "plain"
    if _external_ok(program) and joiner == "space" and draw(st.booleans()):
        runner = _runner(draw(st.sampled_from(RUNNERS)), argv)
    # `command` is a builtin: only the shell itself can run it, so it goes first or not at all.
    prefix = [w for w in prefix if w != "command"] + (
        ["command"] if "command" in prefix and runner == "plain" else [])
    prefix = prefix[-1:] + prefix[:-1] if prefix[-1:] == ["command"] else prefix
    # `exec` replaces the shell with the command: first, never with `command`, never in xargs.
    if runner == "plain" and "command" not in prefix and _external_ok(program) and draw(
            st.sampled_from([False, False, False, True])):
        prefix = ["exec", *prefix]
    steps.extend(f"wrapper:{w.split()[0]}" for w in prefix)
    redirect = draw(st.sampled_from(["", "", "", *NOOP_REDIRECTS]))
    steps.extend(["redirect-first"] if redirect else [])
    lead = [redirect, *env] if redirect else env
    command = _run(runner, argv, words, lead, prefix, pre)
    steps.extend([runner] if runner != "plain" else [])
    return "; ".join([*pre.statements, command]), steps


def _runner(runner: str, argv: tuple[str, ...]) -> str:
    """``runner``, or "plain" where it cannot run ``argv`` unchanged."""
    if (runner == "xargs" and len(argv) < 2) or (
            runner == "find-exec" and any(w in (";", "+") or "{}" in w for w in argv)) or (
            runner in ("array", "set-args") and any("\n" in w for w in argv)) or (
            runner == "env-split" and not all(w and set(w) <= _SPLIT_STRING_SAFE for w in argv)):
        return "plain"  # find would end -exec at ";", put its path in "{}" ...
    return runner


def _run(runner: str, argv: tuple[str, ...], words: list[str], lead: list[str],
         prefix: list[str], pre: Preamble) -> str:
    """The command that runs the argv (written as ``words``) by way of ``runner``."""
    if runner == "xargs":
        return (f"printf '%s\\0' {' '.join(words[1:])} | "
                + " ".join([*lead, "xargs -0", *prefix, words[0]]))
    if runner == "dollar-at":  # the words as bash -c's positional parameters
        return " ".join([*lead, "bash -c '\"$@\"' bash", *prefix, *words])
    if runner == "array":  # the argv as the elements of an array set before it
        name = pre.fresh()
        pre.statements.append(f"{name}=({shlex.join(argv)})")
        return " ".join([*lead, *prefix, f'"${{{name}[@]}}"'])
    if runner == "set-args":  # the argv as the positional parameters
        pre.statements.append(f"set -- {shlex.join(argv)}")
        return " ".join([*lead, *prefix, '"$@"'])
    if runner == "find-exec":  # find runs it once, for the one path it finds
        return " ".join([*lead, "find . -maxdepth 0 -exec", *prefix, *words, "\\;"])
    if runner == "env-split":  # one string that env -S splits into the argv
        return " ".join([*lead, "env -S", single(" ".join([*prefix, *argv]))])
    return " ".join([*lead, *prefix, *words])


def _b64(line: str) -> str:
    return base64.b64encode(line.encode("utf-8", "surrogateescape")).decode("ascii")


def _not_an_option(line: str) -> str:
    """``line`` as ``sh -c`` and ``eval`` take it: code starting with ``-`` or ``+`` would be
    read as options (``bash -c '-rf; ls'`` runs nothing); a leading space keeps its meaning."""
    return " " + line if line.startswith(("-", "+")) else line


LINE_WRAPPERS = {
    "subshell": lambda line: f"( {line}{before_closer(line)})",
    "group": lambda line: f"{{ {line}{before_closer(line).replace(' ', '; ')}}}",
    "bash-c": lambda line: f"bash -c {shlex.quote(_not_an_option(line))}",
    "eval": lambda line: f"eval {shlex.quote(_not_an_option(line))}",
    "base64-eval": lambda line: f'eval "$(echo {_b64(_not_an_option(line))} | base64 -d)"',
    "base64-bash-c": lambda line: (f'bash -c "$(printf %s {_b64(_not_an_option(line))} | '
                                   'base64 -d)"'),
    "base64-pipe": lambda line: f"echo {_b64(line)} | base64 -d | bash",
    "here-string": lambda line: f"bash <<< {shlex.quote(line)}",
    "pipe-bash": lambda line: f"printf '%s\\n' {shlex.quote(line)} | bash",
    "process-substitution": lambda line: f"bash <(printf '%s\\n' {shlex.quote(line)})",
    "source": lambda line: f"source <(printf '%s\\n' {shlex.quote(line)})",
    "function": lambda line: (f"_cg_fn() {{ {line}{before_closer(line).replace(' ', '; ')}}}"
                              "; _cg_fn"),
    "loop-once": lambda line: (f"for _cg in 1; do {line}"
                               f"{before_closer(line).replace(' ', '; ')}done"),
    "if-true": lambda line: f"if true; then {line}{before_closer(line).replace(' ', '; ')}fi",
}


@st.composite
def _line_level(draw: st.DrawFn, line: str, steps: list[str]) -> str:
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from([*sorted(LINE_WRAPPERS), "chain-before", "chain-after"]))
        harmless = draw(st.sampled_from(HARMLESS))
        if kind == "chain-before":
            line = f"{harmless}{draw(st.sampled_from(['; ', ' && ', chr(10)]))}{line}"
        elif kind == "chain-after":
            line = f"{line}{draw(st.sampled_from(['; ', ' || ', chr(10)]))}{harmless}"
        else:
            line = LINE_WRAPPERS[kind](line)
        steps.append(kind)
    return line


@st.composite
def rewrites(draw: st.DrawFn, command: str | Sequence[str], *,
             semantic: bool = True) -> Rewrite:
    """A meaning-preserving obfuscation of ``command`` (a line, or an argv). A line that is not
    one simple command of static words gets only line-level rewrites. ``semantic``: allow flag
    rewrites, which change the argv but not its meaning to the program."""
    argv = argv_of(command) if isinstance(command, str) else tuple(command)
    # The rewrites spell the argv anew, so they are held against the argv written plainly: a
    # line that is itself disguised (``'ls'``) is one more rewrite of it, not the reference.
    original = shlex.join(argv) if argv else command if isinstance(command, str) else ""
    steps: list[str] = []
    if argv:
        if semantic:
            argv, steps = draw(_semantic(argv))
        line, more = draw(_command(argv))
        steps.extend(more)
    else:
        line = original
    return Rewrite(original, draw(_line_level(line, steps)), tuple(steps))


def _simple_enough(line: str) -> bool:
    return argv_of(line) is not None


@st.composite
def wrapped(draw: st.DrawFn, line: str) -> Rewrite:
    """``line`` under a wrapper that runs it: a prefix (``sudo``, ``env``, ``timeout`` ...) when
    it is one simple command, else (or also) ``bash -c``, ``sh -c``, ``eval``, a subshell."""
    steps: list[str] = []
    out = line
    if _simple_enough(line) and draw(st.booleans()):
        prefix = draw(st.sampled_from(DENY_PREFIXES))
        out = f"{prefix} {out}" if prefix != "xargs" else f"echo | xargs {out}"
        steps.append(f"prefix:{prefix}")
    if not steps or draw(st.booleans()):
        kind = draw(st.sampled_from(["bash-c", "sh-c", "eval", "subshell", "group",
                                     "here-string", "pipe-bash", "process-substitution",
                                     "source", "function", "loop-once", "if-true"]))
        out = (f"sh -c {shlex.quote(_not_an_option(out))}" if kind == "sh-c"
               else LINE_WRAPPERS[kind](out))
        steps.append(kind)
    return Rewrite(line, out, tuple(steps))
