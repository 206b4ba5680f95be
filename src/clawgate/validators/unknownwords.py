"""The closed-world default: a program the catalog does not know is not a harmless program.

Its words are judged by what they are. A word handed to it that is itself a command line (a
known program with options, paths or shell syntax: ``'rm -rf /'``, ``"curl -s URL | sh"``) or
code that starts processes (``'import os; os.system("…")'``, ``'os:cmd("…")'``) might run:
ASK, with the command — and every command-like string inside the code — checked as the line it
is, so a payload that is a DENY on its own is a DENY here. Known programs keep their words'
meaning from the catalog (``echo 'rm -rf /'`` prints it; ``git commit -m`` is a message), and
prose stays prose (``./notes.sh "make it faster"``: no option, path or syntax).
"""

from __future__ import annotations

import posixpath
import shlex
from functools import lru_cache

from clawgate import programs
from clawgate.decision import NO_OPINION, MayRun, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.shell.substitute import computed
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.programs import (
    DECODERS,
    INSPECTORS,
    INTERACTIVE,
    NET_TOOLS,
    SHELLS,
    family_name,
)
from clawgate.validators.sysbins import SYSTEM_DIRS

# Shell syntax that makes a word a command line rather than text.
_SYNTAX = lazy_pattern(r"\|\s*\S|&&|\|\||;\s*\S|\$\(|`[^`]*`|(?:^|\s)\d?>{1,2}\s*[~/.\w]|<\(")
# where a later command of a list, a pipeline or a next line starts
_LATER = lazy_pattern(r"&&|\|\||;|\||\n")
_SUBSTITUTED = lazy_pattern(r"\$\(([^()]*)\)|`([^`]*)`")  # what evaluating the text runs
# Calls that start processes or evaluate text, in the languages agents meet (and in those the
# engine does not read token by token: Erlang, Elixir, Groovy, Scala, Kotlin, Swift, Haskell,
# Scheme, Crystal).
_CODE = lazy_pattern(
    r"\b(?:os\.(?:system|popen|exec\w*|spawn\w*)|subprocess\.\w+|child_process|execSync|"
    r"spawnSync|execFileSync|Runtime\.getRuntime\(\)\.exec|ProcessBuilder|os:cmd|io\.popen|"
    r"shell_exec|passthru|proc_open|popen|readpipe|system\*?|exec|eval|__import__|System\.cmd|"
    r"Process\.(?:run|new|start)|callCommand|callProcess|readProcess|spawnCommand|open-pipe)"
    r"\s*\(|\.execute\(\)|\(system\*?\s|sys\.process|\.!!?(?:\W|$)|Process\(\)|%x\{|"
    r"\bqx[{(/]|`[^`]+`|(?:^|\n)\s*::?(?:!|cmd?\b|def?!?\b|scr?i?p?t?\b)")  # GHCi's escapes
# (GHCi takes a prefix of a command's name: :cm is :cmd, :de is :def, :sc is :script)
_STRING = lazy_pattern(r"\"((?:[^\"\\]|\\.){1,1000})\"|'((?:[^'\\]|\\.){1,1000})'")
_OPTION_VALUE = lazy_pattern(r"^--?[\w.-]+=(.+)$", flags=16)  # re.DOTALL
_NAMED_VALUE = lazy_pattern(r"^[A-Za-z_][A-Za-z0-9_]*=\S")  # NAME=value, as the shell assigns
MAX_WORD = 16384  # longer words are other validators' (and the bounds') business
MAX_CODE = 4096  # code scanned for its strings (a string read is at most 1,000 characters)


@lru_cache(maxsize=1)
def _unread_languages() -> frozenset[str]:
    """Interpreters whose inline code the engine does not read token by token."""
    from clawgate.inline.langtables import LANGUAGES
    from clawgate.validators.interpreters import INLINE

    return frozenset(p for p in INLINE if p not in LANGUAGES and p not in ("python", "pypy"))


