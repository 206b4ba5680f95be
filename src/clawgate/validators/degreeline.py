"""Destruction by degree for a line's own commands, read from where each runs: ``cd build &&
rm -rf *`` empties ``build`` (regenerable), while ``cd build; rm -rf *`` empties the workspace
when ``build`` is missing, so it is judged from both places."""

from __future__ import annotations

import os
from collections.abc import Iterator

from clawgate import fsfacts
from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.records import replace
from clawgate.shell.clobbers import subshell_of
from clawgate.shell.model import TILDE, ParsedLine, SimpleCommand, Word
from clawgate.validators import lineshapes as ls
from clawgate.validators.absent import without_missing
from clawgate.validators.argv import inner
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.degree import (
    INSIDE,
    PROGRAMS,
    deletes_relative,
    fed_targets_spared,
    inside,
    outside,
    target_paths,
)
from clawgate.validators.generated import marked_listing
from clawgate.validators.paths import resolve, under
from clawgate.validators.programs import SHELLS
from clawgate.validators.rebuilt import MAKERS, trees, without_rebuilt
from clawgate.validators.shells import shell_call
from clawgate.validators.wipes import lists_workspace
from clawgate.validators.wraptable import PLAIN, PRIVILEGED, start_through_wrappers
from clawgate.validators.writes import write_targets

_CHANGERS = frozenset({"cd", "pushd", "popd"})
UNKNOWN = "\0unknown"  # a directory known only at run time
_STACK_PLACE = lazy_pattern(r"^[+-]\d+$")
_WORDS = lazy_pattern(r"[\w-]+")
_WATCHED = PROGRAMS | {"xargs"}
_FED_DELETERS = frozenset({"rm", "shred"})
_TILDE = frozenset({TILDE})
_PROBE = Word("src", "src")  # a non-regenerable stand-in: would this deleter remove a tree?
_ONLY_AND = lazy_pattern(r"^(?:\s|&&|\\\n)*$")
# What puts other things where a later delete looks: mv (and git mv), a link (``ln -s src
# gen && rm -rf gen/`` empties src), rename (its new names are known only at run time).
_MOVERS = frozenset({"mv", "git", "ln", "rename"})
_CODE_RUNNERS = SHELLS | {"eval"}
_MAX_CODE_DEPTH = 4


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


def places(parsed: ParsedLine, ctx: Context, unknown: str | None = None,
           ) -> Iterator[tuple[SimpleCommand, tuple[str, ...]]]:
    """Every command with the directories it may run in (more than one when a ``cd`` may have
    failed or only applied inside a construct). A directory not known here (``cd -``,
    ``popd``, ``cd "$X"``, a ``cd`` that ``CDPATH`` may send elsewhere, one inside ``eval``)
    is ``unknown`` when given, else left out."""
    source = parsed.source.encode("utf-8", "surrogateescape")
    commands = parsed.commands
    # (the subshell it is confined to, (index of the cd, where, for sure)), in order
    moves: list[tuple[tuple[str, ...] | None, tuple[int, str | None, bool]]] = []
    # CDPATH is searched first; with cdable_vars a name is also a variable's value
    cdpath = "CDPATH" in parsed.source or "cdable_vars" in parsed.source or ctx.cdpath
    links: list[str] = []  # symbolic links the line makes: a cd through one goes elsewhere
    changers = [c for c in map(_changer, commands) if c is not None]
    for index, cmd in enumerate(commands):
        changer = _changer(cmd)
        if changer is not None:
            where = _target(changer, ctx, cdpath)
            if where is not None and any(not link or where == link or where.startswith(
                    link.rstrip("/") + "/") for link in links):
                where = None
            moves.append((subshell_of(cmd.nesting), (index, where,
                                                not cmd.nesting and changer.program != "popd")))
            continue
        if cmd.program == "ln":
            links += _links(cmd, ctx)
        moved = next((mv for scope, mv in reversed(moves)
                      if scope is None or cmd.nesting[: len(scope)] == scope), None)
        if moved is None:
            dirs: tuple[str | None, ...] = (ctx.cwd,)
        elif moved[1] is not None and moved[2] and _chained(source, commands, moved[0], index):
            dirs = (moved[1],)
        else:
            dirs = (ctx.cwd, moved[1] if moved[1] is not None else unknown)
        if "loop" in cmd.nesting and (
                later := _next_round(commands, index, ctx, cdpath)) is not None:
            dirs = (*dirs, later or unknown)
        if "function" in cmd.nesting:  # a function runs from wherever it is called
            dirs = (*dirs, *((_target(c, ctx, cdpath) or unknown) for c in changers))
        yield cmd, tuple(dict.fromkeys(p for p in dirs if p is not None))


