"""Obfuscation is an attack: a program name or an ``eval``/shell payload built at run time with
tricks whose only use is to hide what runs -- case flips (``${x,,}``), substrings
(``${x:2:1}``), indirection (``${!x}``), glued array elements (``${a[3]}${a[7]}``), pattern
edits, empty ``$@`` glued into a word, decoding or reversing substitutions (``$(rev <<< mr)``,
``$(echo cm0= | base64 -d)``, ``$(printf '\\x72\\x6d')``), ANSI-C escapes spelling plain
letters (``$'\\162\\155'``) and glob-spelled programs (``/???/?m``) -- is DENY. Where the
value can be computed by reading, the command is also checked as what it computes to: a glob
matching exactly one system program here, substitutions (``$(echo rm) -rf /``) by the
same-line constants (``shell/constants.py`` with ``shell/substitute.py``). Plain dynamic names
(``$EDITOR file``, ``"$PYTHON" -m pytest``) are not obfuscated and keep their decision.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell import model as m
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators import lineshapes as ls
from clawgate.validators import shapes as sh
from clawgate.validators.base import Context, LineValidator, Validator, register
from clawgate.validators.injection import spells_text
from clawgate.validators.programs import SHELLS

_NAME = r"[A-Za-z_]\w*(?:\[[^]]*\])?"
# A variable, or a special or positional parameter (``${0/x/r}``, ``${_^^}``, ``${1:0:1}``):
# the tricks work on any of them.
_PARAM = rf"(?:{_NAME}|\d+|[#?$!-])"  # not $@/$*: "${@:2}" is every argument but the first
_TRICK = lazy_pattern(
    rf"\$\{{{_PARAM}(?:,,?|\^\^?|~~?)\}}"  # case flips
    rf"|\$\{{{_PARAM}:(?:\d|\s+-?\d|\(\s*-?\d)"  # substrings
    r"|\$\{![A-Za-z_]\w*\}"  # indirection
    rf"|\$\{{{_PARAM}/"  # pattern edits
    r"|\w\$(?:[@*]|\{[@*]\})|\$(?:[@*]|\{[@*]\})\w")  # empty $@ glued into a word
_INDEXED = lazy_pattern(r"\$\{[A-Za-z_]\w*\[[^]@*]+\]\}")
_EXPANSION = lazy_pattern(r"\$(?:\{[^}]*\}|[A-Za-z_]\w*|\()")
# Decoding, reversing or translating inside a substitution (``tr -d '\r'``, which only drops
# line endings, excepted).
_HIDING = lazy_pattern(r"(?:\$\(|`|<\()[^`]*?(?:\brev\b|\bbase(?:64|32)\b|\bxxd\b|"
                       r"\bopenssl\b|\bgunzip\b|\bzcat\b|\buudecode\b|"
                       r"\btr\b(?!\s+-d\s+[\"']?(?:\\[rnt]|\s)+[\"']?\s*\))|"
                       r"\\x[0-9a-fA-F]|\\[0-7]{2,3})")
_GLOB = lazy_pattern(r"[?\[]")


def obfuscation(word: Word) -> str | None:
    """Why ``word`` is built to hide its value, or None."""
    text = word.text
    if "$" in text or "`" in text or "<(" in text:
        if _TRICK.search(text):
            return f"{text!r} is built with case, substring, indirection or pattern tricks"
        if _INDEXED.search(text) and len(_EXPANSION.findall(text)) > 1:
            return f"{text!r} is glued together from array elements"
        if _HIDING.search(text):
            return f"{text!r} is decoded, reversed or translated at run time"
    if m.ANSI_C in word.expansions and spells_text(text):
        return f"{text!r} spells plain letters with escapes"
    return None


@register
class ObfuscatedProgram(Validator):
    """A program name built with obfuscation (``${x,,} -rf /``, ``$(rev <<< mr)``,
    ``${a[3]}${a[7]}``, ``$'\\162\\155'``, ``c$@at``, ``${0/x/r}m``) or spelled as a glob
    (``/???/?m``, ``/b?n/r[m]``, ``/usr/bin/su*o``): nothing but hiding needs it. DENY; a
    glob matching exactly one well-known system program is checked as that program too.

    Bad: ``$(echo cm0= | base64 -d) -rf /``. Harmless: ``"$PYTHON" -m pytest``, ``$EDITOR x``.
    """

    id = "CG-OBF-001"

    def shapes(self, program: str | None) -> int:
        return sh.ODD_NAME

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name = cmd.name_word
        if name is None or not name.expansions:  # a plain name: the common case, at once
            return NO_OPINION
        why = obfuscation(name)
        candidates: list[str] = []
        if why is None and m.GLOB in name.expansions:
            from clawgate.validators.sysbins import glob_programs

            candidates = glob_programs(name.text)
            # ``?`` and ``[…]`` spell letters; a ``*`` is a glob spelling too once it can
            # match a well-known program in a system directory (``/usr/bin/su*o``,
            # ``/bin/r*``). ``./dist/*.AppImage`` matches none: CG-INJ-003 asks.
            if _GLOB.search(name.text) or candidates:
                why = f"the program {name.text!r} is spelled as a glob"
        if why is None:
            return NO_OPINION
        rest = " ".join(w.text for w in cmd.words[1:])
        nested = [f"{c} {rest}" for c in candidates] if len(candidates) == 1 else []
        return Verdict.unwrap(*nested, outcome=Outcome.DENY, rule_id=self.id, message=why)


_INERT_KINDS = frozenset({"flag", "value", "read", "echoes", "network"})


def _effect_options(spec: dict[str, object]) -> dict[str, str]:
    """Every option spelling of ``spec`` (its subcommands' too) that does more than read."""
    found: dict[str, str] = {}
    options = spec.get("options")
    if isinstance(options, dict):
        found.update({k: v for k, v in options.items() if v not in _INERT_KINDS})
    subcommands = spec.get("subcommands")
    if isinstance(subcommands, dict):
        for sub in subcommands.values():
            if isinstance(sub, dict):
                found.update(_effect_options(sub))
    return found


@register
class GlobSpelledOption(Validator):
    """An argument spelled as a glob that starts with a wildcard and can match an option that
    writes or runs (``sort ?o victim``: a file named ``-o`` makes it ``sort -o victim``;
    ``tar cf x.tar [-]-checkpoint-action=exec=sh``): the files on disk decide whether the
    option is given, and no file glob is written that way. ASK. A glob of file names
    (``ls *.txt``, ``cat ?.log``) matches no such option and is left alone.

    Bad: ``cat f | sort ?o victim``. Harmless: ``sort *.csv``.
    """

    id = "CG-OBF-004"

    def shapes(self, program: str | None) -> int:
        return sh.PROCISH

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        guessed = [w for w in cmd.words[1:] if w.text[:1] in "?[" and m.GLOB in w.expansions]
        if not guessed:
            return NO_OPINION
        from fnmatch import fnmatchcase  # rare: only a wildcard-led argument gets here

        from clawgate import programs as catalog

        spec = catalog.entry(cmd.program)
        options = _effect_options(spec) if spec is not None and spec.get("acts") else {}
        for word in guessed:
            pattern = word.text.partition("=")[0]
            hit = next((o for o in options if fnmatchcase(o, pattern)), None)
            if hit is not None:
                return Verdict.ask(self.id, f"{word.text!r} is a glob that a file named {hit} "
                                   f"turns into {cmd.program}'s {hit} option ({options[hit]})",
                                   hint="write the option, or the file names, plainly")
        return NO_OPINION


@register
class ObfuscatedPayload(Validator):
    """Code for ``eval``, ``sh -c``/``bash -c``, a shell's here-string or script, or ``source``
    built with obfuscation (``eval "${x,,}"``, ``bash -c "$(rev <<< 'fr- mr')"``,
    ``source <(base64 -d <<< …)``): DENY.

    Bad: ``eval "$(printf '\\x72\\x6d') -rf ~"``. Harmless: ``eval "$(ssh-agent -s)"``.
    """

    id = "CG-OBF-002"
    programs = SHELLS | {"eval", "source", "."}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program in ("eval", "source", "."):
            words: list[Word] = list(cmd.words[1:])
        elif program in SHELLS:
            words = [r.target for r in cmd.redirects if r.op == "<<<" and r.target is not None]
            words += [w for w in cmd.words[1:] if not w.shown.startswith("-")][:1]
        else:
            return NO_OPINION
        for word in words:
            why = obfuscation(word)
            if why is not None and (word.value is None or m.ANSI_C in word.expansions):
                return Verdict.deny(self.id, f"{program} runs code that {why.partition(' ')[2]}")
        return NO_OPINION


_REFERENCE = lazy_pattern(r"\$\{?([A-Za-z_]\w*)")


@register
class ObfuscatedVariableRun(LineValidator):
    """A variable given an obfuscated value on the line (``x=$(echo cm0= | base64 -d)``,
    ``c=${y,,}``) and then run as the program or as ``eval``/``sh -c`` code (``$x -rf /``,
    ``eval "$c"``): the hiding moved one step away, it did not go. DENY.

    Bad: ``x=$(rev <<< mr); $x -rf ~``. Harmless: ``x=$(git rev-parse HEAD); echo "$x"``.
    """

    id = "CG-OBF-003"

    def line_shapes(self) -> int:
        return ls.DOLLAR

    def check_line(self, parsed: m.ParsedLine, ctx: Context) -> Verdict:
        source = parsed.source
        if "=" not in source or "$" not in source:
            return NO_OPINION
        tainted: dict[str, str] = {}
        for cmd in parsed.commands:
            for assignment in cmd.assignments:
                why = obfuscation(assignment.value)
                if why is not None:
                    tainted[assignment.name] = why
            if not tainted:
                continue
            for word in _run_words(cmd):
                for name in _REFERENCE.findall(word.text):
                    if name in tainted:
                        return Verdict.deny(self.id, f"${name} runs a value that "
                                            f"{tainted[name].partition(' ')[2]}")
        return NO_OPINION


def _run_words(cmd: SimpleCommand) -> list[Word]:
    """The words whose value runs: a dynamic program name, ``eval``'s words, ``sh -c`` code."""
    name = cmd.name_word
    if name is None:
        return []
    if name.value is None:
        return [name]
    if cmd.program == "eval":
        return list(cmd.words[1:])
    if cmd.program in SHELLS:
        return [w for w in cmd.words[1:] if w.value is None][:1]
    return []
