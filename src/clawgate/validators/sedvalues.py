"""A sed script built from values whose characters are known: ``sed -i "s/@REV@/$(git
rev-parse --short HEAD)/" version.txt``, ``V=$(date +%Y.%m.%d); sed -i "s/0.0.0/$V/" f``.

A value put into a sed script adds a command, a flag or a file only through characters that
end the part it stands in: the delimiter, a newline, a backslash (or, standing where a command
letter goes, a letter such as ``e``). What a value can hold is known when it is

- a number: ``$(( … ))``, ``$$``, ``$#``, ``$?``, ``$!``, ``$UID``, ``$EUID``, ``$PPID``,
  ``${#NAME}`` (special parameters and read-only variables, which the line cannot set);
- the output of ``git rev-parse --short[=N]|--verify [-q] REV`` or ``git rev-parse HEAD``
  (hex digits: unverified, rev-parse prints an argument that names a file as it is), ``git rev-list
  --count REV`` or ``nproc`` (digits), or ``date +FORMAT`` whose conversions print digits
  (``%Y %m %d %H %M %S %j %s``…; the format's own characters besides), run as a command
  substitution where the line defines no function or alias of that name, sets no PATH and
  runs no ``eval``, ``source`` or ``trap`` (which may set anything);
- a variable the line assigns only such a value (``SHA=$(git rev-parse --short HEAD)``) and
  binds nowhere else (``read SHA``, ``for SHA in``, ``(( SHA = 1 ))``, ``${SHA:=x}``,
  ``printf -vSHA``, nor any setter given a name by an expansion: ``printf -v "$N"``);
- exactly, a variable the line assigns one literal text the same way
  (``RE='[^0-9]*\\([0-9]*\\)'``), put into a double-quoted script (unquoted, the value is
  split and globbed): the script is read with that text standing in (bash unescapes the
  script's own text, never a value it puts in).

Such a script is read once for every character its values may hold standing in for them (and
once with them all): when every reading is the same commands with the same flags, and none of
them runs, writes or reads anything (CG-INTERP-004's reading), the values change only the text
the script matches or writes. Any other run-time part keeps the script unknown: ASK, as
CG-INTERP-004 asks of a script it cannot see.
"""

from __future__ import annotations

import re
import shlex

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.programs.languages import sed_commands, sed_subst_flags
from clawgate.records import replace
from clawgate.shell import model as m
from clawgate.shell.clobbers import EVERY, clobbered
from clawgate.shell.model import ParsedLine, SimpleCommand, Word
from clawgate.validators import lineshapes as ls
from clawgate.validators.argv import operands, option_values, opts
from clawgate.validators.base import Context, LineValidator, register

SEDS = frozenset({"sed", "gsed"})
_SED = opts("efl", "expression file line-length")
_DIGITS = "0123456789"
_HEX = "0123456789abcdef"
_NUMBERS = frozenset({"$", "#", "?", "!", "UID", "EUID", "PPID"})
# date's conversions that print digits only (%e, %k, %l pad with a blank)
_DATE_DIGITS = frozenset("YmdHMSjsyuwVUWGgC")
_DATE_PADDED = frozenset("ekl")
_DATE_LITERAL = lazy_pattern(r"^[\w.:+ -]*$")
_REVISION = lazy_pattern(r"^[\w./@^~{}-]+$")
_HEAD = lazy_pattern(r"(?:HEAD|@)(?:[~^]\d*)*")
_REDEFINES = lazy_pattern(r"(?:^|[\s;&|(){}])(?:function\s+)?(?:git|date|nproc)\s*\(\s*\)|"
                          r"\bfunction\s+(?:git|date|nproc)\b|\balias\b|\bhash\b|\benable\b|"
                          r"\bexpand_aliases\b|(?:^|[\s;&|(])PATH\+?=|\beval\b|\bsource\b|"
                          r"(?:^|[\s;&|(])\.\s|\btrap\b")
