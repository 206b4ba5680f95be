"""Commands given to editors, debuggers and database consoles on their command line: the
``!``-escapes and shell commands among them (``vim -c ':!sh'``, ``gdb -ex '!sh'``,
``mysql -e '\\! sh'``, ``sqlite3 db '.shell sh'``) run programs."""

from __future__ import annotations

import re
import shlex

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.inline.effects import action
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.shell.substitute import evaluate
from clawgate.validators.argv import option_values
from clawgate.validators.base import Context, Validator, register

_VIMS = frozenset({"vi", "vim", "nvim", "ex", "view", "rvim", "gvim", "vimdiff", "evim"})
_VIM_ESCAPE = lazy_pattern(
    r"(?:^|(?<=[|:\s]))(?!\s)[%.$\d,'<>]*+\s*+(?:!|sh(?:ell)?\b|ter(?:m(?:inal)?)?\b|py(?:thon)?3?\b|"
    r"pyx?\b|py3do|pydo|lua\w*\b|perl\w*\b|rub(?:y)?\w*\b|mz(?:scheme)?\b|tcl\w*\b|"
    r"exe(?:cute)?\b|so(?:urce)?\b|(?:r(?:ead)?|w(?:rite)?)\s+!)|"
    r"\bsystem(?:list)?\s*\(|\bjob_?start|\btermopen|\blibcall|\bset?\s+shell")
# The shell command of ``:!CMD``, ``:silent !CMD``, ``:r !CMD``, ``:w !CMD`` (to the end of
# the line: a bar belongs to the shell there), and of ``system('CMD')``.
_VIM_BANG = lazy_pattern(r"^[\s:]*+(?:sil(?:ent)?!?\s+)?[%.$\d,'<>]*+\s*+"
                         r"(?:(?:r(?:ead)?|w(?:rite)?)\s+)?!(.+)$", re.S)
_VIM_SYSTEM = lazy_pattern(r"\bsystem(?:list)?\s*\(\s*(['\"])(.+?)\1")
_CONSOLE_ESCAPE = lazy_pattern(
    r"(?:^|[;\n])[^\S\n]*+(?:!|\\!|:!|~!|~\||shell\b|pipe\b|\|)|\bpython\b|\bsystem\b|"
    r"^[^\S\n]*+\.(?:shell|system|"
    r"load|once\s*\||output\s*\||sh\b)|\\o\s*\||\bPROGRAM\b|\bplatform\s+shell\b|"
    r"\bscript\b|\bsys_exec\b|\bsys_eval\b|\bload_file\b|\bINTO\s+(?:OUT|DUMP)FILE\b|"
    r"\bedit\s*\(|\bfts3_tokenizer\b|\bload_extension\b", re.I | re.M)
# The shell command line of a console's escape (``!CMD``, ``\\! CMD``, ``shell CMD``,
# sqlite's ``.shell CMD``).
_CONSOLE_SHELL = lazy_pattern(r"^[ \t]*(?:[:~\\]?!|~\||\.?(?:shell|system)[ \t]+|"
                              r"platform[ \t]+shell[ \t]+)[ \t]*(\S.*)$", re.M)
_CONSOLES: dict[str, tuple[str, frozenset[str]]] = {
    "gdb": ("", frozenset({"-ex", "-iex", "--eval-command", "--init-eval-command"})),
    "lldb": ("o", frozenset({"--one-line", "-O", "--one-line-before-file"})),
    "mysql": ("e", frozenset({"--execute"})), "mariadb": ("e", frozenset({"--execute"})),
    "psql": ("c", frozenset({"--command"})), "dc": ("e", frozenset({"--expression"})),
    "sqlite3": ("", frozenset({"-cmd"})), "redis-cli": ("", frozenset()),
    "duckdb": ("c", frozenset({"-cmd"})), "ghci": ("e", frozenset()),
    **dict.fromkeys(("mail", "mailx", "s-nail"), ("", frozenset())),
}


def fed_text(cmd: SimpleCommand) -> list[str]:
    """The here-strings and here-documents a program reads as its commands, as written (a
    variable in an unquoted here-document is left as it stands)."""
    found: list[str] = []
    for redirect in cmd.redirects:
        if redirect.op == "<<<" and redirect.target is not None:
            found.append(redirect.target.shown)
        elif redirect.feeds_input and redirect.heredoc is not None:
            found.append(redirect.heredoc)
    return found


