"""Text tools with a way out: ``awk`` (``system()``, pipes, ``getline`` from commands, network
coprocesses), ``sed`` (``e`` and ``s///e`` run commands, ``w`` writes files) and ``jq``
(reading the environment and file names). Their everyday use stays ALLOW."""

from __future__ import annotations

import shlex

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.programs.awksites import awk_commands, literal_commands, unquote
from clawgate.programs.languages import (
    MAX_UNREAD_SCRIPT,
    sed_commands,
    sed_subst_flags,
    sed_without_text,
)
from clawgate.shell import model as m
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.argv import Options, operands, option_values, opts
from clawgate.validators.base import Context, Validator, register

_AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk", "original-awk"})
_AWK = opts("Ffvile", "field-separator assign file include load source")
_AWK_STRING = r'("(?:\\.|[^"\\])*")'
_AWK_NET = lazy_pattern(r"/inet\d?/")
# gawk's ``@load "NAME"``: a compiled extension (a shared object) loaded into awk, as ``-l``
_AWK_LOAD = lazy_pattern(r"@load\b")
# ``print "TEXT" | "sh"``: literal text printed into a shell is the shell's script.
_AWK_INTO_SHELL = lazy_pattern(rf"\bprintf?\s*\(?\s*{_AWK_STRING}\s*\)?\s*\|\s*"
                               r'"(?:/bin/|/usr/bin/)?(?:ba|da|z|k|mk)?sh"')
_SED = opts("efl", "expression file line-length")
_BLANKS = r"[^\S\n]*+"  # never a newline, which ends a command (with \s: cubic work)
_ADDRESS = r"(?:\d+|\$|/(?:\\.|[^/\\\n])*/)" \
           rf"(?:{_BLANKS}[,~]{_BLANKS}(?:\d+|\$|/(?:\\.|[^/\\\n])*/))?"
_SED_EXEC = lazy_pattern(rf"(?:^|[;\n{{}}]){_BLANKS}(?:{_ADDRESS})?{_BLANKS}!?{_BLANKS}e"
                         r"(?:[^\S\n]++(?P<cmd>[^;\n}]*))?[^\S\n]*(?:$|[;\n}])")
_SED_WRITE = lazy_pattern(rf"(?:^|[;\n{{}}]){_BLANKS}(?:{_ADDRESS})?{_BLANKS}!?{_BLANKS}[wW]"
                          r"[^\S\n]++(?P<file>\S+)")
_SED_SUBST = lazy_pattern(r"s(?P<d>[^\w\s\\])(?:\\.|(?!(?P=d)).)*(?P=d)(?:\\.|(?!(?P=d)).)*"
                          r"(?P=d)(?P<flags>[gpiImMew\d]*)(?:[^\S\n]*(?P<file>\S+))?")
_STD_STREAMS = frozenset({"/dev/stdout", "/dev/stderr"})
_JQ = opts("L", "indent from-file")
_JQ_PAIRS = frozenset({"--arg", "--argjson", "--slurpfile", "--rawfile"})
_JQ_REACH = lazy_pattern(r"\$ENV\b|(?<![\w$.])env\b|\$__loc__|\binput_filename\b|\$__prog_args")


def _scripts(cmd: SimpleCommand, long: str, spec: Options, operand: bool = True,
             cwd: str | None = None, home: str | None = None) -> list[str | None]:
    """Program texts: every ``-e`` value, else the first operand (None when dynamic); with
    ``operand`` false (``sed -f script.sed file``: the script is a file) only ``-e`` values.
    With ``cwd``, ``$PWD`` in a script stands for that directory (``with_cwd``)."""
    def text(word: Word) -> str | None:
        found = numbers_only(word)
        return found if found is not None or cwd is None else with_cwd(word, cwd, home)

    given = [v if v is not None or w is None else text(w)
             for _, w, v in option_values(cmd.words, 1, "e", frozenset(long.split()))]
    if given or not operand:
        return given
    found = operands(cmd.words, 1, spec)
    if not found:
        return []
    word = cmd.words[found[0]]
    return [word.value if word.value is not None else text(word)]


_PWD = lazy_pattern(r"\$(?:PWD\b|\{PWD\})")
_HOME = lazy_pattern(r"\$(?:HOME\b|\{HOME\})")
_ONLY_VARIABLES = frozenset({m.VARIABLE})


