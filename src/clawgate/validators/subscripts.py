"""Quoted text that bash evaluates as a subscript: ``a[$(cmd)]`` written as a string runs
``cmd`` wherever bash takes the string for a variable's name or an arithmetic expression. The
quotes hide the substitution from the parser, so it is found in the text and checked as a
command: a literal payload is judged as what it runs, with ASK at least.

Where bash evaluates such text: the names given to builtins that assign, test or unset a
variable (``read``, ``printf -v``, ``declare`` and its kin, ``unset``, ``test -v``,
``getopts``, ``wait -p``, ``mapfile``); the operands of ``[[ … ]]`` (``-v``, ``-eq`` …);
arithmetic (``(( ))``, ``$(( ))``, ``$[ ]``); and the value of a variable that arithmetic
or a name reference on the line reads (``n='a[$(cmd)]'; echo $((n))``).
"""

from __future__ import annotations

import re

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators.arithcode import _payloads, _verdict
from clawgate.validators.base import Context, LineValidator, register

# A subscripted name whose subscript holds a substitution.
_CODE = lazy_pattern(r"[A-Za-z_]\w*\[[^\]]*?(?:\$\(|`)")
# Builtins that take the words given to them for variable names.
_NAMERS = frozenset("read printf declare typeset local export readonly unset test [ [[ "
                    "getopts wait mapfile readarray let".split())
# Arithmetic bash evaluates, and a name reference, somewhere on the line: a variable whose
# value holds a subscript may be read as an expression there.
_EVALUATES = lazy_pattern(r"\(\(|\$\[|\blet\b|-(?:eq|ne|lt|le|gt|ge)\b|"
                          r"\b(?:declare|typeset|local)\s+-\w*[in]|\[\s*\$?\{?[A-Za-z_]\w*\}?\s*\]"
                          r"|\$\{[A-Za-z_]\w*:")
_ARITHMETIC = lazy_pattern(r"\(\((.*?)\)\)|\$\[(.*?)\]", re.S)


@register
class SubscriptCode(LineValidator):
    """A string holding ``name[$(cmd)]`` where bash evaluates it as a name or arithmetic.

    Bad: ``printf -v 'a[$(rm -rf ~)]' x``, ``[[ -v 'a[$(rm -rf ~)]' ]]``,
    ``n='a[$(rm -rf ~)]'; echo $((n))``. Harmless: ``printf -v 'a[1]' x``,
    ``n='a[$(id)]'; echo "$n"`` (text that stays text).
    """

    id = "CG-ARITH-003"

    def line_shapes(self) -> int:
        return ls.BRACKET

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        source = parsed.source
        if "[" not in source or not _CODE.search(source):
            return NO_OPINION
        texts: list[str] = []
        evaluated = bool(_EVALUATES.search(_CODE.sub("", source)))
        for cmd in parsed.commands:
            texts += _named(cmd)
            if evaluated:
                texts += [a.value.value for a in cmd.assignments if a.value.value is not None]
                texts += [w.value for w in cmd.words[1:] if w.value is not None]
                texts += [r.target.value for r in cmd.redirects  # read x <<< '…'
                          if r.op == "<<<" and r.target is not None and r.target.value]
        for groups in _ARITHMETIC.findall(source):
            texts += [body for body in groups if body]
        code: list[str | None] = [p for text in texts for p in _subscript_code(text)]
        return _verdict(self.id, "a subscript bash evaluates", code) if code else \
            NO_OPINION


def _named(cmd: SimpleCommand) -> list[str]:
    """The texts a name-taking builtin evaluates: its words' values (the whole test for
    ``[[``, whose operands are not words of the model)."""
    if cmd.program not in _NAMERS:
        return []
    if cmd.program == "[[":
        return [cmd.text]
    return [w.value for w in cmd.words[1:] if w.value is not None]


def _subscript_code(text: str) -> list[str]:
    """The code of the substitutions from the first subscript that holds one on."""
    found = _CODE.search(text)
    return _payloads(text[found.start():]) if found is not None else []
