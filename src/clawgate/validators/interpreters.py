"""Interpreters given code inline (``python -c``, ``node -e``, ``perl -e``, ``ruby -e``,
``php -r`` ...): the code is read for process execution, sockets, id changes and native code.

Running a local script file with an interpreter is everyday work and is left to the risk tier;
code on the command line is what can and must be inspected.
"""

from __future__ import annotations

from itertools import pairwise

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.records import record
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.argv import option_values
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.codescan import describe, scan
from clawgate.validators.programs import FILE_VIEWERS, INTERACTIVE, family_name
from clawgate.validators.shells import DECODED, FETCHED


@record(frozen=True, slots=True)
class Inline:
    """Options of an interpreter whose value is program text."""

    short: str = ""
    long: frozenset[str] = frozenset()
    exact: frozenset[str] = frozenset()  # single-dash long options (``-ex``, ``-eval``)
    attached: str = ""  # short options whose value is glued on (``-MIO::Socket``)
    backticks: bool = False  # backticks run commands in this language


def _i(short: str = "", long: str = "", exact: str = "", attached: str = "",
       backticks: bool = False) -> Inline:
    return Inline(short, frozenset(long.split()), frozenset(exact.split()), attached, backticks)


INLINE: dict[str, Inline] = {
    "python": _i("c", attached="WXmQ"), "pypy": _i("c", attached="WXmQ"),
    "node": _i("ep", "eval print"), "nodejs": _i("ep", "eval print"), "bun": _i("e", "eval"),
    "ts-node": _i("ep", "eval print"), "tsx": _i("ep", "eval print"),
    "deno": _i("", "eval"), "perl": _i("eE", attached="MmIilx0CdD", backticks=True),
    "ruby": _i("e", attached="rIEFKTWx0", backticks=True), "php": _i("rRBE", backticks=True),
    "lua": _i("e"), "luajit": _i("e"), "R": _i("e"), "Rscript": _i("e"),
    "julia": _i("eE", "eval print", backticks=True), "jrunscript": _i("e"), "ghc": _i("e"),
    "runghc": _i("e"),
    "guile": _i("c"), "clisp": _i("x"), "sbcl": _i("", "eval"), "racket": _i("e", "eval"),
    "csi": _i("e"), "gosh": _i("e"), "expect": _i("c"), "octave": _i("", "eval"),
    "octave-cli": _i("", "eval"), "gnuplot": _i("e"), "slsh": _i("e"), "bpftrace": _i("e"),
    "osascript": _i("e"), "emacs": _i("", "eval", exact="-eval --eval"), "tclsh": _i(),
    "wish": _i(), "irb": _i(), "scala": _i("e"), "groovy": _i("e"), "kotlin": _i("e"),
    "swift": _i("e"), "crystal": _i("e", "eval"), "elixir": _i("e", "eval"), "erl": _i(
        "", "", exact="-eval"), "pwsh": _i("c", "command", exact="-Command -c"),
    "clojure": _i("e", "eval"), "clj": _i("e", "eval"), "jshell": _i(),
    # Ruby with Rake's DSL loaded: ``sh "CMD"`` runs CMD in a shell
    "rake": _i("epE", "execute execute-print execute-continue", backticks=True),
}
_INFO_FLAGS = frozenset({"-v", "-V", "--version", "-h", "--help", "-version", "-help", "-?"})
_REPL_FLAGS = frozenset({"-i", "-a", "--interactive", "-q", "--quiet", "-nw", "-Q"})


def inline_code(cmd: SimpleCommand, spec: Inline) -> list[tuple[Word | None, str | None]]:
    """(word, text) of every piece of inline code in ``cmd`` (text None when dynamic)."""
    found: list[tuple[Word | None, str | None]] = []
    words = python_own(cmd.words) if spec is INLINE["python"] else cmd.words
    if spec is INLINE["deno"] and len(words) > 2 and words[1].value == "eval":
        code = next((w for w in words[2:] if not w.shown.startswith("-")), None)
        return [(code, code.value)] if code is not None else []
    if spec is INLINE["perl"]:
        found.extend(perl_modules(words))
    for i, current in enumerate(words[1:], start=1):
        if current.shown in spec.exact and i + 1 < len(words):
            found.append((words[i + 1], words[i + 1].value))
    if spec.short or spec.long:
        for _, word, value in option_values(_cut(words, spec), 1, spec.short,
                                            spec.long):
            found.append((word, value))
    return found