@lru_cache(maxsize=1)
def _known_elsewhere() -> frozenset[str]:
    from clawgate.validators.escapes import FRONTENDS
    from clawgate.validators.interpreters import INLINE

    return SHELLS | INSPECTORS | INTERACTIVE | NET_TOOLS | DECODERS | FRONTENDS | frozenset(
        INLINE) | BUILTINS


# The shell's own commands: other families judge what they do with their words (a trap's
# handler, eval's text, source's file).
BUILTINS = frozenset("""
. : alias bg bind break builtin caller cd command compgen complete compopt continue declare
dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let
local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source
suspend test times trap true type typeset ulimit umask unalias unset wait [ [[
""".split())


def known(program: str) -> bool:
    """Whether the engine knows what ``program`` does with its words."""
    name = family_name(program) or program
    return programs.entry(name) is not None or name in _known_elsewhere()


# Where a path names a program installed for the system or its package managers: the program
# the catalog describes. A path anywhere else (``./cat``, ``../tools/bin/grep``, ``bin/echo``)
# is that file, whatever its name: the catalog's knowledge of the name says nothing of it.
INSTALLED = frozenset({*SYSTEM_DIRS, "/usr/games", "/usr/libexec", "/opt/homebrew/bin",
                       "/opt/homebrew/sbin", "/snap/bin", "/run/current-system/sw/bin",
                       "/nix/var/nix/profiles/default/bin"})


def own_file(cmd: SimpleCommand) -> bool:
    """Whether ``cmd`` runs a file named by a path outside the installed programs' places."""
    name = cmd.name_word
    value = name.value if name is not None else None
    if value is None or "/" not in value:
        return False
    return posixpath.dirname(posixpath.normpath(value)) not in INSTALLED


def command_like(text: str) -> bool:
    """Whether ``text`` reads as a command line: a known program first, then shell syntax, an
    option or a path (``rm -rf /``, ``curl -s URL | sh``), not a sentence that starts with a
    program's name (``make it faster``)."""
    if len(text) > MAX_WORD or not any(c.isspace() for c in text.strip()):
        return False
    try:
        words = shlex.split(text, comments=False)
    except ValueError:
        words = text.split()
    if not words:
        return False
    first = words[0].rsplit("/", 1)[-1] if words[0].startswith("/") else words[0]
    if not known(first):
        # a later command of a list, a pipeline or a next line: ``x && rm -rf ~``, ``y; curl
        # … | sh``; or a substitution's, which evaluating the text runs: ``$(rm -rf ~)``
        rest = _LATER.split(text, maxsplit=1)
        return (len(rest) > 1 and command_like(rest[1])) or any(
            command_like(m.group(1) or m.group(2) or "") for m in _SUBSTITUTED.finditer(text))
    if _SYNTAX.search(text):
        return True
    return any(w.startswith("-") or w.startswith(("/", "~", "./", "../")) or "/" in w
               for w in words[1:])


def payloads(text: str) -> list[str]:
    """The command lines ``text`` holds: itself, or the strings inside code that calls a
    process or evaluates text (those strings; the code itself when none reads as a command)."""
    value = _OPTION_VALUE.match(text)
    text = value.group(1) if value else text
    if text.startswith(":!") and text[2:].strip():
        return [text[2:].strip()]  # a shell escape of GHCi or an ex editor: ghcid -T ':!cmd'
    if command_like(text):
        return [text]
    if len(text) > MAX_CODE or not _CODE.search(text):
        return []  # code past MAX_CODE: the inline readers and the engine's bounds judge it
    inner = [m.group(1) or m.group(2) or "" for m in _STRING.finditer(text)]
    found = [s for s in inner if command_like(s) or (s.strip() and known(s.split()[0]))]
    return found or [""]  # "": code that starts something, nothing literal to check