def _next_round(commands: tuple[SimpleCommand, ...], index: int, ctx: Context,
                cdpath: bool) -> str | None:
    """Where a ``cd`` later in the same loop as command ``index`` sends its next round
    (``for …; do rm -rf build; cd /; done``): the directory, "" when not known here, None
    when no cd follows in the loop."""
    nesting = commands[index].nesting
    loop = nesting[: len(nesting) - nesting[::-1].index("loop")]
    for cmd in commands[index + 1 :]:
        if cmd.nesting[: len(loop)] != loop:
            continue
        changer = _changer(cmd)
        if changer is not None:
            return _target(changer, ctx, cdpath) or ""
    return None


def _links(cmd: SimpleCommand, ctx: Context) -> list[str]:
    """The paths at which ``ln -s`` may make a link (``ln -s / up``: up; into a directory
    operand: also DIR/NAME); "" when not known here (any path)."""
    values = [w.value for w in cmd.words[1:]]
    flags = [v for v in values if v is not None and v.startswith("-")]
    if not any(f == "--symbolic" or (not f.startswith("--") and "s" in f) for f in flags):
        return []
    operands = [w for w in cmd.words[1:] if not (w.value or "").startswith("-")]
    named = [os.path.basename((w.value or "").rstrip("/")) for w in operands]
    dirs = [resolve(w, ctx).path for w in operands[-1:]] if len(operands) > 1 else [ctx.cwd]
    if any(v is None for v in values) or None in dirs or any(
            f in ("-t", "--target-directory") or f.startswith("--target-directory=")
            for f in flags):
        return [""]  # not known here: any cd may go through it
    paths = [d for d in dirs if d is not None and len(operands) > 1]
    paths += [os.path.join(d, n) for d in dirs if d is not None for n in named if n]
    return paths


def _changer(cmd: SimpleCommand) -> SimpleCommand | None:
    """``cmd`` as the ``cd``/``pushd``/``popd`` it runs (``builtin cd``, ``command cd``; an
    ``eval`` with one in its words, or an alias defined to one, goes nowhere known), else
    None."""
    program = cmd.program
    if program in _CHANGERS:
        return cmd
    if program in ("builtin", "command") and len(cmd.words) > 1 and (
            cmd.words[1].value in _CHANGERS):
        return inner(cmd, 1)
    if program in ("eval", "alias") and any(
            _CHANGERS.intersection(_WORDS.findall(w.value or "$")) or w.value is None
            for w in cmd.words[1:]):  # eval cd /; alias x='cd /' (then x)
        return replace(cmd, words=(Word("cd", "cd"), Word("-", "-")))
    return None


def _target(cmd: SimpleCommand, ctx: Context, cdpath: bool) -> str | None:
    """Where ``cd``/``pushd`` goes: home without an operand, None when not known here
    (``cd -``, ``popd``, ``pushd`` alone or ``pushd +1``: a place on the directory stack)."""
    operands = [w for w in cmd.words[1:] if not w.shown.startswith("-") or w.shown == "-"]
    if cmd.program == "popd" or (operands and operands[0].shown == "-"):
        return None
    if cmd.program == "pushd" and (not operands or _STACK_PLACE.match(operands[0].shown) or any(
            _STACK_PLACE.match(w.shown) for w in cmd.words[1:])):
        return None
    if not operands:
        return ctx.home
    value = operands[0].value
    if cdpath and (value is None or (not value.startswith(("/", "./", "../")) and
                   value not in (".", ".."))):
        return _through_cdpath(cmd, value, ctx)  # CDPATH is searched first
    return resolve(operands[0], ctx).path