def with_cwd(word: Word, cwd: str, home: str | None = None) -> str | None:
    """The text of a word whose only run-time parts are ``$PWD`` (``"s#${PWD}#.#"``), each
    standing for ``cwd``, the directory the shell expands it in; None for any other dynamic
    word. The value is the directory itself, so a name that holds the delimiter or a newline
    changes the script exactly as it would at run time. Where the line moves to a directory
    only known at run time, or sets ``PWD``, before the command, the line check (CG-FS-004)
    asks instead."""
    text = _plain_body(word, _ONLY_VARIABLES)
    if text is None:
        return None
    text = _PWD.sub(lambda _: cwd, text)  # a function: the directory's text is taken as is
    if home is not None:  # ``$HOME`` likewise stands for the home directory
        text = _HOME.sub(lambda _: home, text)
    known = text.replace(cwd, "") if home is None else text.replace(cwd, "").replace(home, "")
    return None if any(ch in known for ch in "$`\"\\") else text


def _plain_body(word: Word, kinds: frozenset[str]) -> str | None:
    """The text of a word whose only run-time parts are of ``kinds``: inside one pair of double
    quotes, or unquoted with no quote or backslash; None otherwise."""
    if word.expansions != kinds:
        return None
    text = word.text
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return None if any(ch in text for ch in "'\"\\") else text


_ARITHMETIC = lazy_pattern(r"\$\(\((?:[^()$`]|\([^()$`]*\))*\)\)")
_ONLY_ARITHMETIC = frozenset({m.ARITHMETIC})


def numbers_only(word: Word) -> str | None:
    """The text of a word whose only run-time parts are ``$(( ))`` expansions, each standing
    for the integer it becomes (``"s/0.1.0/0.1.$((patch + 1))/g"``: a number adds no command
    to a script); None for any other dynamic word."""
    text = _plain_body(word, _ONLY_ARITHMETIC)
    if text is None:
        return None
    text = _ARITHMETIC.sub("0", text)
    return None if any(ch in text for ch in "$`\"\\") else text


@register
class AwkCommands(Validator):
    """awk programs that run commands (``system()``, ``print | "cmd"``, ``"cmd" | getline``,
    ``|&`` coprocesses). Where every command is known (a string literal, or a variable the
    line sets with ``-v NAME=VALUE``), each is judged as the command line ``sh -c`` runs, as
    ``sh -c 'CMD'`` would be (``print | "sort -u"`` is sort's); a command known only at run
    time asks; a command built from what a download printed, and ``/inet/`` network files
    (a remote shell in awk), are DENY; gawk's indirect call (``@f(CMD)``, which may call
    ``system``) asks, and so does ``@load`` (native code). A program in a file (``-f``) is a
    local script.

    Bad: ``awk 'BEGIN {system("/bin/sh")}'``, ``awk -v c='rm -rf ~' 'BEGIN{system(c)}'``.
    Harmless: ``awk -F, '{print $1}' data.csv``, ``awk '{ print | "sort -u" }' names.txt``.
    """

    id = "CG-INTERP-003"
    programs = _AWKS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in _AWKS:
            return NO_OPINION
        if any(w.shown in ("-f", "--file") or (w.shown.startswith("-f") and len(w.shown) > 2)
               for w in cmd.words[1:]):
            return NO_OPINION
        variables = awk_variables(cmd)
        for program in _scripts(cmd, "source", _AWK):
            if program is None:
                return Verdict.ask(self.id, "the awk program is only known at run time")
            if _AWK_NET.search(program):
                return Verdict.deny(self.id, "awk opens a network connection")
            if _AWK_LOAD.search(program):
                return Verdict.ask(self.id, "the awk program loads a compiled extension "
                                   "(@load): native code, run as awk starts")
            commands = awk_commands(program, variables)
            if commands is None:
                fetched = [c for c in literal_commands(program) if _fetches(c)]
                if fetched:
                    return Verdict.deny(self.id, f"the awk program runs a command built from "
                                        f"what {fetched[0]!r} prints: text from the network "
                                        "run", hint="download it, read it, then run it")
                return Verdict.ask(self.id, "the awk program runs commands built at run time")
            commands += _printed_into_shell(program)
            if commands:  # each the line sh -c runs, judged as that line
                return Verdict.unwrap(*commands)
        return NO_OPINION


def _printed_into_shell(program: str) -> list[str]:
    """The literal texts an awk program prints into a shell (``print "id" | "sh"``): the
    command lines that shell runs."""
    return [text for m in _AWK_INTO_SHELL.finditer(program)
            if (text := unquote(m.group(1))) is not None]


