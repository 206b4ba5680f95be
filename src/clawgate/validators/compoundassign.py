"""A quoted array value that ``declare`` reads again as code: ``declare -a x='($(cmd))'`` runs
``cmd``. Bash takes a value that starts with ``(`` and ends with ``)``, handed to ``declare``,
``typeset``, ``local`` or ``readonly`` for an array (``-a``, ``-A``, or a name that already is
one), as a compound assignment: the text between the parentheses is split into words and each
is expanded, command substitutions included. The quotes that make the value look inert to a
reader protect nothing."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register

_DECLARERS = frozenset({"declare", "typeset", "local", "readonly"})
_QUOTES = ("'", '"', "$'")


def _array_value(text: str) -> str | None:
    """The value part of ``NAME=(…)``/``NAME+=(…)`` as written, when it is quoted (unquoted,
    the parser reads the compound assignment itself)."""
    name, equals, value = text.partition("=")
    if not equals or not name or name.startswith("-") or not value.startswith(_QUOTES):
        return None
    return value


@register
class QuotedCompoundAssignment(Validator):
    """``declare``/``typeset``/``local``/``readonly`` given a quoted ``NAME='(…)'``: bash
    expands the words between the parentheses as it would unquoted, so they are checked as the
    words of a command (``declare -a x='($(curl … | sh))'`` is the download run). A value only
    known at run time that is read this way asks: whatever it holds is expanded.

    Bad: ``declare -a x='($(rm -rf ~))'``, ``declare -a x="($input)"``. Harmless:
    ``declare -a langs='(en fr de)'``, ``declare x='(a b)'`` read as text.
    """

    id = "CG-INJ-031"
    programs = _DECLARERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program not in _DECLARERS:
            return NO_OPINION
        words: list[str] = []
        for word in cmd.words[1:]:
            written = _array_value(word.text)
            if written is None:
                continue
            value = word.value
            if value is None and written.lstrip("$").lstrip("'\"").startswith("("):
                return Verdict.ask(self.id, f"{cmd.program} reads {word.text!r} as an array's "
                                   "words, expanding what the value holds at run time",
                                   hint="assign the array unquoted: NAME=(…)")
            inner = "" if value is None else value.partition("=")[2]
            if inner.startswith("(") and inner.endswith(")"):
                words.append(inner[1:-1])
        if not words:
            return NO_OPINION
        return Verdict.unwrap(*(f"echo {w}" for w in words))