# An editor command in a scripting language (``:lua CODE``, ``:py3 CODE``, ``:perl CODE``,
# ``:ruby CODE``) and the interpreter whose inline code it is.
_VIM_LANGUAGE = lazy_pattern(r"^[\s:]*+(?:sil(?:ent)?!?\s+)?(?P<lang>py(?:thon)?3?|pyx|"
                             r"lua|perl|rub(?:y)?)[^\S\n]+(?P<code>\S.*)$", re.S)
_INTERPRETER = {"lua": ("lua", "-e"), "perl": ("perl", "-e"), "rub": ("ruby", "-e"),
                "ruby": ("ruby", "-e")}


# What the editor lends a language command: running its own commands, functions, jobs and
# processes (``vim.cmd``, ``vim.fn.system``, ``vim.loop.spawn``; Python's ``vim.command``).
_EDITOR_API = lazy_pattern(r"\bvim\s*\.\s*(?:cmd|command|fn|call|api|loop|uv|system|eval|"
                           r"exec|ex|schedule|defer_fn|o|opt|go|bo|wo|g|b|w|env|keymap)\b|"
                           r"\bimport\s+vim\b|\brequire\b|\bdofile\b|\bloadfile\b|"
                           r"\bload\s*\(|\bVIM::|\bEvaluate\b|\bDoCommand\b")


def plain_language_code(command: str) -> bool:
    """An editor command that hands code to a language (``:lua print(1)``, ``:py3
    print(1)``) without the editor's own means of running commands: the code is judged as that
    language's inline code (``lua -e …``), which asks for what it starts itself."""
    language = _VIM_LANGUAGE.match(command)
    if language is None or "|" in command:
        return False
    code = language.group("code")
    return _EDITOR_API.search(code) is None and _VIM_BANG.match(command) is None


def shell_commands(command: str) -> list[str]:
    """The shell command lines an editor command runs, where they can be read: its ``!``
    command, the commands of ``system()``, and the code of a language command as that
    language's interpreter given it inline (``:lua os.execute(…)`` is ``lua -e …``)."""
    found = [m.group(2) for m in _VIM_SYSTEM.finditer(command)]
    language = _VIM_LANGUAGE.match(command)
    if language is not None:
        program, option = _INTERPRETER.get(language.group("lang"), ("python3", "-c"))
        found.append(shlex.join([program, option, language.group("code")]))
    bang = _VIM_BANG.match(command)
    return [bang.group(1), *found] if bang is not None else found


def _vim_commands(cmd: SimpleCommand) -> list[str | None]:
    if cmd.program in ("ed", "red") or (cmd.redirects and (cmd.program == "ex" or any(
            w.shown[:1] == "-" and w.shown[1:2] != "-" and set(w.shown[1:]) & {"e", "E"}
            for w in cmd.words[1:]))):
        # ed, and vim in Ex mode, read their commands from standard input: each line is one
        lines = [line for text in fed_text(cmd) for line in text.split("\n")]
        if cmd.program in ("ed", "red"):
            return list(lines)
        return [*lines, *_vim_options(cmd)]
    return _vim_options(cmd)


def _vim_options(cmd: SimpleCommand) -> list[str | None]:
    if cmd.program == "less":  # less '+!CMD' file: an initial command, as if typed
        return [w.value.lstrip("+") if w.value is not None else None for w in cmd.words[1:]
                if w.shown.startswith("+") and "!" in w.shown]
    found: list[str | None] = [v for _, _, v in option_values(
        cmd.words, 1, "c", frozenset({"cmd"}))]
    for word in cmd.words[1:]:
        text = word.shown
        if text.startswith("+") and len(text) > 1 and not text[1:].isdigit():
            found.append(text[1:] if word.value is not None else None)
    return found


