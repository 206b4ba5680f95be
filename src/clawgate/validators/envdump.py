"""Commands whose output is every environment variable (``env``, ``printenv``, ``export -p``,
``declare -x``, ``set``, ``ps e``, ``compgen -e``, awk's ``for (k in ENVIRON)``) or the shell's
history (``history``, ``fc -l``): text that carries the API keys and tokens of the session, or
the ones typed on command lines."""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.argv import command_start, inner, opts
from clawgate.validators.wraptable import start_through_wrappers

_ENV_OPTIONS = opts("uCS", "unset chdir split-string")
# GNU env's long options (coreutils 9)
_ENV_LONG = ("ignore-environment", "null", "unset", "chdir", "split-string", "block-signal",
             "default-signal", "ignore-signal", "list-signal-handling", "debug", "help",
             "version")
_ASSIGNMENT = lazy_pattern(r"^[A-Za-z_][A-Za-z0-9_]*=")
DECLARERS = frozenset({"export", "declare", "typeset", "set", "readonly"})
_PS_BSD_ENV = lazy_pattern(r"^[a-zA-Z]{0,16}e[a-zA-Z]{0,16}$")  # ps e, ps auxe, ps eww (no dash)
_PS_ENV = lazy_pattern(r"^-[a-zA-Z]{0,16}E[a-zA-Z]{0,16}$")  # ps -E (BSD, macOS)
_PS_VALUED = frozenset("CGgOopqstUuN")  # -p PID, -o FORMAT ...: the next word is a value
_PS_LONG_VALUED = frozenset({"pid", "ppid", "user", "User", "group", "Group", "format", "sort",
                             "tty", "sid", "cols", "columns", "lines", "rows", "width",
                             "quick-pid", "context"})
AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_AWK_ENV_LOOP = lazy_pattern(r"\bin\s+ENVIRON\b")
DUMPERS = frozenset({"env", "printenv", "ps", "compgen", *DECLARERS, *AWKS})
_HISTORY_VALUED = lazy_pattern(r"^-[a-zA-Z]*[cdanrwps]")  # history -c, -d N, -w FILE: not a listing


def secret_output(cmd: SimpleCommand) -> str | None:
    """What secret-bearing text ``cmd`` prints: "every environment variable", "the shell
    history", or None. Looked at through the wrappers in front of it (``command env``,
    ``builtin export -p``, ``timeout 5 printenv``): the program they run prints it."""
    start = start_through_wrappers(cmd.words, 0) if cmd.words else None
    if start:
        cmd = inner(cmd, start)
    if cmd.program in DUMPERS and dumps_environment(cmd):
        return "every environment variable"
    if prints_history(cmd):
        return "the shell history"
    return None


def prints_history(cmd: SimpleCommand) -> bool:
    """``history`` (``history 50``), ``fc -l``: the commands typed before, tokens and
    passwords given on command lines with them."""
    args = [w.shown for w in cmd.words[1:]]
    if cmd.program == "history":
        return not any(_HISTORY_VALUED.match(a) for a in args)
    return cmd.program == "fc" and any(a.startswith("-") and "l" in a for a in args)


def dumps_environment(cmd: SimpleCommand) -> bool:
    program = cmd.program
    args = cmd.words[1:]
    if program == "printenv":
        return all(w.shown.startswith("-") for w in args)
    if program == "env":
        start = command_start(cmd.words, 1, _ENV_OPTIONS)
        rest = cmd.words[start:] if start is not None else ()
        if _env_exits(cmd.words[1 : start if start is not None else len(cmd.words)]):
            return False
        return not any(w.shown in ("-S", "--split-string") or w.shown.startswith("-S")
                       for w in args) and all(_ASSIGNMENT.match(w.shown) for w in rest)
    if program in DECLARERS:
        flags = [w.shown for w in args]
        if program == "set":
            return not flags  # every variable, exported or not
        names = [f for f in flags if not f.startswith(("-", "+"))]
        return not names and (not flags or any(f in ("-p", "-x", "-px", "-xp") for f in flags))
    if program == "ps":
        return _ps_shows_environment([w.shown for w in args])
    if program == "compgen":  # the names of every (exported) variable, to loop over with ${!v}
        return _compgen_lists_variables([w.shown for w in args])
    if program in AWKS:  # for (k in ENVIRON): every variable
        return "ENVIRON" in cmd.text and _AWK_ENV_LOOP.search(cmd.text) is not None
    return False


def _env_exits(options: tuple[Word, ...]) -> bool:
    """``env --version``, ``env --help`` (or an abbreviation GNU getopt takes for one) print
    that and exit; a long option GNU env does not know, or one it cannot tell apart
    (``--ig``), is an error (BSD env knows no long option at all): none prints the
    environment."""
    for word in options:
        text = word.shown
        if not text.startswith("--") or text == "--":
            continue
        name = text[2:].partition("=")[0]
        found = [o for o in _ENV_LONG if o.startswith(name)] if name not in _ENV_LONG else [name]
        if len(found) != 1 or found[0] in ("help", "version"):
            return True
    return False


def _compgen_lists_variables(args: list[str]) -> bool:
    """``compgen -e``, ``compgen -v``, ``compgen -A export``/``-A variable`` (before any word
    to complete): every variable name, which ``${!v}`` turns into every value."""
    for index, arg in enumerate(args):
        if arg == "--" or not arg.startswith("-"):
            return False
        if arg == "-A" and index + 1 < len(args):
            if args[index + 1] in ("export", "variable"):
                return True
        elif arg.startswith("-A"):
            if arg[2:] in ("export", "variable"):
                return True
        elif "e" in arg[1:] or "v" in arg[1:]:
            return True
    return False


def _ps_shows_environment(args: list[str]) -> bool:
    """procps takes BSD options (``e``, ``eww``) anywhere on the line, not only first:
    ``ps -p 1 e`` prints the environment too. A word that is the value of an option
    (``-p 1``, ``-o comm``) is not one."""
    takes_value = False
    for arg in args:
        if takes_value:
            takes_value = False
            continue
        if _PS_ENV.match(arg):
            return True
        if arg.startswith("--"):
            takes_value = "=" not in arg and arg[2:] in _PS_LONG_VALUED
        elif arg.startswith("-"):
            takes_value = arg[-1:] in _PS_VALUED
        elif _PS_BSD_ENV.match(arg):
            return True
    return False