def awk_variables(cmd: SimpleCommand) -> dict[str, str]:
    """The variables awk's ``-v NAME=VALUE`` (``-vNAME=VALUE``, ``--assign``) set before the
    program runs, with known values. awk reads escapes in the value as in a string literal
    (``\\073`` is ``;``): a value holding one ``unquote`` does not spell out is left unknown."""
    found: dict[str, str] = {}
    for _, _, value in option_values(cmd.words, 1, "v", frozenset({"assign"})):
        name, eq, text = (value or "").partition("=")
        known = unquote(f'"{text}"') if eq and name.isidentifier() else None
        if known is not None:
            found[name] = known
        else:
            found.pop(name, None)  # a later -v of the same name wins: now unknown
    # an operand NAME=VALUE assigns too, before the input is read (awk -v c=date '{system(c)}'
    # c='…' f): such a name's value is not the -v one for the whole program
    spelled = [w.value.partition("=")[0] for w in cmd.words[1:]
               if w.value is not None and "=" in w.value and not w.value.startswith("-")]
    given = [(v or "").partition("=")[0] for _, w, v in
             option_values(cmd.words, 1, "v", frozenset({"assign"})) if w is not None]
    for name in list(found):
        if spelled.count(name) > given.count(name):
            del found[name]
    return found


def _first_word(command: str) -> str:
    words = command.split()
    return words[0].rsplit("/", 1)[-1] if words else ""


def _fetches(command: str) -> bool:
    """The command is a download printed on its output (``curl -s URL``, ``wget -qO- URL``)."""
    from clawgate.validators.fetchedrun import FETCHERS

    return _first_word(command) in FETCHERS


# Regular expressions that match a whole line: what ``s///e`` runs is then its replacement.
_WHOLE_LINE = frozenset({".*", "^.*", ".*$", "^.*$"})


def subst_command(command: str) -> str | None:
    """The command line an ``s`` command with the ``e`` flag runs when its expression matches
    the whole line and its replacement refers to no part of it (``s/.*/CMD/e`` runs CMD);
    None when what runs depends on the line read."""
    delimiter = command[1:2]
    parts: list[str] = []
    current: list[str] = []
    j = 2
    while j < len(command) and len(parts) < 2:
        ch = command[j]
        if ch == "\\" and j + 1 < len(command):
            current.append(command[j:j + 2])
            j += 2
            continue
        if ch == delimiter:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        j += 1
    if len(parts) < 2 or parts[0] not in _WHOLE_LINE:
        return None
    out: list[str] = []
    text = parts[1]
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "&":
            return None  # the matched line itself
        if ch == "\\" and i + 1 < len(text):
            following = text[i + 1]
            if following.isdigit():
                return None  # a group of the line
            out.append("\n" if following == "n" else following)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out).strip() or None