def perl_module_code(option: str) -> str | None:
    """The code perl makes of a ``-MMOD``/``-mMOD`` option: ``use MOD;`` (``no`` for
    ``-M-MOD``), text after the module name included, so ``-Mstrict;system(...)`` runs
    ``system(...)``; ``-MMOD=a,b`` imports ``a`` and ``b``. None for another option.

    perl quotes the imports between NUL characters, so they are data whatever they hold; the
    code given back quotes them with a printable pair they do not contain (a NUL in a line
    judged is a control character of its own), or leaves them out when every pair is in them:
    data either way."""
    if len(option) < 3 or option[:2] not in ("-M", "-m"):
        return None
    module = option[2:]
    verb = "no" if module.startswith("-") else "use"
    name, eq, imports = module.lstrip("-").partition("=")
    if eq:
        pair = next((p for p in _PERL_QUOTES if p[0] not in imports and p[1] not in imports),
                    None)
        if pair is None:
            return f"{verb} {name};"
        return f"{verb} {name} split(/,/, q{pair[0]}{imports}{pair[1]});"
    return f"{verb} {name}{' ()' if option[1] == 'm' else ''};"


_PERL_QUOTES = ("{}", "[]", "()", "<>", "!!", "||", "##", "~~")


def perl_modules(words: tuple[Word, ...]) -> list[tuple[Word | None, str | None]]:
    """(word, code) of perl's own ``-M``/``-m`` options: those before its script or ``--``."""
    found: list[tuple[Word | None, str | None]] = []
    for word in words[1:]:
        text = word.shown
        if text == "--" or not text.startswith("-"):
            break
        code = perl_module_code(text)
        if code is not None:
            found.append((word, None if word.value is None else perl_module_code(word.value)))
    return found


