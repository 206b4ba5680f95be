"""Injection through the command word and through expansions that build text at run time.

What runs must be readable before it runs: a program named by a variable, a substitution, a
glob or braces, or spelled with quotes, escapes, encodings or odd letter case, is not.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell import model as m
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.functioncalls import POSITIONAL_NAME
from clawgate.validators.programs import (
    INSPECTORS,
    INTERACTIVE,
    NET_TOOLS,
    SHELLS,
    words_of,
)
from clawgate.validators.textscan import quote_marks
from clawgate.validators.wraptable import PLAIN, PRIVILEGED

_NEEDS_QUOTING = lazy_pattern(r"[\s'\"\\$`;&|<>(){}*?\[\]#~!]")
_PERCENT = lazy_pattern(r"%[0-9A-Fa-f]{2}")
_KEYWORDS = words_of("if then else elif fi do done while until for case esac in function "
                     "select { } ! (( ))")
_IFS = lazy_pattern(r"\$\{?IFS(?:[^}\w][^}]{0,80})?\}?")
_IFS_WORD = lazy_pattern(r"\$\{IFS\}|\$IFS\b")  # as the shell splits it: a space
_PROMPT = lazy_pattern(r"\$\{[^}]*@[PEAKa]\}")
_ENV_SLICE = lazy_pattern(r"\$\{(?:HOME|PATH|PWD|OLDPWD|SHELL|IFS|USER|LOGNAME|LS_COLORS|HOSTNAME|"
                          r"TERM|LANG|SHELLOPTS|BASH\w*|PS\d):\s*-?\d|\$\{\w+:\s*-?\d+:1\}")
# ${name//pattern/replacement}: every match replaced, the obfuscators' favourite way to hide a
# word in noise (``${x//hhh/}``); single replacements (``${f/.txt/.md}``) and edits of the
# everyday lists (``${PATH//:/ }``) stay ALLOW.
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_ASSIGNED = lazy_pattern(r"^[A-Za-z_]\w*(?:\[[^\]]*\])?\+?=")
_PATTERN_EDIT = lazy_pattern(r"\$\{(?!(?:PATH|PWD|HOME|OLDPWD)//)[A-Za-z_][A-Za-z0-9_]*//")
_INDIRECT = lazy_pattern(r"\$\{![A-Za-z_][A-Za-z0-9_]*\}")  # not the ${!arr[@]} / ${!pre*} lists
_ANSI_ESCAPE = lazy_pattern(r"\\(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|([0-7]{1,3}))")
KNOWN = (INSPECTORS | SHELLS | NET_TOOLS | INTERACTIVE | frozenset(PLAIN) | frozenset(PRIVILEGED)
         | words_of("whoami id rm mv cp chmod chown curl wget python perl ruby sudo"))


def _dynamic_text(word: Word) -> bool:
    """A substitution or expansion in the word's text, even one the parser kept as literal."""
    return word.value is None or "`" in word.text or "$(" in word.text


_PLAIN_NAME = lazy_pattern(r"[A-Za-z_][\w.+-]*")
_PLAIN_PATH = lazy_pattern(r"[\w./+][\w./+-]*")


@register
class DynamicCommandWord(Validator):
    """The program is only known at run time: a variable, an indirect expansion, or the output
    of a command substitution runs as the command. ASK.

    Bad: ``$(echo rm) -rf ~`` or ``$CMD``. Harmless: ``echo "$HOME"`` (a variable as argument).
    """

    id = "CG-INJ-001"

    def shapes(self, program: str | None) -> int:
        return sh.ODD_NAME

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name = cmd.name_word
        if name is None or not _dynamic_text(name):
            return NO_OPINION
        if "function" in cmd.nesting and POSITIONAL_NAME.fullmatch(name.text):
            return NO_OPINION  # the function's calls say what runs (CG-IDENT-006)
        if m.COMMAND in name.expansions or "`" in name.text or "$(" in name.text:
            return Verdict.ask(self.id, "the output of a command substitution runs as a command",
                               hint="name the program literally")
        return Verdict.ask(self.id, f"the program name {name.text!r} is only known at run time",
                           hint="name the program literally")