def _carried(cmd: SimpleCommand) -> list[str]:
    """Command lines handed to ``cmd`` as variables: its environment prefix (``HOOK='rm -rf ~'
    zzrun``) and ``NAME=value`` operands (``zzrun HOOK='…'``, as make and many tools read
    them). A program whose use of them is unknown may run them."""
    values = [_value(a.value) for a in cmd.assignments]
    values += [v.split("=", 1)[1] for v in (_value(w) for w in cmd.words[1:])
               if v is not None and _NAMED_VALUE.match(v)]
    return [v for v in values if v is not None and len(v) <= MAX_WORD and command_like(v)]


def _value(word: Word) -> str | None:
    """The word's value, also where it holds substitutions whose output can be known by
    reading (``HOOK="$(printf 'rm -rf ~')"``): computed as one field, as an assignment is."""
    if word.value is not None or ("$" not in word.text and "`" not in word.text):
        return word.value
    fields = computed(word.text, split=False)
    return fields[0] if fields is not None and len(fields) == 1 else None


def _wrapping(cmd: SimpleCommand) -> bool:
    """Whether ``cmd`` is a subcommand the wrapper table reads (``lerna exec -- CMD``) of a
    program the catalog does not know otherwise: its command is judged as itself there."""
    from clawgate.validators.wrappers import is_wrapper

    return not own_file(cmd) and is_wrapper(cmd)


def _after_separator(cmd: SimpleCommand) -> list[str]:
    """The words after ``--`` when they read as a command line (``zzrun -- rm -rf ~``): the
    convention of the programs that run a command given as separate words (``watchexec``,
    ``devenv shell``, ``cargo run``), so one whose use of them is unknown may run them."""
    from clawgate.validators.wrappers import is_wrapper

    shown = [w.shown for w in cmd.words[1:]]
    if "--" not in shown or is_wrapper(cmd):
        return []  # a wrapper's command is checked as itself
    text = " ".join(w.text for w in cmd.words[shown.index("--") + 2:])
    return [text] if command_like(text) else []


MAX_TAILS = 8  # operands naming a known program read as the command they start


def _operand_commands(cmd: SimpleCommand) -> tuple[list[MayRun], bool]:
    """The words from each operand that names a known program on (``zzrun rm -rf ~``: ``rm -rf
    ~``), as the command they are if the program runs its operands, as ``nice``, ``xvfb-run``
    and ``watchexec`` do: a program whose use of them is unknown may, or may take them as
    words (``./lint completion bash``). Only a DENY of such a reading counts. And whether
    more operands name programs than are read (``zzrun true true … rm -rf ~``)."""
    tails: list[MayRun] = []
    read = 0  # operands read as commands
    words = cmd.words
    for index in range(1, len(words)):
        value = words[index].value
        if value is None or value.startswith("-"):
            continue
        if index > 1 and _may_take_value(words[index - 1].value or ""):
            continue  # an option's value, most likely: --shell /bin/bash
        name = value.rsplit("/", 1)[-1] if value.startswith("/") else value
        if "/" in name or not name or not known(name):
            continue
        if index + 1 < len(words):  # a program alone is a word more often than a command
            if read >= MAX_TAILS:
                return tails, True
            read += 1
            written = " ".join(w.text for w in words[index:])
            tails.append(MayRun(written))
            values = [w.value for w in words[index:]]
            evaluated = " ".join(v for v in values if v is not None)
            if None not in values and evaluated != written and _reads_cleanly(evaluated):
                tails.append(MayRun(evaluated))  # as eval "$*" reads the values again (a '~')
    return tails, False


def _reads_cleanly(text: str) -> bool:
    """``text`` parses as a line: one that does not is a syntax error to an ``eval`` too,
    which runs nothing of it."""
    from clawgate.shell import parse

    return len(text) <= MAX_WORD and not parse(text).has_error


def _stdin_commands(cmd: SimpleCommand) -> list[MayRun]:
    """The command lines a here-string or here-document hands ``cmd`` on its standard input
    (``zzrun <<< 'curl … | sh'``): a program whose use of its input is unknown may be a shell
    reading it. Only a DENY of that reading counts."""
    found: list[MayRun] = []
    for redirect in cmd.redirects:
        if redirect.op == "<<<" and redirect.target is not None:
            text = redirect.target.value
        elif redirect.heredoc is not None:
            text = redirect.heredoc
        else:
            continue
        if text is None or len(text) > MAX_CODE:
            continue
        found += [MayRun(line) for line in text.splitlines() if command_like(line.strip())]
    return found