_NAME = lazy_pattern(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")
_ASSIGNED = lazy_pattern(r"^([A-Za-z_]\w*)=(.*)$", re.S)
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_PLAIN_FLAGS = lazy_pattern(r"-[xrg]+")
# What else sets a variable: a builtin given its name, a loop, arithmetic, a default
_BINDS = (r"(?:\b(?:read|mapfile|readarray|unset|getopts|let|for|select|declare|typeset|"
          r"local|export|readonly|printf|wait|coproc)\b[^;&|\n]*|\(\([^)]*)"
          r"(?<![\w$!#{{]){name}\b(?!=)|\$\{{{name}:?[=?]")


def deferred(word: Word) -> bool:
    """``word`` (a sed script) is built only of parts this module reads: CG-INTERP-004 leaves
    it to the line check below, which sees the line's assignments."""
    body = _body(word)
    return body is not None and _parts(body, {}, allow_names=True) is not None


@register
class SedScriptValues(LineValidator):
    """A sed script whose run-time parts are values of known characters (numbers, hex digits,
    dates; ``$(git rev-parse --short HEAD)``, a variable the line sets to one) or literal
    texts the line sets (``RE='[0-9]*'``) is read with every character they may hold: the
    same commands each time, none running, writing or reading anything, and the values only
    change text. Any other run-time part: ASK.

    Bad: ``sed -i "s/x/$V/" f`` (``V`` unknown), ``V=$(cat v); sed "s/x/$V/" f``.
    Harmless: ``sed -i "s/@REV@/$(git rev-parse --short HEAD)/" version.txt``.
    """

    id = "CG-INTERP-012"

    def line_shapes(self) -> int:
        return ls.DOLLAR | ls.BACKQUOTE

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if ("$" not in parsed.source and "`" not in parsed.source) or (
                "sed" not in parsed.source):
            return NO_OPINION
        from clawgate.validators.textprograms import SedCommands

        reader = SedCommands()
        sed_words = [(i, cmd, script_words(cmd)[0]) for i, cmd in enumerate(parsed.commands)
                     if cmd.program in SEDS and reader.defers(cmd, ctx=ctx)]
        if not sed_words:
            return NO_OPINION
        from clawgate.shell.constants import resolution

        exact = resolution(parsed)[1]
        redefined = _REDEFINES.search(parsed.source) is not None
        for index, cmd, word in sed_words:
            if index in exact:
                continue  # every value put in by the line's resolved reading, judged as such
            if word is None:
                return Verdict.ask(self.id, "the sed script is only known at run time")
            body = _body(word)
            values, literal = ({}, {}) if redefined else _values(parsed, cmd)
            if not word.text.startswith('"'):
                literal = {}  # unquoted, a value is split and globbed: only known alphabets
            parts = None if body is None or redefined else _parts(body, values, literal=literal)
            if parts is None or not _same_everywhere(body or "", parts):
                return Verdict.ask(self.id, f"the sed script {word.text!r} is only known at "
                                   "run time", hint="write the values into the script")
        return NO_OPINION


def script_words(cmd: SimpleCommand) -> list[Word | None]:
    """The words that are whole sed scripts (``-e SCRIPT``, else the first operand); None for
    a script glued to its option (``-eSCRIPT``, ``--expression=SCRIPT``)."""
    from_file = bool(option_values(cmd.words, 1, "f", frozenset({"file"})))
    given = option_values(cmd.words, 1, "e", frozenset({"expression"}))
    if given:
        return [w if w is not None and w.text != f"-e{v}" and "=" not in w.shown[:13]
                else None for _, w, v in given]
    if from_file:
        return []
    found = operands(cmd.words, 1, _SED)
    return [cmd.words[found[0]]] if found else []


def _body(word: Word) -> str | None:
    """The script as bash hands it to sed, run-time parts left as written: the inside of one
    pair of double quotes (``\\$``, ``\\"``, ``\\\\`` and ``\\``` taken as bash takes them),
    or an unquoted word with no quote or backslash."""
    if not word.expansions or word.expansions - {m.VARIABLE, m.COMMAND, m.ARITHMETIC}:
        return None
    text = word.text
    if len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1].replace(
            '\\"', ""):
        return text[1:-1]
    return None if any(ch in text for ch in "'\"\\") else text


class _Part:
    """One run-time part of a script: where it stands and the characters it may hold."""

    __slots__ = ("alphabet", "end", "exact", "start")

    def __init__(self, start: int, end: int, alphabet: str, exact: str | None = None) -> None:
        self.start, self.end, self.alphabet, self.exact = start, end, alphabet, exact


def _parts(body: str, values: dict[str, str], allow_names: bool = False,
           literal: dict[str, str] | None = None) -> list[_Part] | None:
    """Every run-time part of ``body`` with its alphabet; None when one is not of a known kind
    (``allow_names``: a plain variable counts as known, its value read later; ``literal``:
    variables whose value is known exactly)."""
    found: list[_Part] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\":
            index += 2
            continue
        if char == "`":
            end = body.find("`", index + 1)
            alphabet = None if end < 0 else _command_alphabet(body[index + 1:end])
            if alphabet is None:
                return None
            found.append(_Part(index, end + 1, alphabet))
            index = end + 1
            continue
        if char != "$":
            index += 1
            continue
        part = _dollar(body, index, values, allow_names, literal or {})
        if part is None:
            return None
        found.append(part)
        index = part.end
    return found