@register
class QuotedCommandName(Validator):
    """Quotes or backslashes inside a program name that needs none: a classic way past filters
    that match names (``w'h'o'am'i``, ``r""m``, ``c\\at``). ASK.

    A single leading backslash on a plain name (``\\ls``, ``\\cp -f a b``, and ``\\.``, the
    ``source`` builtin's dot as nvm's installer writes it) is the POSIX idiom that skips alias
    expansion, and one pair of quotes round a whole name or path
    (``"ghc-9.2.8" --version``, ``"/usr/bin/scp"``) is how scripts write names they keep in
    variables elsewhere: both are judged as the program they name, like any other. Quotes
    inside a name (``r''m``, ``"r"m``) split it for no reason but a filter's.

    Bad: ``r''m -rf ~``, ``c\\at``. Harmless: ``"./my script.sh"`` (the space needs the quotes),
    ``\\cp -f a b``.
    """

    id = "CG-INJ-002"

    def shapes(self, program: str | None) -> int:
        return sh.ODD_NAME

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name = cmd.name_word
        if name is None or not name.quoted or name.value is None:
            return NO_OPINION
        if name.text[:1] == "\\" and name.text[1:] == name.value and (
                _PLAIN_NAME.fullmatch(name.value) or name.value == "."):
            return NO_OPINION  # \ls: alias expansion skipped
        if name.text[:1] in "\"'" and name.text == name.text[0] + name.value + name.text[0] \
                and _PLAIN_PATH.fullmatch(name.value):
            return NO_OPINION  # "ghc-9.2.8": one pair of quotes round the whole name
        if m.ANSI_C in name.expansions or not _NEEDS_QUOTING.search(name.value):
            return Verdict.ask(self.id, f"the program name {name.text!r} is disguised by quoting "
                               f"(it runs {name.value!r})", hint="write the name plainly")
        return NO_OPINION


@register
class PatternCommandName(Validator):
    """A glob or brace expansion in the program name: the files on disk decide what runs
    (``/???/??t``, ``{cat,/etc/passwd}``, ``{l,-lh}s``). ASK.

    Bad: ``/???/b??/c?t /etc/shadow``. Harmless: ``ls *.txt`` (a glob as argument).
    """

    id = "CG-INJ-003"

    def shapes(self, program: str | None) -> int:
        return sh.ODD_NAME

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name = cmd.name_word
        if name is None or not name.expansions & {m.GLOB, m.BRACE}:
            return NO_OPINION
        return Verdict.ask(self.id, f"the program name {name.text!r} is a pattern expanded at "
                           "run time", hint="name the program literally")


@register
class EncodedCommandName(Validator):
    """URL-encoded text in the program name (``cat%20/etc/passwd``) is an injection payload
    written for another decoder: ASK, and check what it decodes to.

    Bad: ``cat%20/et%5C%0Ac/passwd``. Harmless: ``curl 'https://h/a%20b'`` (in an argument).
    """

    id = "CG-INJ-004"

    def shapes(self, program: str | None) -> int:
        return sh.ODD_NAME

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name = cmd.name_word
        if name is None or "%" not in name.text or not _PERCENT.search(name.text):
            return NO_OPINION
        from urllib.parse import unquote  # rare here; ~2.5 ms (with ipaddress) at start-up

        decoded = unquote(cmd.text)
        return Verdict.unwrap(decoded, outcome=Outcome.ASK, rule_id=self.id,
                              message="URL-encoded program name")


@register
class MixedCaseCommandName(Validator):
    """A well-known program written in mixed case (``wHoAmI``): case-insensitive filesystems
    run it all the same, and filters that match names miss it. ASK.

    Bad: ``WhoAmI``. Harmless: ``Rscript x.R`` (its real name).
    """

    id = "CG-INJ-005"

    def shapes(self, program: str | None) -> int:
        return 0 if not program or program.islower() or not program.isalpha() else sh.ANY

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if not program or program.islower() or not program.isalpha():
            return NO_OPINION
        lowered = program.lower()
        if lowered != program and lowered in KNOWN:
            return Verdict.ask(self.id, f"{program!r} is {lowered!r} in disguise")
        return NO_OPINION