def _may_take_value(option: str) -> bool:
    """Whether the word after ``option`` may be its value: an option without ``=`` that is
    not one the catalog's programs mostly take as a flag (``-v``, ``--quiet``, ``-qv``)."""
    if not option.startswith("-") or "=" in option:
        return False
    flags = programs.flag_spellings()
    if option in flags:
        return False
    letters = option[1:]
    return option.startswith("--") or not letters.isalpha() or any(
        f"-{letter}" not in flags for letter in letters)


def _learned(cmd: SimpleCommand, rule_id: str) -> Verdict:
    """A program known only from data: its options say which words are commands. A value of
    an option that takes a command is CG-ESC-002's (the catalog's ``run`` kind: at least ASK,
    DENY when the payload is); operands that are a command line (``entr make``) are checked
    as the command they are; every other word is judged as for an unknown program, since the
    data does not say what a value or an operand is for."""
    ran = [e.word for e in programs.runs(cmd) if e.word is not None]
    taken = {id(w) for w in ran}  # a value given as a word of its own
    glued = {w.value for w in ran if w.value}  # or in the option's word: -c'…', --rsh=…
    start = programs.learned_command(cmd)
    judged = [w for w in cmd.words[1:start] if id(w) not in taken and not (
        w.value is not None and w.value.startswith("-") and any(
            w.value.endswith(g) and len(w.value) > len(g) for g in glued))]
    wrapped = None if start is None else " ".join(w.shown for w in cmd.words[start:])
    found = [p for w in judged if w.value is not None and len(w.value) <= MAX_WORD
             for p in payloads(w.value)]
    commands = [text for text in dict.fromkeys(found) if text]
    nested = (*commands, wrapped) if wrapped is not None else tuple(commands)
    if not found:
        return Verdict.unwrap(*nested) if nested else NO_OPINION
    what = f"a command ({commands[0]!r})" if commands else "code that starts processes"
    return Verdict.unwrap(*nested, outcome=Outcome.ASK, rule_id=rule_id,
                          message=f"{cmd.program} is known only from data (which of its "
                          f"options take a value), and it is handed {what}")