def _through_cdpath(cmd: SimpleCommand, value: str | None, ctx: Context) -> str | None:
    """Where ``CDPATH=LIST cd NAME`` goes, the list given on the command itself: the first
    entry holding a directory NAME, else (none there now) the first entry's, which is where
    the line means to go; None when the list is set elsewhere or a word is not known."""
    given = next((a.value for a in cmd.assignments if a.name == "CDPATH"), None)
    if given is None or value is None or given.value is None:
        return None
    found: list[str] = []
    for entry in given.value.split(":"):
        tilde = frozenset({TILDE}) if entry.startswith("~") and TILDE in given.expansions \
            else frozenset()
        base = resolve(Word(entry or ".", entry or ".", False, tilde), ctx).path
        if base is None:
            return None
        found.append(os.path.normpath(os.path.join(base, value)))
    return next((d for d in found if fsfacts.isdir(d)), found[0] if found else None)


def _xargs_delete(parsed: ParsedLine, cmd: SimpleCommand, ctx: Context,
                  seen: dict[int, tuple[str, ...]]) -> Verdict | None:
    """``… | xargs rm -rf``: the targets are what the feeder prints. ASK unless the feeder is a
    ``find`` whose tests or start points name only regenerable things (``find . -name
    __pycache__``) or an ``echo``/``printf`` of regenerable names; DENY when the feeder lists the
    whole workspace from where it runs (``seen``: the directories each command may run in)."""
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
    if feeder is not None and marked_listing(feeder, _fed_by(parsed, feeder), ctx):
        return None  # ``xargs grep -l 'DO NOT EDIT'``: only files their generator marked
    if feeder is not None and any(lists_workspace(feeder, replace(ctx, cwd=here))
                                  for here in seen.get(id(feeder), ()) if here != UNKNOWN):
        return Verdict.deny(INSIDE, f"xargs {deleter.program} deletes every entry "
                            f"{feeder.program} lists: the whole workspace",
                            hint="delete the parts that must go by name")
    what = feeder.program if feeder is not None else "its input"
    return Verdict.ask(INSIDE, f"xargs {deleter.program} deletes whatever {what} lists, known "
                       "only at run time", hint="delete build output by name")


def _fed_by(parsed: ParsedLine, cmd: SimpleCommand) -> SimpleCommand | None:
    """The command piping into ``cmd``, if any."""
    if not cmd.stage:
        return None
    return next((c for c in reversed(parsed.commands[: parsed.commands.index(cmd)])
                 if c.pipeline == cmd.pipeline and c.stage == cmd.stage - 1), None)


def _moved_into(cmd: SimpleCommand, dirs: tuple[str, ...], ctx: Context) -> list[str]:
    """Where ``mv`` (or ``git mv``) puts what it moves, from each directory it may run in
    ("/" when not known here: it may be anywhere)."""
    if cmd.program == "rename":
        return ["/"]  # the new names come from an expression: known only at run time
    if cmd.program == "git":
        operands = [w for w in cmd.words[1:] if not w.shown.startswith("-")]
        if not operands or operands[0].value != "mv":
            return []
        targets = operands[-1:] if len(operands) > 2 else []
    else:
        targets = list(write_targets(cmd))
    paths: list[str] = []
    for here in dirs:
        for word in targets:
            path = None if here == UNKNOWN else resolve(word, replace(ctx, cwd=here)).path
            paths.append(path or "/")
    return paths


def _refilled(cmd: SimpleCommand, ctx: Context, filled: list[str]) -> Verdict | None:
    """ASK for a delete the line's own ``mv`` filled first (``mv src build && rm -rf
    build``): what it removes is then what was moved there, not what a build makes."""
    for path in target_paths(cmd, ctx):
        for into in filled:
            if into == path or under(into, path) or under(path, into):
                return Verdict.ask(INSIDE, f"{cmd.program} deletes {path}, into which the "
                                   "line moves files first", hint="delete build output only, "
                                   "or confirm")
    return None


def _runs(cmd: SimpleCommand, depth: int = 0) -> list[SimpleCommand] | None:
    """The commands ``cmd`` runs besides itself: the one behind its wrappers (``command mv``,
    ``env mv``, ``busybox mv``) and those of the shell code it hands a shell or ``eval``
    (``bash -c 'mv src gen'``); None when what it runs is not known here (a program named by
    a variable, code that is not a literal, or nested too deep)."""
    if not cmd.words:
        return []  # assignments alone
    start = start_through_wrappers(cmd.words, 0)
    if start is None:
        return None
    target = inner(cmd, start) if start else cmd
    found = [target] if start else []
    code: str | None = ""
    if target.program == "eval":
        values = [w.value for w in target.words[1:]]
        code = None if any(v is None for v in values) else " ".join(v for v in values if v)
    elif target.program in SHELLS:
        call = shell_call(target)
        if call is not None and call.code is not None:
            code = call.code.value
    if code == "":
        return found
    if code is None or depth >= _MAX_CODE_DEPTH:
        return None
    from clawgate.shell import parse

    for each in parse(code).commands:
        found.append(each)
        more = _runs(each, depth + 1)
        if more is None:
            return None
        found += more
    return found