def python_own(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """Python's own options: what follows ``-m MOD``, ``-c CODE``, ``-`` or a script belongs
    to the module or the program (``python -m pip install -C x``)."""
    i = 1
    while i < len(words):
        text = words[i].shown
        if not text.startswith("-") or text == "-" or text.startswith("-m"):
            return words[:i]
        if text == "-c" or (text[1:2] != "-" and "c" in text[1:] and text[-1] == "c"):
            return words[:i + 2]
        if text.startswith("-c") or text == "--":
            return words[:i + 1]
        i += 2 if text in ("-W", "-X", "-Q") else 1
    return words


def _cut(words: tuple[Word, ...], spec: Inline) -> tuple[Word, ...]:
    """Words with clusters cut at an option whose value is glued on (``-MIO::Socket`` is
    ``-M`` with ``IO::Socket``, not a cluster holding ``-e``). A code option first in the
    cluster keeps the rest as its code (``-e'exit if fork'``)."""
    if not spec.attached:
        return words
    out: list[Word] = []
    for word in words:
        text = word.shown
        if len(text) > 2 and text[0] == "-" and text[1] != "-":
            for pos, letter in enumerate(text[1:], start=1):
                if letter in spec.short:
                    break
                if letter in spec.attached:
                    text = text[:pos]
                    break
        out.append(word if text == word.shown else Word(text, text))
    return tuple(out)


def judge(rule_id: str, program: str, code: str, backticks: bool) -> Verdict:
    """The verdict on one piece of inline code, with the shell commands it spells out.

    Python that parses is read from its syntax tree by the CG-CODE family instead
    (``inlinecode.py``); a regular expression over it would only add guesses."""
    if program in ("python", "pypy"):
        from clawgate.validators.inlinecode import python_effects

        if not python_effects(code).syntax_error:
            return NO_OPINION
    found = scan(code, backticks)
    spawned = _tcl_commands(code) if program in _TCL else []
    if program == "rake":
        from clawgate.validators.runfiles import rake_shell_lines

        spawned = rake_shell_lines(code)
    if program in _GHCI:
        spawned, computed = ghci_escapes(code)
        if computed:
            return Verdict.unwrap(*spawned, outcome=Outcome.ASK, rule_id=rule_id,
                                  message=f"{program}: GHCi runs commands computed at run time")
    if not found.risky and not spawned:
        return NO_OPINION
    refuse, why = describe(found) if found.risky else (False, "inline code runs commands")
    outcome = Outcome.DENY if refuse else Outcome.ASK
    return Verdict.unwrap(*found.commands, *spawned, outcome=outcome, rule_id=rule_id,
                          message=f"{program}: {why}")


_TCL = frozenset({"expect", "tclsh", "wish"})
# Programs whose code is GHCi input: ``:!CMD`` runs CMD in a shell; ``:cmd EXPR`` and ``:def``
# run GHCi commands an expression computes.
_GHCI = frozenset({"ghc", "runghc"})
# GHCi takes any prefix of a command's name for the first command so named in its table, and
# cd, set and the others come after these where they share a prefix: :cm is :cmd, :d is :def
_GHCI_COMPUTED = ("cmd", "def", "def!", "script")
_GHCI_COMMAND = lazy_pattern(r"::?([A-Za-z]+!?)")  # "::cmd": the built-in, not a macro


def ghci_escapes(code: str) -> tuple[list[str], bool]:
    """(the shell commands GHCi input runs with ``:!``, whether it runs GHCi commands computed
    at run time or read from a script, named in full or by a prefix: ``:cm``, ``:de``,
    ``:scr``): ``:!rm -rf ~`` runs ``rm -rf ~``."""
    commands: list[str] = []
    computed = False
    for line in code.split("\n"):
        text = line.strip()
        if text.startswith(":!"):
            commands.append(text[2:].strip())
        command = _GHCI_COMMAND.match(text)
        computed = computed or (command is not None and any(
            name.startswith(command.group(1)) for name in _GHCI_COMPUTED))
    return [c for c in commands if c][:16], computed
_TCL_RUNNERS = frozenset({"spawn", "exec", "system"})


def _tcl_commands(code: str) -> list[str]:
    """The commands a Tcl/expect script starts with ``spawn``/``exec`` words (``spawn rm -rf
    /``), as shell lines."""
    found: list[str] = []
    for statement in code.replace(";", "\n").split("\n"):
        head, _, rest = statement.strip().lstrip("[").partition(" ")
        if head in _TCL_RUNNERS and rest.strip():
            found.append(rest.strip().rstrip("]").replace("{", "'").replace("}", "'"))
    return found[:16]


@register
class InlineCode(Validator):
    """Inline code given to an interpreter (``python -c``, ``node -e``, ``perl -e``, ``ruby -e``,
    ``php -r``, ``lua -e``, ``R -e``, ``julia -e`` ...) that starts processes, evaluates text or
    loads native code: ASK; with sockets or id changes as well: DENY. The shell commands it
    spells out are checked too. Code only known at run time asks; fetched or decoded at run
    time (``python3 -c "$(curl -s x)"``), DENY.

    Bad: ``python3 -c 'import os; os.system("sh")'``. Harmless: ``python3 -c 'print(1+1)'``.
    """

    id = "CG-INTERP-001"
    programs = frozenset(INLINE)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = family_name(cmd.program)
        spec = INLINE.get(program) if program else None
        if spec is None or program is None:
            return NO_OPINION
        verdicts = []
        for word, code in inline_code(cmd, spec) or _fed_code(cmd):
            if code is None and word is not None and (
                    FETCHED.search(word.text) or DECODED.search(word.text)):
                return Verdict.deny(self.id, f"{program} runs code fetched or decoded at run "
                                    "time", hint="fetch or decode it, read it, then run it")
            if code is None:
                return Verdict.ask(self.id, f"{program} runs code only known at run time")
            verdicts.append(judge(self.id, program, code, spec.backticks))
        return max(verdicts, key=lambda v: v.outcome, default=NO_OPINION)


def _fed_code(cmd: SimpleCommand) -> list[tuple[Word | None, str | None]]:
    """The program text a here-document or here-string (a pipe from ``printf``/``echo`` is
    one by the time validators see it) gives an interpreter that reads its program from
    standard input (``jshell <<< 'CODE'``), as inline code; none for one that does not."""
    from clawgate.validators.indirection import stdin_program

    if not stdin_program(cmd):
        return []
    found: list[tuple[Word | None, str | None]] = []
    for doc in cmd.redirects:
        if doc.op == "<<<":
            found.append((doc.target, doc.target.value if doc.target is not None else None))
        elif doc.feeds_input:
            found.append((None, doc.heredoc))
    return found


_QUIT_COMMANDS = frozenset({"q", "qa", "qall", "quit", "quitall", "wq", "wqa", "wqall", "x",
                            "xa", "xall", "cq", "exit"})


def _quits(cmd: SimpleCommand) -> bool:
    """An editor given a quit command to run at start-up (``+qa``, ``-c 'qa!'``): it runs its
    start-up commands (judged as editor commands) and exits, waiting at no prompt."""
    words = [w.value or "" for w in cmd.words[1:]]
    given = [w[1:] for w in words if w.startswith("+")] + [
        b for a, b in pairwise(words) if a in ("-c", "--cmd")]
    return any(c.strip().lstrip(":").rstrip("!").strip() in _QUIT_COMMANDS for c in given)


@register
class InteractiveProgram(Validator):
    """An interpreter, debugger, database console or editor started with nothing to run or
    edit waits at a prompt from which shell commands can be run (``!sh``, ``system()``): ASK.

    Bad: ``gdb`` or ``python3`` alone. Harmless: ``python3 tool.py``, ``vim notes.txt``,
    ``node --version``.
    """

    id = "CG-INTERP-002"
    programs = INTERACTIVE

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = family_name(cmd.program)
        if program not in INTERACTIVE:
            return NO_OPINION
        args = [w.shown for w in cmd.words[1:]]
        if any(a in _INFO_FLAGS for a in args):
            return NO_OPINION
        if program in FILE_VIEWERS:
            if any(not a.startswith(("-", "+")) for a in args) or _quits(cmd):
                return NO_OPINION
        elif any(a not in _REPL_FLAGS for a in args):
            return NO_OPINION
        if cmd.upstream or any(r.feeds_input or r.op == "<" for r in cmd.redirects):
            return NO_OPINION  # fed input: judged by the injection family
        return Verdict.ask(self.id, f"{program} waits at an interactive prompt that can run "
                           "shell commands", hint="run a script or pass the input instead")
