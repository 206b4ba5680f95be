"""Builtins that run code handed to them as text: bash evaluates ``let``'s arguments and the
values given to an integer variable (``declare -i``) arithmetically, and an array subscript in
arithmetic runs its substitutions (``let 'x[$(id)]=1'``, ``declare -i n; n='a[$(id)]'``);
``mapfile``/``readarray -C`` runs its callback for each line read. Quoting hides that code from
the parser, so it is found in the text and checked as a command: a literal payload is judged
as what it runs, with ASK at least; one known only at run time is ASK.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, Validator, register

_SUBSTITUTION = lazy_pattern(r"\$\(|`")
_INTEGER_FLAGS = lazy_pattern(r"^-[A-Za-z]*i[A-Za-z]*$")
_DECLARERS = frozenset({"declare", "typeset", "local"})
_MAPPERS = frozenset({"mapfile", "readarray"})


def _payloads(text: str) -> list[str]:
    """The code of each ``$( … )`` and `` `…` `` in ``text`` (to its matching end, or to the
    end of the text when unbalanced)."""
    found: list[str] = []
    index = 0
    while (match := _SUBSTITUTION.search(text, index)) is not None:
        start = match.end()
        if match.group(0) == "`":
            end = text.find("`", start)
            end = len(text) if end < 0 else end
        else:
            depth, end = 1, start
            while end < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            end = end - 1 if depth == 0 else len(text)
        found.append(text[start:end])
        index = max(end, start)
    return found


def _verdict(rule_id: str, what: str, code: list[str | None]) -> Verdict:
    if any(c is None for c in code):
        return Verdict.ask(rule_id, f"{what} runs code known only at run time",
                           hint="pass plain numbers")
    return Verdict.unwrap(*(c for c in code if c), outcome=Outcome.ASK, rule_id=rule_id,
                          message=f"{what} runs the code inside it")


@register
class ArithmeticCode(Validator):
    """``let`` evaluates its arguments: a substitution in one (quoted, so the parser does not
    see it) runs; ``mapfile -C CODE`` runs CODE for each line read.

    Bad: ``let 'x[$(rm -rf ~)]=1'``, ``mapfile -C 'rm -rf ~ #' -c 1 x < f``. Harmless:
    ``let i=i+1``, ``mapfile -t lines < f``.
    """

    id = "CG-ARITH-001"
    programs = frozenset({"let", *_MAPPERS})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in self.programs:
            return NO_OPINION
        args = cmd.words[1:]
        if cmd.program == "let":
            code: list[str | None] = [p for w in args if w.value is not None
                                      for p in _payloads(w.value)]
            return _verdict(self.id, "let", code) if code else NO_OPINION
        for index, word in enumerate(args):
            value = word.value if word.value is not None else word.text
            if value.startswith("-C"):
                if value != "-C":
                    given = value[2:] if word.value is not None else None
                else:
                    given = args[index + 1].value if index + 1 < len(args) else None
                return _verdict(self.id, f"{cmd.program} -C", [given])
            if value == "--" or not value.startswith("-"):
                break
        return NO_OPINION


@register
class IntegerCode(LineValidator):
    """A value assigned to a variable the line declares integer (``declare -i n``) is evaluated
    arithmetically: a substitution in its text runs.

    Bad: ``declare -i n; n='a[$(rm -rf ~)]'``. Harmless: ``declare -i n; n=4``.
    """

    id = "CG-ARITH-002"

    def line_shapes(self) -> int:
        return ls.DOLLAR | ls.BACKQUOTE

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        source = parsed.source
        if not ("declare" in source or "typeset" in source or "local" in source) or \
                not _SUBSTITUTION.search(source):
            return NO_OPINION
        integers: set[str] = set()
        code: list[str | None] = []
        for cmd in parsed.commands:
            values: list[tuple[str, str | None]] = [(a.name.partition("[")[0], a.value.value)
                                                    for a in cmd.assignments]
            if cmd.program in _DECLARERS:
                flags = [w.value or "" for w in cmd.words[1:] if (w.value or "-")[:1] == "-"]
                declared = [(w.value or "").partition("=") for w in cmd.words[1:]
                            if not (w.value or "-").startswith("-")]
                if any(_INTEGER_FLAGS.match(f) for f in flags):
                    integers.update(name for name, _, _ in declared)
                values += [(name, rest) for name, equals, rest in declared if equals]
            for name, value in values:
                if name in integers:
                    code += _payloads(value) if value is not None else []
        return _verdict(self.id, "an integer variable's value", code) if code else \
            NO_OPINION