@register
class EditorCommands(Validator):
    """Editor commands on the command line (``vim -c CMD``, ``+CMD``, ``--cmd CMD``) that run
    shell commands (``:!``, ``:sh``, ``:terminal``, ``:r !``, ``system()``) or scripting
    languages with the editor's means of running commands (``:lua vim.fn.system(…)``, ``:py3
    import vim``): ASK.

    The shell command lines they name (``:!CMD``, ``system('CMD')``, less's ``+!CMD``) are
    checked as commands too, and a language command's plain code (``:lua print(1)``) as that
    language's inline code (``lua -e …``).

    Bad: ``vi -c ':!/bin/sh' /dev/null``. Harmless: ``vim -c 'set nu' +10 notes.txt``.
    """

    id = "CG-INTERP-006"
    programs = _VIMS | {"less", "ed", "red"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in self.programs:
            return NO_OPINION
        lines: list[str] = []
        message = ""
        for command in _vim_commands(cmd):
            if command is None:
                return Verdict.ask(self.id, "an editor command only known at run time")
            if _VIM_ESCAPE.search(command):
                lines += shell_commands(command)
                if not plain_language_code(command):
                    message = message or f"the editor command {command!r} runs programs"
        if not message:
            return Verdict.unwrap(*lines) if lines else NO_OPINION
        return Verdict.unwrap(*lines, outcome=Outcome.ASK, rule_id=self.id, message=message)


@register
class ConsoleCommands(Validator):
    """Commands given to debuggers and database consoles (``gdb -ex``, ``lldb -o``,
    ``mysql -e``, ``psql -c``, ``sqlite3 DB SQL``, ``dc -e``) that escape to a shell (``!``,
    ``\\!``, ``shell``, ``.shell``, ``COPY … PROGRAM``) or load code: ASK; the shell command
    lines of ``!``/``shell`` escapes are checked as commands too.

    The program a debugger is given to start (``gdb --args PROG ARGS…``, ``lldb … -- PROG
    ARGS…``) is checked as the command line it is: ``run`` (or ``-ex run``) starts it.

    Bad: ``gdb -nx -ex '!sh' -ex quit``. Harmless: ``psql -c 'select 1'``.
    """

    id = "CG-INTERP-007"
    programs = frozenset(_CONSOLES)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        spec = _CONSOLES.get(program) if program else None
        if spec is None:
            return NO_OPINION
        short, long = spec
        texts = [v for _, _, v in option_values(cmd.words, 1, short, frozenset())]
        words = cmd.words
        for i, word in enumerate(words[1:], start=1):
            if word.shown in long and i + 1 < len(words):
                texts.append(words[i + 1].value)
            elif word.shown.partition("=")[0] in long:
                texts.append(word.shown.partition("=")[2])
        texts += _script_files(cmd)
        if program in ("sqlite3", "duckdb", "redis-cli"):
            texts += [w.value for w in words[2:] if not w.shown.startswith("-")]
        texts += fed_text(cmd)  # psql <<< '\! …', gdb -batch <<EOF … EOF: commands typed in
        lines: list[str] = [debugged] if (debugged := _debugged(cmd)) else []
        message = ""
        for text in texts:
            if text is None:
                return Verdict.unwrap(*_run_time_actions(cmd), outcome=Outcome.ASK,
                                      rule_id=self.id,
                                      message=f"{program} runs commands only known at run time")
            if _CONSOLE_ESCAPE.search(text) or (program == "dc" and "!" in text):
                lines += [m.group(1) for m in _CONSOLE_SHELL.finditer(text)]
                message = message or f"{program} command {text!r} runs programs or loads code"
            lines += file_actions(text)
        if not message:
            return Verdict.unwrap(*lines) if lines else NO_OPINION
        return Verdict.unwrap(*lines, outcome=Outcome.ASK, rule_id=self.id, message=message)


# Where a debugger's argv turns into the program it starts and that program's arguments.
_PROGRAM_AFTER = {"gdb": "--args", "lldb": "--"}


def _debugged(cmd: SimpleCommand) -> str | None:
    """The command line a debugger is given to start (``gdb --args PROG …``, ``lldb -o run --
    PROG …``), None when it is given none that way."""
    marker = _PROGRAM_AFTER.get(cmd.program or "")
    shown = [w.shown for w in cmd.words[1:]]
    if marker is None or marker not in shown:
        return None
    rest = cmd.words[shown.index(marker) + 2:]
    return " ".join(w.text for w in rest) or None  # the words as written: quotes, ~ and all


# Options that name a file of console commands (gdb -x, lldb -s, psql -f, sqlite3 -init).
_SCRIPT_OPTIONS: dict[str, frozenset[str]] = {
    "gdb": frozenset({"-x", "--command", "-ix", "--init-command"}),
    "lldb": frozenset({"-s", "--source", "-S", "--source-before-file", "--source-on-crash",
                       "-K"}),
    "psql": frozenset({"-f", "--file"}), "sqlite3": frozenset({"-init"}),
    "duckdb": frozenset({"-init"}),
}


def _script_files(cmd: SimpleCommand) -> list[str | None]:
    """The commands of a command file given as a process substitution (``gdb -x <(echo
    'shell …')``): the text it prints, or None when only known at run time. A file on disk is
    not read here."""
    options = _SCRIPT_OPTIONS.get(cmd.program or "")
    if options is None:
        return []
    found: list[str | None] = []
    words = cmd.words
    for i, word in enumerate(words[1:], start=1):
        name, equals, _ = word.text.partition("=")
        value = words[i + 1] if word.shown in options and i + 1 < len(words) else None
        text = word.text[len(name) + 1:] if equals and name in options else (
            value.text if value is not None else None)
        if text is None or not text.startswith("<(") or not text.endswith(")"):
            continue
        found.append(evaluate(text[2:-1]))
    return found


# Console commands that write or read a file they name, as (verb, pattern of the path): gdb's
# dump/append/save/core files and logging, sqlite's dot-commands and file functions, psql's
# \o \w \i \copy, mysql's tee and source. Checked as the shell command doing the same
# (``: > PATH``, ``cat PATH``), so the rules on paths decide.
_PATH = r"""(?:'([^']+)'|"([^"]+)"|([^\s'";|]+))"""
_FILE_COMMANDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (verb, re.compile(pattern, re.I | re.M)) for verb, pattern in (
        ("write", rf"^[^\S\n]*+(?:dump|append)\s+"
                  rf"(?:binary\s+|verilog\s+|ihex\s+|srec\s+|tekhex\s+)?(?:memory|value)\s+{_PATH}"),
        ("write", rf"^[^\S\n]*+(?:set\s+logging\s+file|save\s+(?:breakpoints|gdb-index)|"
                  rf"generate-core-file|gcore)\s+{_PATH}"),
        ("write", rf"^[^\S\n]*+\.(?:output|once|log|backup|save|excel)\s+(?:-\S+\s+)*{_PATH}"),
        ("read", rf"^[^\S\n]*+\.(?:import|read|restore|open)\s+(?:-\S+\s+)*{_PATH}"),
        ("write", rf"\bwritefile\s*\(\s*{_PATH}"),
        ("read", rf"\breadfile\s*\(\s*{_PATH}"),
        ("write", rf"\bVACUUM\s+INTO\s+{_PATH}"),
        ("write", rf"^[^\S\n]*+\\(?:o|out|w|write|g)\s+{_PATH}"),
        ("read", rf"^[^\S\n]*+\\(?:i|include|ir|include_relative)\s+{_PATH}"),
        ("write", rf"\\copy\s.*\bto\s+{_PATH}"),
        ("read", rf"\\copy\s.*\bfrom\s+{_PATH}"),
        ("write", rf"^[^\S\n]*+tee\s+{_PATH}"),
        ("read", rf"^[^\S\n]*+(?:source|\\\.)\s+{_PATH}"),
    ))