@register
class KeywordAsCommand(Validator):
    """A shell keyword where a program should be (``then``, ``fi``, ``if`` as a command): the
    parsers read the line differently from the shell. ASK.

    Bad: ``x=1 if a; then :; fi`` (after an assignment ``if`` is a command's name, and
    ``then`` is out of place). Harmless: ``if true; then ls; fi``, ``time { make; }`` (read
    correctly, no keyword runs as a program).
    """

    id = "CG-INJ-006"

    def shapes(self, program: str | None) -> int:
        return sh.ANY if program in _KEYWORDS else 0

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name = cmd.name_word
        if name is None or name.value not in _KEYWORDS:
            return NO_OPINION
        return Verdict.ask(self.id, f"the shell keyword {name.value!r} stands as a command",
                           hint="simplify the line")


@register
class ExpansionTricks(Validator):
    """Expansions that build words at run time to hide them: ``$IFS`` as a separator
    (``cat${IFS}/etc/passwd``), prompt expansion (``${x@P}`` runs substitutions), slices of
    environment variables as characters (``${HOME:0:1}``), words rebuilt by global pattern
    substitution (``${x//hhh/}``), and ANSI-C escapes that spell out plain text
    (``$'\\x72\\x6d'``). ASK.

    Indirect expansion and pattern substitution given to ``echo``/``printf`` are only printed
    (``echo "${name//-/_}"``): what a printer's text becomes once it is piped or written is
    judged where it goes. Pattern substitution in a value assigned (``V="${V//v}"``) is
    judged by CG-INJ-033 with the rest of the line: whether it can spell a word the line hides.

    Bad: ``ls${IFS}-la``. Harmless: ``echo "$IFS"``, ``cut -d $'\\t' -f1``.
    """

    id = "CG-INJ-007"

    def shapes(self, program: str | None) -> int:
        return sh.DOLLAR

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if "$" not in cmd.text:
            return NO_OPINION
        printer = cmd.program in ("echo", "printf")
        values = {id(a.value) for a in cmd.assignments}
        declarer = cmd.program in _DECLARERS
        for word in [*cmd.words, *(a.value for a in cmd.assignments)]:
            # a value assigned: its pattern substitutions are CG-INJ-033's (patternvalues.py)
            assigned = id(word) in values or (declarer and _ASSIGNED.match(word.text) is not None)
            why = _trick(word, printer, assigned)
            if why and why.startswith("$IFS"):
                # Word splitting on $IFS: check the line the shell will run, too.
                split = _IFS_WORD.sub(" ", cmd.text)
                return Verdict.unwrap(split, outcome=Outcome.ASK, rule_id=self.id,
                                      message=why)
            if why:
                return Verdict.ask(self.id, why, hint="write the text out plainly")
        return NO_OPINION


def _trick(word: Word, printer: bool = False, assigned: bool = False) -> str | None:
    text = word.text
    if "$" not in text:
        return None
    if "IFS" in text and _IFS.search(text) and _IFS.sub("", text).strip("\"'"):
        return f"$IFS used as a word separator in {text!r}"
    if "@" in text and _PROMPT.search(text):
        return f"prompt or escape expansion in {text!r} runs or decodes text"
    if "{" in text and _ENV_SLICE.search(text):
        return f"characters cut out of environment variables in {text!r}"
    if "{!" in text and not printer and _INDIRECT.search(text):
        return f"indirect expansion in {text!r} hides which variable is used"
    if "{" in text and not printer and not assigned and _PATTERN_EDIT.search(text):
        return f"a word rebuilt by pattern substitution in {text!r}"
    if m.ANSI_C in word.expansions and spells_text(text):
        return f"ANSI-C escapes spell out plain text in {text!r}"
    return None