def _dollar(body: str, at: int, values: dict[str, str], allow_names: bool,
            literal: dict[str, str]) -> _Part | None:
    rest = body[at:]
    if rest.startswith("$(("):
        end = _closing(body, at + 1)
        return None if end < 0 or not body.startswith("))", end - 1) else _Part(
            at, end + 1, _DIGITS + "-")
    if rest.startswith("$("):
        end = _closing(body, at + 1)
        alphabet = None if end < 0 else _command_alphabet(body[at + 2:end])
        return None if alphabet is None else _Part(at, end + 1, alphabet)
    special = re.match(r"\$(?:\{#[A-Za-z_]\w*\}|[$#?!]|\{?(UID|EUID|PPID)\}?(?!\w))", rest)
    if special:
        if special.group(0).startswith("${") and not special.group(0).endswith("}"):
            return None
        return _Part(at, at + special.end(), _DIGITS)
    name = _NAME.match(rest)
    if name is None:
        return None
    variable = name.group(1) or name.group(2)
    if variable in literal:
        return _Part(at, at + name.end(), "", literal[variable])
    if variable in values:
        return _Part(at, at + name.end(), values[variable])
    return _Part(at, at + name.end(), _DIGITS) if allow_names else None


def _closing(body: str, opening: int) -> int:
    """The index of the parenthesis closing the one at ``opening``; -1 if none, or if a quote
    or another expansion stands inside (not read here)."""
    depth = 0
    for index in range(opening, len(body)):
        char = body[index]
        if char in "`\\$" and index > opening:
            return -1
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return index
    return -1


def _command_alphabet(text: str) -> str | None:
    """The characters the output of the command ``text`` may hold, for the few commands whose
    output is known (see the module); None for any other."""
    try:
        argv = shlex.split(text)
    except ValueError:
        return None
    if not argv or any("$" in a or "`" in a for a in argv):
        return None
    program, args = argv[0], argv[1:]
    if program == "nproc" and all(a in ("--all",) or a.startswith("--ignore=") for a in args):
        return _DIGITS
    if program == "git" and args[:1] == ["rev-parse"]:
        options = [a for a in args[1:] if a.startswith("-")]
        revisions = [a for a in args[1:] if not a.startswith("-")]
        verified = any(o == "--verify" or o.startswith("--short") for o in options)
        # unverified, rev-parse prints an argument that names a file as it is (``git
        # rev-parse e`` prints ``e`` where a file e is): only HEAD and its ancestors are sure
        if len(revisions) == 1 and _REVISION.match(revisions[0]) and (
                verified or _HEAD.fullmatch(revisions[0])) and all(
                o in ("--verify", "-q", "--quiet", "--short") or re.fullmatch(
                    r"--short=\d+", o) for o in options):
            return _HEX
        return None
    if program == "git" and args[:2] == ["rev-list", "--count"] and len(args) > 2 and all(
            _REVISION.match(a) for a in args[2:]):
        return _DIGITS
    if program == "date":
        return _date_alphabet(args)
    return None


def _date_alphabet(args: list[str]) -> str | None:
    options = [a for a in args if not a.startswith("+")]
    formats = [a for a in args if a.startswith("+")]
    if len(formats) != 1 or any(o not in ("-u", "--utc", "--universal") for o in options):
        return None
    alphabet = set(_DIGITS)
    fmt = formats[0][1:]
    index = 0
    literal: list[str] = []
    while index < len(fmt):
        if fmt[index] == "%" and index + 1 < len(fmt):
            conversion = fmt[index + 1]
            if conversion in _DATE_PADDED:
                alphabet.add(" ")
            elif conversion == "%":
                literal.append("%")
            elif conversion not in _DATE_DIGITS:
                return None
            index += 2
            continue
        literal.append(fmt[index])
        index += 1
    text = "".join(literal)
    if text and not _DATE_LITERAL.match(text.replace("%", "")):
        return None
    return "".join(sorted(alphabet | set(text)))


