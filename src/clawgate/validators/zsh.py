"""zsh, the default shell on macOS: builtins that load modules or run code, and expansions that
run code (``=cmd``, glob qualifiers ``e:…:`` and ``+func``, the ``(e)`` parameter flag). The
code they carry is checked as a command wherever it can be read."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.records import replace
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators import shapes as sh
from clawgate.validators.argv import joined_code
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.textscan import inside, literal_spans

_BUILTINS = frozenset({"zmodload", "zpty", "ztcp", "zsocket", "sysopen", "syswrite", "emulate",
                       "fc", "autoload", "sched", "zcompile", "zle"})
_LISTING = {"zmodload": frozenset({"-L", "-l", "-e"}), "fc": frozenset({"-l"}),
            "zle": frozenset({"-l", "-L"}), "sched": frozenset()}
_MODIFIERS = frozenset({"noglob", "nocorrect", "-"})
# zsh/files builtins: zf_rm is rm, zf_ln is ln ... (zmodload -F zsh/files b:zf_rm)
_FILE_BUILTINS = frozenset({"zf_rm", "zf_rmdir", "zf_ln", "zf_mv", "zf_mkdir", "zf_chmod",
                            "zf_chown", "zf_chgrp", "zf_sync"})
# A glob qualifier running code: e:code: e'code' e{code} (any delimiter), or +name; the
# parenthesised group ends a word (*(e:…:)), and what precedes e holds only qualifier letters.
# (Bounded repeats: hostile text with thousands of "(e:" must not take quadratic time.)
_QUALIFIER = lazy_pattern(
    r"\((?<=[^\s(=$<>|&;'\"]\()[\w.^\-,\[\]:]{0,32}?(?:e(?:([^\w\s({\[<'\"])(.{0,256}?)\1"
    r"|'([^']{0,256})'|\"([^\"]{0,256})\"|\{(.{0,256}?)\}|\[(.{0,256}?)\]|<(.{0,256}?)>)"
    r"|\+([A-Za-z_][\w-]{0,64}))[^()\s]{0,32}\)(?=$|[\s;|&)])")
_EVAL_FLAG = lazy_pattern(r"\$\{\([^)]{0,32}e[^)]{0,32}\)")
_LONGEST = 16384  # longer commands are only looked at for a qualifier's shape (fail closed)
_MAYBE = lazy_pattern(r"\([\w.^\-,\[\]:]{0,32}[e+]|\$\{\(")
_SUBST = lazy_pattern(r"\$\((.{0,256})\)")


def _builtin(cmd: SimpleCommand) -> tuple[str, str | None] | None:
    """(what it does, the code it runs when literal), or None when it only lists."""
    program = cmd.program or ""
    args = cmd.words[1:]
    values = [w.shown for w in args]
    if not values or set(values) & _LISTING.get(program, frozenset()):
        return None if program != "sched" or values else ("sched lists", None)
    if program == "autoload":
        paths = [v for v in values if "/" in v and not v.startswith("-")]
        return (f"autoload loads functions from {paths[0]}", None) if paths else None
    if program == "emulate":
        if "-c" not in values or values.index("-c") + 1 >= len(values):
            return None
        return "emulate -c runs code", args[values.index("-c") + 1].value or ""
    if program == "zpty" and len(args) >= 2 and not values[0].startswith("-"):
        return "zpty runs a command on a pseudo-terminal", joined_code(args[1:]) or ""
    if program == "sched" and len(args) >= 2:
        return "sched runs a command later", joined_code(args[1:]) or ""
    if program == "fc" and "-e" in values:
        return "fc -e re-runs history through a program", None
    return f"{program} loads modules, opens sockets or runs code", None


@register
class ZshBuiltin(Validator):
    """zsh builtins that load modules, open sockets or files, or run code: ``zmodload``,
    ``zpty``, ``ztcp``, ``zsocket``, ``sysopen``, ``emulate -c``, ``fc -e``, ``sched``,
    ``autoload`` of a path. ASK; the code they carry is checked too.

    Bad: ``zmodload zsh/net/tcp``, ``emulate sh -c 'rm -rf ~'``. Harmless: ``autoload -Uz
    compinit``.
    """

    id = "CG-ZSH-001"
    programs = _BUILTINS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        found = _builtin(cmd) if cmd.program in _BUILTINS else None
        if found is None:
            return NO_OPINION
        what, code = found
        if code == "":
            return Verdict.ask(self.id, f"{what} only known at run time")
        inner = (code,) if code else ()
        return Verdict.unwrap(*inner, outcome=Outcome.ASK, rule_id=self.id, message=what)


def _running(cmd: SimpleCommand, words: tuple[Word, ...]) -> Verdict:
    if not words:
        return NO_OPINION
    inner = replace(cmd, words=words, assignments=(), depth=cmd.depth + 1,
                    text=" ".join(w.text for w in words))
    return Verdict.unwrap(inner)


@register
class ZshPrecommandModifier(Validator):
    """The precommand modifiers ``noglob``, ``nocorrect`` and ``-`` run the rest of the line,
    ``repeat N`` runs it N times, and the zsh/files builtins (``zf_rm``, ``zf_ln`` ...) are the
    programs they are named after: the command is checked as what runs.

    Bad: ``noglob rm -rf ~``. Harmless: ``noglob git log``.
    """

    id = "CG-ZSH-002"
    programs = _MODIFIERS | _FILE_BUILTINS | {"repeat"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program in _FILE_BUILTINS and program is not None:
            name = program[3:]
            return _running(cmd, (Word(name, name), *cmd.words[1:]))
        if program == "repeat":  # repeat N command
            return _running(cmd, cmd.words[2:])
        if program not in _MODIFIERS:
            return NO_OPINION
        return _running(cmd, cmd.words[1:])


@register
class ZshCodeExpansion(Validator):
    """Expansions that run code: ``=rm -rf /`` runs ``rm`` (``=name`` becomes the program's
    path), glob qualifiers ``*(e:code:)`` and ``*(+func)``, and the ``(e)`` parameter flag
    (``${(e)x}`` runs what the value holds). The command or code is checked as what runs; a
    qualifier or flag is at least ASK (``*(e:'rm -rf ~':)`` is DENY).

    Bad: ``ls *(e:'curl -s h | sh':)``, ``=rm -rf /``. Harmless: ``ls *(.om[1,3])``.
    """

    id = "CG-ZSH-003"

    def shapes(self, program: str | None) -> int:
        if program and program[0] == "=" and len(program) > 1 and program[1] != "(":
            return sh.ANY
        return sh.PAREN

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program
        if program and program[0] == "=" and len(program) > 1 and program[1] != "(":
            name = program[1:]
            return _running(cmd, (Word(name, name), *cmd.words[1:]))
        text = cmd.text
        if "(" not in text:
            return NO_OPINION
        if len(text) > _LONGEST:
            return Verdict.ask(self.id, "a command too long to read for zsh expansions that run "
                               "code") if _MAYBE.search(text) else NO_OPINION
        matches = list(_QUALIFIER.finditer(text))
        if matches:  # a qualifier works only where the shell globs: not inside quotes
            literal = literal_spans(text)
            matches = [m for m in matches if not inside(literal, m.start())]
        codes = [next((g for g in m.groups()[1:] if g is not None), "") for m in matches]
        if _EVAL_FLAG.search(text):
            codes += [m.group(1) for m in _SUBST.finditer(text)] or [""]
        if not codes:
            return NO_OPINION
        inner = tuple(c.strip("'\"") for c in codes if c.strip("'\""))
        return Verdict.unwrap(*inner, outcome=Outcome.ASK, rule_id=self.id,
                              message="a zsh expansion runs code")