def _hides_commands(program: str | None) -> bool:
    """``program`` may run another command this validator looks for (a wrapper, a shell or
    ``eval``, or a program not known here)."""
    return (program is None or program in _CODE_RUNNERS or program in PLAIN
            or program in PRIVILEGED or program in ("command", "builtin"))


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
    CG-DEG-002 (inside, not regenerable: ASK; the whole workspace: DENY), each from the
    directory it runs in, following ``cd`` when only ``&&`` separates them. A target that is
    not there is left out where nothing else on the line can put it there
    (``validators/absent.py``): a delete of nothing deletes nothing. So is the tree another
    command of the line makes (``rm -rf b; cmake -B b``, ``meson setup``, ``git clone URL
    dir``) where nothing but such a tree stands, nothing tracked (``validators/rebuilt.py``):
    a clean rebuild.

    Bad: ``cd build; rm -rf *`` (the workspace, if build is missing), ``cd ~ && rm -rf .config``.
    Harmless: ``cd build && rm -rf *``.
    """

    id = "CG-DEG-003"

    def line_shapes(self) -> int:
        return ls.MULTI  # a line of one command is asked about only when it deletes or feeds xargs

    def line_programs(self) -> frozenset[str]:
        return _WATCHED

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        worst = NO_OPINION
        commands = parsed.commands
        if len(commands) == 1:  # the common case, without a generator
            if commands[0].program not in _WATCHED:
                return worst
        elif _WATCHED.isdisjoint(names := [cmd.program for cmd in commands]) and not any(
                map(_hides_commands, names)):
            return worst
        seen: dict[int, tuple[str, ...]] = {}
        filled: list[str] = []  # where the line moved things before its deletes run
        made = trees(((cmd, dirs[0]) for cmd, dirs in places(parsed, ctx) if len(dirs) == 1),
                     ctx) if any(cmd.program in MAKERS for cmd in commands) else {}
        for cmd, dirs in places(parsed, ctx, UNKNOWN):
            seen[id(cmd)] = dirs
            ran = _runs(cmd) if len(commands) > 1 and _hides_commands(cmd.program) else []
            if ran is None:
                filled.append("/")  # what it runs may fill any path
                ran = []
            for each in (cmd, *ran):
                if each.program in _MOVERS:
                    filled += _moved_into(each, dirs, ctx)
            for each in ran:  # a delete behind a wrapper or in shell code (``bash -c 'rm …'``)
                if filled and each.program in PROGRAMS:
                    for here in dirs:
                        where = ctx if here in (ctx.cwd, UNKNOWN) else replace(ctx, cwd=here)
                        found = _refilled(each, where, filled)
                        if found is not None and found.outcome > worst.outcome:
                            worst = found
            if cmd.program == "xargs":
                found = _xargs_delete(parsed, cmd, ctx, seen)
                if found is not None and found.outcome > worst.outcome:
                    worst = found
            if cmd.program not in PROGRAMS:
                continue
            for here in dirs:
                if here == UNKNOWN:
                    if deletes_relative(cmd):
                        return Verdict.ask(INSIDE, f"{cmd.program} deletes from a directory "
                                           "known only at run time", hint="cd to a literal "
                                           "directory joined by &&, or name absolute paths")
                    continue
                where = ctx if here == ctx.cwd else replace(ctx, cwd=here)
                spared = without_missing(cmd, parsed, where)
                if spared is not None:
                    spared = without_rebuilt(spared, made, where)
                found = outside(cmd, where) or (
                    None if spared is None else inside(spared, where)) or _refilled(
                        cmd, where, filled)
                if found is not None and found.outcome > worst.outcome:
                    worst = found
                if worst.outcome is Outcome.DENY:
                    return worst.about(cmd.text)
        return worst