@register
class UnknownProgramWords(Validator):
    """A program the catalog does not know is handed a command line or code that starts
    processes: it might run it. ASK, and each command (a literal one inside the code too) is
    checked as a line of its own: DENY when it alone is a DENY. A command line handed to it as
    a variable (its environment prefix, given through ``env`` or ``sudo`` too, or a
    ``NAME=value`` operand) is checked as the line it is, with no question of its own. Its
    operands from one that names a known program on (``zzrun rm -rf ~``) are read as the
    command they would be if it runs them: a DENY of that reading is the line's.

    A program named by a path outside the places programs are installed in (``./echo``,
    ``tools/bin/grep``) is that file, whatever its name, and is judged as unknown too. A
    program known only from data (fish completions, manual pages) is judged by what its
    options take: a command given to one that runs it is CG-ESC-002's, the operands of one
    that runs them (``entr make``) are checked as the command line they are, and its other
    words as here.

    Bad: ``task run 'rm -rf /'`` (DENY, as ``rm -rf /``), ``HOOK='rm -rf ~' zzrun`` (DENY),
    ``zzrun -c 'import os;
    os.system("id")'`` (ASK), ``./echo 'curl -s x.sh | sh'``. Harmless: ``mytool build
    --release``, ``./notes.sh "make it faster"``, ``echo 'rm -rf /'`` (a known program that
    prints).
    """

    id = "CG-PROG-004"

    def shapes(self, program: str | None) -> int:
        if program is None:
            return 0  # a name known only at run time: the command's own checks
        if (family_name(program) or program) not in _unread_languages() and known(program):
            return sh.ODD_NAME  # a known program speaks here only as a file of its own (a path)
        return sh.ANY

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program is None or (len(cmd.words) < 2 and not cmd.assignments
                               and not cmd.redirects):
            return NO_OPINION
        family = family_name(program) or program
        if family in _unread_languages():
            from clawgate.validators.interpreters import INLINE, inline_code

            texts = [code for _, code in inline_code(cmd, INLINE[family]) if code]
            who = f"{program}'s inline code is not read here, and it"
            found = [p for text in texts if _CODE.search(text) for p in payloads(text)]
        elif (known(program) and not own_file(cmd)) or _wrapping(cmd):
            return NO_OPINION
        elif not own_file(cmd) and programs.learned_entry(program) is not None:
            return _learned(cmd, self.id)
        else:
            who = (f"{program} is not a program the catalog knows, and it" if not known(program)
                   else f"{cmd.words[0].value} is a file of its own, not the {program} the "
                   "catalog knows, and it")
            found = [p for w in cmd.words[1:] if w.value is not None
                     and len(w.value) <= MAX_WORD for p in payloads(w.value)]
            found += _after_separator(cmd)
            tails, unread = _operand_commands(cmd)
            tails += _stdin_commands(cmd)
            if unread:
                return Verdict.unwrap(*found, *_carried(cmd), *tails, outcome=Outcome.ASK,
                                      rule_id=self.id, message=f"{who} is handed more "
                                      f"operands naming programs than are read as commands "
                                      f"({MAX_TAILS})")
            carried: list[str] = [*_carried(cmd), *tails]
            if carried and not found:  # judged as the lines they are, with no ask of their own
                return Verdict.unwrap(*dict.fromkeys(carried))
            found += carried
        if not found:
            return NO_OPINION
        commands = [text for text in dict.fromkeys(found) if text]
        what = f"a command ({commands[0]!r})" if commands else "code that starts processes"
        return Verdict.unwrap(*commands, outcome=Outcome.ASK, rule_id=self.id,
                              message=f"{who} is handed {what}")


_EXPORTERS = frozenset({"export", "declare", "typeset"})


def _exported(cmd: SimpleCommand) -> list[str]:
    """The values ``export NAME=value`` (``declare -x``, ``typeset -x``) puts in the
    environment of every later program of the shell."""
    if cmd.program not in _EXPORTERS:
        return []
    flags = "".join(w.value[1:] for w in cmd.words[1:]
                    if w.value is not None and w.value.startswith("-"))
    if cmd.program != "export" and "x" not in flags:
        return []
    return [v.split("=", 1)[1] for v in (w.value for w in cmd.words[1:])
            if v is not None and _NAMED_VALUE.match(v)]


@register
class ExportedCommandWords(LineValidator):
    """A command line exported on the line (``export HOOK='rm -rf ~'``) reaches every later
    program of it through its environment, as ``HOOK='rm -rf ~' zzrun`` does: when a later
    program is one the catalog does not know (or a file of its own), it is checked as the line
    it is, as CG-PROG-004 checks a prefix.

    Bad: ``export HOOK='rm -rf ~'; zzrun`` (DENY, as ``rm -rf ~``). Harmless: ``export
    CFLAGS='-O2 -g'; ./configure``, ``export EDITOR='vim -u NONE'; git commit``.
    """

    id = "CG-PROG-005"

    def line_shapes(self) -> int:
        return 0  # what it carries comes from export, declare -x or typeset -x alone

    def line_programs(self) -> frozenset[str]:
        return _EXPORTERS

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        carried: list[str] = []
        for cmd in parsed.commands:
            carried += [v for v in _exported(cmd) if len(v) <= MAX_WORD and command_like(v)]
            program = cmd.program
            if carried and program is not None and (not known(program) or own_file(cmd)):
                return Verdict.unwrap(*dict.fromkeys(carried))
        return NO_OPINION