@register
class SedCommands(Validator):
    """sed scripts with the ``e`` command or the ``s///e`` flag (run a command): ASK, and check
    the command of ``e``. The files the ``w``/``W`` commands and the ``s///w`` flag write, and
    those ``r``/``R`` read into the output, are checked as ``tee FILE`` and ``cat FILE`` would
    be (``$PWD`` and ``$HOME`` in the script stand for those directories). A script in a file
    (``-f``) is a local script, as awk's is; its operands are the files edited.

    Bad: ``sed -n '1e id' /etc/hosts``. Harmless: ``sed -n '1,5p' notes.txt``.
    """

    id = "CG-INTERP-004"
    programs = frozenset({"sed", "gsed"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in ("sed", "gsed"):
            return NO_OPINION
        from_file = bool(option_values(cmd.words, 1, "f", frozenset({"file"})))
        scripts = _scripts(cmd, "expression", _SED, operand=not from_file, cwd=ctx.cwd,
                           home=ctx.home)
        if len(scripts) > 1 and None not in scripts:  # sed joins -e pieces with newlines
            scripts = ["\n".join(s or "" for s in scripts)]
        if self.defers(cmd, scripts):
            return NO_OPINION  # numbers, hex digits, dates: CG-INTERP-012 reads the line
        for script in scripts:
            if script is None:
                return Verdict.ask(self.id, "the sed script is only known at run time")
            verdict = self._script(script)
            if verdict.outcome is not Outcome.PASSTHROUGH or verdict.nested:
                return verdict
        return NO_OPINION

    def defers(self, cmd: SimpleCommand, scripts: list[str | None] | None = None,
               ctx: Context | None = None) -> bool:
        """The one script of ``cmd`` is not known here and is built only of values whose
        characters the line may tell: CG-INTERP-012 judges it with the line."""
        if scripts is None:
            from_file = bool(option_values(cmd.words, 1, "f", frozenset({"file"})))
            scripts = _scripts(cmd, "expression", _SED, operand=not from_file,
                               cwd=None if ctx is None else ctx.cwd,
                               home=None if ctx is None else ctx.home)
        # only a command of the line itself: one a wrapper or find -exec runs is checked on
        # its own, where no line check reads the values (cmd.depth counts the unwrappings)
        return cmd.depth == 0 and scripts == [None] and _values_known_on_the_line(cmd)

    def script_verdict(self, script: str) -> Verdict:
        """What the sed script ``script`` runs, writes and reads (CG-INTERP-012 reads scripts
        built from values of known characters with it)."""
        return self._script(script)

    def _script(self, script: str) -> Verdict:
        commands = sed_commands(script)
        if commands is None:
            if len(script) > MAX_UNREAD_SCRIPT:
                return Verdict.ask(self.id, "the sed script could not be read (longer than "
                                   f"{MAX_UNREAD_SCRIPT} characters and not well formed)")
            return self._by_pattern(script)
        for command in commands:
            if command[0] == "e":
                inner = command[1:].strip()
                return Verdict.unwrap(*([inner] if inner else []), outcome=Outcome.ASK,
                                      rule_id=self.id, message="the sed e command runs a command")
        files: list[str] = []  # what the script reads and writes, as the commands that would
        for command in commands:
            if command[0] == "s":
                flags, written = sed_subst_flags(command)
                if "e" in flags:
                    run = subst_command(command)
                    return Verdict.unwrap(*([run] if run else []), outcome=Outcome.ASK,
                                          rule_id=self.id, message="the s///e flag runs the "
                                          "result as a command")
                if written is not None and written not in _STD_STREAMS:
                    files.append(f"tee -- {shlex.quote(written)}")
            elif command[0] in "wW" and command[1:].strip() not in ("", *_STD_STREAMS):
                files.append(f"tee -- {shlex.quote(command[1:].strip())}")
            elif command[0] in "rR" and command[1:].strip() not in ("", "/dev/stdin"):
                files.append(f"cat -- {shlex.quote(command[1:].strip())}")
        return Verdict.unwrap(*files) if files else NO_OPINION

    def _by_pattern(self, script: str) -> Verdict:
        """A script the reader cannot follow (short: the patterns' work grows faster than it),
        matched by patterns."""
        script = sed_without_text(script)  # a/i/c text is written out, never run
        found = _SED_EXEC.search(script)
        if found is not None:
            inner = (found.group("cmd") or "").strip()
            return Verdict.unwrap(*([inner] if inner else []), outcome=Outcome.ASK,
                                  rule_id=self.id, message="the sed e command runs a command")
        for sub in _SED_SUBST.finditer(script):
            flags = sub.group("flags")
            if "e" in flags:
                return Verdict.ask(self.id, "the s///e flag runs the result as a command")
            if "w" in flags and sub.group("file") not in _STD_STREAMS:
                return Verdict.ask(self.id, "the s///w flag writes a file")
        plain = _SED_SUBST.sub("", script)
        written = _SED_WRITE.search(plain)
        if written is not None and written.group("file") not in _STD_STREAMS:
            return Verdict.ask(self.id, f"the sed w command writes {written.group('file')!r}")
        return NO_OPINION


@register
class JqReach(Validator):
    """jq filters that read beyond their input: the environment (``$ENV``, ``env``, where
    secrets live), file names and locations (``input_filename``, ``$__loc__``). ASK.

    Bad: ``jq -n env``. Harmless: ``jq '.name' data.json``, ``jq -f filter.jq data.json``.
    """

    id = "CG-INTERP-005"
    programs = frozenset({"jq", "gojq", "jaq"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in ("jq", "gojq", "jaq"):
            return NO_OPINION
        if any(w.shown in ("-f", "--from-file") for w in cmd.words[1:]):
            return NO_OPINION
        words = _without_named_values(cmd)
        found = operands(words, 1, _JQ)
        if not found:
            return NO_OPINION
        program = words[found[0]].value
        if program is None:
            return Verdict.ask(self.id, "the jq filter is only known at run time")
        if _JQ_REACH.search(program):
            return Verdict.ask(self.id, "the jq filter reads the environment or file names")
        return NO_OPINION


def _values_known_on_the_line(cmd: SimpleCommand) -> bool:
    """The one script of ``cmd`` is built only of values whose characters the line may tell
    (``sedvalues.py``)."""
    from clawgate.validators.sedvalues import deferred, script_words

    words = script_words(cmd)
    return len(words) == 1 and words[0] is not None and deferred(words[0])


def _without_named_values(cmd: SimpleCommand) -> tuple[Word, ...]:
    """jq's words without ``--arg NAME VALUE`` and its kin, which take two values."""
    out: list[Word] = []
    skip = 0
    for word in cmd.words:
        if skip:
            skip -= 1
        elif word.shown in _JQ_PAIRS:
            skip = 2
        else:
            out.append(word)
    return tuple(out)