def _run_time_actions(cmd: SimpleCommand) -> list[str]:
    """The file actions of console commands in words the shell expands first
    (``".output $HOME/.bashrc"``): the parameters are the shell's, the rest is as written. A
    word with a command substitution is left out (what it prints is not known here)."""
    found: list[str] = []
    for word in cmd.words[1:]:
        text = word.text
        if word.value is not None or "$(" in text or "`" in text or "'" in text:
            continue
        if len(text) >= 2 and text[0] == text[-1] == '"':
            text = text[1:-1]
        found += file_actions(text, expanding=True)
    return found


def file_actions(text: str, *, expanding: bool = False) -> list[str]:
    """The shell commands that do what a console's commands do to the files they name
    (``expanding``: the names hold the shell's parameters, ``$HOME/.bashrc``)."""
    if not any(c in text for c in ".\\"):
        cheap = text.lower()
        if not any(k in cheap for k in ("dump", "append", "logging", "save", "core", "tee",
                                        "source", "file(", "vacuum")):
            return []
    found: list[str] = []
    for verb, pattern in _FILE_COMMANDS:
        for match in pattern.finditer(text):
            path = next(g for g in match.groups() if g)
            if path not in ("stdout", "stderr", "-") and not path.startswith("|"):
                found.append(action(verb, path, expanding=expanding))
    return found
