"""Destruction by degree for a line's own commands, read from where each runs: ``cd build &&
rm -rf *`` empties ``build`` (regenerable), while ``cd build; rm -rf *`` empties the workspace
when ``build`` is missing, so it is judged from both places."""

from __future__ import annotations

from collections.abc import Iterator

from clawgate.decision import Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.records import replace
from clawgate.shell.model import TILDE, ParsedLine, SimpleCommand, Word
from clawgate.validators.argv import inner
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.degree import INSIDE, PROGRAMS, fed_targets_spared, inside, outside
from clawgate.validators.paths import resolve

_CHANGERS = frozenset({"cd", "pushd", "popd"})
_WATCHED = PROGRAMS | {"xargs"}
_FED_DELETERS = frozenset({"rm", "shred"})
_TILDE = frozenset({TILDE})
_PROBE = Word("src", "src")  # a non-regenerable stand-in: would this deleter remove a tree?
_ONLY_AND = lazy_pattern(r"^(?:\s|&&|\\\n)*$")


def _span(cmd: SimpleCommand) -> tuple[int, int]:
    return cmd.offset, cmd.offset + len(cmd.text.encode("utf-8", "surrogateescape"))


def _chained(source: bytes, commands: tuple[SimpleCommand, ...], cd: int, at: int) -> bool:
    """Only ``&&`` joins command ``cd`` to command ``at``: if the ``cd`` fails, ``at`` never
    runs from the wrong place."""
    gaps: list[bytes] = []
    end = _span(commands[cd])[1]
    for cmd in commands[cd + 1 : at + 1]:
        start, stop = _span(cmd)
        gaps.append(source[end:start])
        end = max(end, stop)
    text = b"".join(gaps).decode("utf-8", "replace")
    return _ONLY_AND.match(text) is not None


def places(parsed: ParsedLine, ctx: Context) -> Iterator[tuple[SimpleCommand, tuple[str, ...]]]:
    """Every command with the directories it may run in (more than one when a ``cd`` may have
    failed or only applied inside a construct)."""
    source = parsed.source.encode("utf-8", "surrogateescape")
    commands = parsed.commands
    moved: tuple[int, str | None, bool] | None = None  # (index of the cd, where, for sure)
    for index, cmd in enumerate(commands):
        if cmd.program in _CHANGERS:
            moved = (index, _target(cmd, ctx), not cmd.nesting and cmd.program != "popd")
            continue
        if moved is None:
            yield cmd, (ctx.cwd,)
        elif moved[1] is not None and moved[2] and _chained(source, commands, moved[0], index):
            yield cmd, (moved[1],)
        else:
            yield cmd, tuple(p for p in (ctx.cwd, moved[1]) if p is not None)


def _target(cmd: SimpleCommand, ctx: Context) -> str | None:
    """Where ``cd``/``pushd`` goes: home without an operand, None when not known here."""
    operands = [w for w in cmd.words[1:] if not w.shown.startswith("-") or w.shown == "-"]
    if cmd.program == "popd" or (operands and operands[0].shown == "-"):
        return None
    return resolve(operands[0], ctx).path if operands else ctx.home


def _xargs_delete(parsed: ParsedLine, cmd: SimpleCommand, ctx: Context) -> Verdict | None:
    """``… | xargs rm -rf``: the targets are what the feeder prints. ASK unless the feeder is a
    ``find`` whose tests or start points name only regenerable things (``find . -name
    __pycache__``) or an ``echo``/``printf`` of regenerable names."""
    start = next((i for i, w in enumerate(cmd.words) if i and
                  (w.value or "").rsplit("/", 1)[-1] in _FED_DELETERS), None)
    if start is None:
        return None
    deleter = inner(cmd, start)
    operands = [w for w in deleter.words[1:]
                if not w.shown.startswith("-") and w.shown not in ("{}", "{}/")]
    if operands:
        return None  # named targets are judged as the command they are
    feeder = next((c for c in reversed(parsed.commands[: parsed.commands.index(cmd)])
                   if c.pipeline == cmd.pipeline and c.stage == cmd.stage - 1), None)
    if feeder is not None and feeder.program in ("echo", "printf"):
        return _printed_targets(feeder, deleter, ctx)
    if feeder is not None and feeder.program == "find" and fed_targets_spared(feeder, ctx):
        return None
    what = feeder.program if feeder is not None else "its input"
    return Verdict.ask(INSIDE, f"xargs {deleter.program} deletes whatever {what} lists, known "
                       "only at run time", hint="delete build output by name")


def _printed_targets(feeder: SimpleCommand, deleter: SimpleCommand,
                     ctx: Context) -> Verdict | None:
    """``echo src build | xargs rm -rf``: the printed words are the targets."""
    values = [w.value for w in feeder.words[1:]]
    if any(v is None for v in values):
        return Verdict.ask(INSIDE, f"xargs {deleter.program} deletes what {feeder.program} "
                           "prints, known only at run time", hint="name the directories")
    printed = " ".join(v for v in values if v and not v.startswith("-"))
    names = printed.replace("\\n", " ").replace("\\0", " ").split()
    targets = tuple(Word(n, n, expansions=_TILDE if n.startswith("~") else frozenset())
                    for n in names if "%" not in n)
    flags = tuple(w for w in deleter.words[1:] if w.shown.startswith("-"))
    probe = replace(deleter, words=(deleter.words[0], *flags, *targets))
    return outside(probe, ctx) or inside(probe, ctx)


@register
class DeleteByDegreeInLine(LineValidator):
    """The line's own deletes judged as CG-DEG-001 (outside the workspace: DENY) and
    CG-DEG-002 (inside, not regenerable: ASK), each from the directory it runs in, following
    ``cd`` when only ``&&`` separates them.

    Bad: ``cd build; rm -rf *`` (the workspace, if build is missing), ``cd ~ && rm -rf .config``.
    Harmless: ``cd build && rm -rf *``.
    """

    id = "CG-DEG-003"

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        worst = Verdict.passthrough()
        commands = parsed.commands
        if len(commands) == 1:  # the common case, without a generator
            if commands[0].program not in _WATCHED:
                return worst
        elif _WATCHED.isdisjoint([cmd.program for cmd in commands]):
            return worst
        for cmd, dirs in places(parsed, ctx):
            if cmd.program == "xargs":
                found = _xargs_delete(parsed, cmd, ctx)
                if found is not None and found.outcome > worst.outcome:
                    worst = found
            if cmd.program not in PROGRAMS:
                continue
            for here in dirs:
                where = ctx if here == ctx.cwd else replace(ctx, cwd=here)
                found = outside(cmd, where) or inside(cmd, where)
                if found is not None and found.outcome > worst.outcome:
                    worst = found
                if worst.outcome is Outcome.DENY:
                    return worst.about(cmd.text)
        return worst
