"""``printf -v NAME FORMAT ARGS``: bash's printf assigns its output to the variable instead of
printing it. ``printf -v GIT_PAGER '%s' 'sh -c …'; export GIT_PAGER; git log`` sets the pager
as ``GIT_PAGER='sh -c …'`` does, so the assignment it amounts to is judged as that assignment
by the rules on variables (pagers, editors, loaders, search paths)."""

from __future__ import annotations

import shlex

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register

_NAME = lazy_pattern(r"^[A-Za-z_]\w*$")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"', "a": "\a", "r": "\r"}


def _format(fmt: str, args: list[str]) -> str | None:
    """printf's output for a format of ``%s``, ``%%`` and backslash escapes (the format used
    again while arguments are left, as bash does); None for any other directive."""
    out: list[str] = []
    pending = list(args)
    while True:
        i = 0
        while i < len(fmt):
            ch = fmt[i]
            if ch == "\\" and i + 1 < len(fmt):
                out.append(_ESCAPES.get(fmt[i + 1], "\\" + fmt[i + 1]))
                i += 2
            elif ch == "%" and fmt[i + 1:i + 2] == "%":
                out.append("%")
                i += 2
            elif ch == "%" and fmt[i + 1:i + 2] == "s":
                out.append(pending.pop(0) if pending else "")
                i += 2
            elif ch == "%":
                return None
            else:
                out.append(ch)
                i += 1
        if not pending or "%s" not in fmt:
            return "".join(out)


def _assignment(words: tuple[Word, ...]) -> str | None:
    """The ``NAME=VALUE`` line a ``printf -v NAME FORMAT ARGS`` amounts to; None when it
    cannot be told."""
    rest = list(words[1:])
    first = rest[0].value or "" if rest else ""
    if first.startswith("-v") and len(first) > 2:  # -vNAME: the name glued, as getopt reads
        rest = [Word(first[2:], first[2:]), *rest[1:]]
    elif first != "-v":
        return None
    else:
        rest = rest[1:]
    if len(rest) < 2 or rest[0].value is None:
        return None
    name, fmt, args = rest[0].value, rest[1], rest[2:]
    if not _NAME.match(name):
        return None
    if fmt.value == "%s" and len(args) == 1:
        return f"{name}={args[0].text}"  # the argument as written: its expansions kept
    if fmt.value is None or any(a.value is None for a in args):
        return None
    value = _format(fmt.value, [a.value or "" for a in args])
    return None if value is None else f"{name}={shlex.quote(value)}"


@register
class PrintfAssignment(Validator):
    """``printf -v NAME FORMAT ARGS`` (or ``-vNAME``, the name glued) is checked as the
    assignment ``NAME=VALUE`` it makes (a ``%s`` format's argument kept as written).

    Bad: ``printf -v GIT_PAGER '%s' 'sh -c "rm -rf ~"'; export GIT_PAGER; git log``.
    Harmless: ``printf -v stamp '%s-%s' build 42``.
    """

    id = "CG-ENV-013"
    programs = frozenset({"printf"})

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program != "printf" or len(cmd.words) < 3:
            return NO_OPINION
        line = _assignment(cmd.words)
        return Verdict.unwrap(line) if line is not None else NO_OPINION