def spells_text(text: str) -> bool:
    for found in _ANSI_ESCAPE.finditer(text):
        code = int(found.group(1) or found.group(2) or "0", 16) if (
            found.group(1) or found.group(2)) else int(found.group(3), 8)
        if 0x20 <= code < 0x7F:
            return True
    return False


@register
class BangLine(Validator):
    """A line that starts with ``!`` glued to a command (``!/bin/sh``, ``!id``): keystrokes for
    the shell escape of a pager, editor or console started earlier in the script. ASK.

    Bad: ``less notes.txt`` followed by ``!id``. Harmless: ``ls !*`` (history words as
    arguments), ``! grep -q x f`` (negation, read by the parser).
    """

    id = "CG-INJ-012"

    def shapes(self, program: str | None) -> int:
        return sh.ODD_NAME

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name = cmd.name_word
        if name is None or not name.text.startswith(("!", "^")) or len(name.text) < 2:
            return NO_OPINION
        return Verdict.ask(self.id, f"{name.text!r} is a shell escape typed into an "
                           "interactive program", hint="run the command itself")


_SPLIT_QUOTES = lazy_pattern(r"[A-Za-z0-9/](?:\"[A-Za-z0-9/.]*\"|'[A-Za-z0-9/.]*')[A-Za-z0-9/]")
_SPLIT_ESCAPE = lazy_pattern(r"[A-Za-z0-9]\\[A-Za-z]")


def _split_by_quotes(text: str) -> bool:
    """Quotes that open and close around a piece of a word and change nothing. Quote characters
    that are themselves quoted (``'s/"a"/"b"/'``) split nothing: the program receives them."""
    found = _SPLIT_QUOTES.search(text)
    if found is None or "$(" in text or "`" in text:
        return found is not None
    marks = quote_marks(text)
    plain = "".join(ch if ch not in "'\"" or i in marks else "_" for i, ch in enumerate(text))
    return _SPLIT_QUOTES.search(plain) is not None


_PRINTERS = frozenset({"echo", "printf"})
_TO_FILE = frozenset({">", ">>", ">|", "&>", "&>>"})


def _output_to_file(cmd: SimpleCommand) -> bool:
    """Every redirection of the command's standard output is to a named file (``> words.txt``;
    not ``/dev/stdout``, a process substitution or a name known only at run time), there is
    one, and no ``printf -v`` keeps the text in a variable: what it prints goes nowhere else
    (no pipe, no substitution, no later command line reads it)."""
    if any(w.shown.startswith("-v") for w in cmd.words[1:]):
        return False
    stdout = [r for r in cmd.redirects if r.writes and r.fd in (None, 1)]
    return bool(stdout) and all(
        r.op in _TO_FILE and r.target is not None and r.target.value is not None
        and not r.target.value.startswith(("/dev/", "/proc/")) for r in stdout)


@register
class SplitWord(Validator):
    """An argument split by quotes or backslashes that change nothing (``/e"t"c/pa''sswd``,
    ``c\\at``): the spelling exists only to slip past filters that match words. ASK.

    The words ``echo`` or ``printf`` print into a file split nothing: they are the file's
    text, which the checks of files written and later run read by its value.

    Bad: ``cat /e"t"c/sha''dow``. Harmless: ``git log --format="%h %s"``, ``printf 'a\\tb'``,
    ``printf '%s\\n' "c""at" > words.txt``.
    """

    id = "CG-INJ-013"

    def shapes(self, program: str | None) -> int:
        return sh.UNUSUAL | sh.QUOTES  # a quoted word: a quote or a backslash in the text

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program in _PRINTERS and _output_to_file(cmd):
            return NO_OPINION  # text put in a file, judged there by its value
        for word in cmd.words[1:]:
            if not word.quoted or word.value is None:
                continue
            text = word.text
            if _split_by_quotes(text) or (
                    "'" not in text and '"' not in text and _SPLIT_ESCAPE.search(text)):
                return Verdict.ask(self.id, f"{text!r} is split by quoting that changes nothing "
                                   f"(it reads {word.value!r})", hint="write the word plainly")
        return NO_OPINION