def _values(parsed: ParsedLine, sed: SimpleCommand) -> tuple[dict[str, str], dict[str, str]]:
    """The alphabet of each variable that holds, where ``sed`` runs, only a value of known
    characters, and the value of each that holds one literal text (``RE='[0-9]*\\(…\\)'``,
    every assignment of it the same): every assignment of it on the line is one (a number, a
    shaped command's output, a literal), at least one stands before ``sed`` unconditionally
    (outside any compound command, pipeline, function or ``&&``/``||`` list), and nothing
    else on the line binds it
    (``read NAME``, ``for NAME in``, ``printf -v NAME``, ``unset NAME``, arithmetic, a
    default given with ``${NAME:=…}``)."""
    if sed.nesting and "function" in sed.nesting:
        return {}, {}  # run whenever the function is called: before or after any assignment
    assigned: dict[str, list[str]] = {}
    before: set[str] = set()
    source = parsed.source.encode("utf-8", "surrogateescape")
    previous_end = 0
    for cmd in parsed.commands:
        pairs = [(a.name, a.value.text) for a in cmd.assignments] if not cmd.words else []
        if cmd.program in _DECLARERS and cmd.program != "local":
            pairs += [(x.group(1), x.group(2)) for w in cmd.words[1:]
                      if (x := _ASSIGNED.match(w.text))]
        gap = source[previous_end:cmd.offset].decode("utf-8", "replace")
        plain = not cmd.nesting and len(cmd.pipeline) <= 1 and "&&" not in gap and (
            "||" not in gap)
        for name, text in pairs:
            assigned.setdefault(name, []).append(text)
            if plain and cmd.offset < sed.offset:
                before.add(name)
        previous_end = cmd.offset + len(cmd.text.encode("utf-8", "surrogateescape"))
    found: dict[str, str] = {}
    literal: dict[str, str] = {}
    named = _bound_otherwise(parsed)
    for name, texts in assigned.items():
        if name not in before or name in named or EVERY in named or re.search(
                _BINDS.format(name=name), parsed.source):
            continue  # read NAME, for NAME in, printf -v NAME: a value of any kind
        exact = {_literal(t) for t in texts}
        if len(exact) == 1 and None not in exact and not any(
                other.startswith(f"{name}[") for other in assigned):  # RE[0]=… is $RE too
            literal[name] = next(iter(exact)) or ""
            continue
        alphabets = [_value_alphabet(t) for t in texts]
        if any(a is None for a in alphabets):
            continue
        found[name] = "".join(sorted(set("".join(a for a in alphabets if a))))
    return found, literal


def _literal(text: str) -> str | None:
    """The value of an assignment written as literal text: single-quoted (no quote inside),
    double-quoted or bare with nothing bash expands or unescapes; None for any other."""
    if len(text) >= 2 and text[0] == text[-1] == "'" and "'" not in text[1:-1]:
        return text[1:-1]
    inner = text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text
    bare = inner is text
    if any(ch in inner for ch in "$`\\\"'") or (bare and any(
            ch in inner for ch in " \t\n;&|<>()*?[]{}~#!")):
        return None
    return inner


def _bound_otherwise(parsed: ParsedLine) -> frozenset[str]:
    """The names the line may bind other than by an assignment read above (``printf -vNAME``,
    ``read "$n"``: any name, ``${NAME:=…}``, ``$_`` …; ``shell/clobbers.py``); a declaration
    of ``NAME=VALUE`` words is such an assignment."""
    kept = tuple(cmd for cmd in parsed.commands if not (
        cmd.program in _DECLARERS and cmd.program != "local" and all(
            _ASSIGNED.match(w.text) or _PLAIN_FLAGS.fullmatch(w.text) for w in cmd.words[1:])))
    return clobbered(replace(parsed, commands=kept))


def _value_alphabet(text: str) -> str | None:
    """The alphabet of a value assigned that is one part of a known kind, quoted or not."""
    inner = text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text
    parts = _parts(inner, {})
    if parts is None or len(parts) != 1 or parts[0].start != 0 or parts[0].end != len(inner):
        return None
    return parts[0].alphabet


def _same_everywhere(body: str, parts: list[_Part]) -> bool:
    """Every reading of the script with the parts' characters standing in is the same
    commands with the same flags, none of which runs, writes or reads anything."""
    from clawgate.validators.textprograms import SedCommands

    alphabet = sorted({c for p in parts for c in p.alphabet})
    samples = [[p.exact if p.exact is not None else c if c in p.alphabet else p.alphabet[0]
                for p in parts] for c in alphabet]
    samples.append([p.alphabet if p.exact is None else p.exact for p in parts])
    signature: list[tuple[str, str]] | None = None
    reader = SedCommands()
    for stand_ins in samples:
        script = _fill(body, parts, stand_ins)
        commands = sed_commands(script)
        if commands is None:
            return False
        shape = [(c[0], sed_subst_flags(c)[0] if c[0] == "s" else "") for c in commands]
        if signature is None:
            signature = shape
        verdict = reader.script_verdict(script)
        if shape != signature or verdict.outcome is not Outcome.PASSTHROUGH or verdict.nested:
            return False
    return True


def _fill(body: str, parts: list[_Part], stand_ins: list[str]) -> str:
    out: list[str] = []
    at = 0
    for part, text in zip(parts, stand_ins, strict=True):
        out.append(_unescaped(body[at:part.start]))  # bash unescapes the script's own text,
        out.append(text)  # never a value it puts in
        at = part.end
    out.append(_unescaped(body[at:]))
    return "".join(out)


def _unescaped(text: str) -> str:
    """Backslashes inside double quotes as bash takes them: ``\\$ \\` \\" \\\\`` lose theirs."""
    return re.sub(r'\\([$`"\\])', r"\1", text)
