"""The engine: parse a line, run every validator over it, apply the policy, decide."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from contextlib import suppress

from clawgate.bounds import (
    MAX_CPU_SECONDS,
    MAX_STEPS,
    Budget,
    OverBudget,
    bounded,
    charge,
    charge_text,
)
from clawgate.decision import (
    Decision,
    MayRun,
    Outcome,
    Reason,
    Risk,
    TraceEntry,
    Verdict,
    strictest,
)
from clawgate.fsfacts import Facts, adopt, holds, recording
from clawgate.githooks import hooks_patterns
from clawgate.lazyre import lazy_pattern
from clawgate.policy.settings import Autonomy, EngineSettings
from clawgate.protectedpaths import state_paths
from clawgate.records import field, record, replace
from clawgate.shell import MAX_LINE_BYTES, parse
from clawgate.shell.constants import resolution, respelled
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.shell.setaside import BODY, COMMENT, certain_body, set_aside, trailing_comment
from clawgate.shell.standins import NO_READINGS, Readings, stand_in_readings
from clawgate.validators.base import AnyValidator, Context, LineValidator, RawValidator, Validator
from clawgate.validators.dispatch import Dispatch
from clawgate.validators.lineshapes import LineDispatch
from clawgate.validators.risk import risk_of
from clawgate.validators.standinwords import set_aside as stand_in_asks
from clawgate.validators.xargsfeed import ITEM as XARGS_ITEM

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from typing import Any

    from clawgate.shadowing import SecondOpinion
    from clawgate.shell.shadow import Shadow

# Outcomes and risks as module names, for the steps every decision takes: a member read off
# its class (``Outcome.ALLOW``) goes through ``EnumType``, whose ``__getattr__`` keeps every
# attribute read of the class off the interpreter's fast path (~4x a module name's).
_PASSTHROUGH, _ALLOW, _ASK, _DENY = (Outcome.PASSTHROUGH, Outcome.ALLOW, Outcome.ASK,
                                     Outcome.DENY)
_LOW, _MEDIUM, _HIGH = Risk.LOW, Risk.MEDIUM, Risk.HIGH
MAX_NESTING = 8  # unwrappings (sudo, bash -c, eval ...) followed before giving up
CRASH_ID = "CG-ENGINE-001"
NESTING_ID = "CG-ENGINE-002"
LENGTH_ID = "CG-ENGINE-003"
SET_ASIDE_ID = "CG-ENGINE-004"
BOUND_ID = "CG-ENGINE-005"  # the work of one decision ran past its bound (bounds.py)
AUTONOMY_ID = "CG-RISK-001"
DESTRUCTIVE_PREFIX = "CG-DEST-"


@record()
class _Run:
    """What one check collects: every verdict, the risk, the trace."""

    verdicts: list[Verdict] = field(default_factory=list)
    risk: Risk = Risk.LOW
    trace: list[TraceEntry] = field(default_factory=list)
    misparsing: bool = False
    seen: dict[tuple[str, bool, str], int] = field(default_factory=dict)  # least depth checked at
    aside: bool = False  # text set aside as no command: an unknown first word makes it prose
    reading: bool = False  # a stand-in reading of the line (shell/standins.py): none of its own

    def add(self, verdict: Verdict, about: str) -> None:
        if verdict.outcome is _PASSTHROUGH:
            return
        if verdict.reasons:  # a verdict without reasons names no command
            verdict = verdict.about(about)
        self.verdicts.append(verdict)
        self.misparsing = self.misparsing or verdict.misparsing
        for reason in verdict.reasons:
            self.trace.append(TraceEntry(about, reason.rule_id, verdict.outcome, reason.message))

    def add_denials(self, other: _Run) -> None:
        """The DENY verdicts ``other`` collected (with a misreading, which is one)."""
        for verdict in other.verdicts:
            if verdict.outcome is _DENY or verdict.misparsing:
                self.verdicts.append(verdict)
                self.misparsing = self.misparsing or verdict.misparsing
        self.trace.extend(t for t in other.trace if t.outcome is _DENY)


def _of_kind(validators: Sequence[AnyValidator], kind: type) -> list[Any]:
    """The validators whose class derives from ``kind``, in order. Not ``isinstance``: on a
    miss the ABC machinery walks every subclass of ``kind`` (~2 ms over the ~90 validators at
    each ``policy check`` start); no validator is registered as a virtual subclass."""
    return [v for v in validators if kind in type(v).__mro__]


_DISPATCHES: dict[tuple[int, bool], tuple[Sequence[AnyValidator], Dispatch]] = {}


def _shared_dispatch(validators: Sequence[AnyValidator], exhaustive: bool) -> Dispatch:
    """The one ``Dispatch`` over the registry's shared validators (by ``exhaustive``): what
    it learns per program holds for every engine (it depends on the validators alone)."""
    key = (id(validators), exhaustive)
    found = _DISPATCHES.get(key)
    if found is None or found[0] is not validators:
        found = (validators, Dispatch(_of_kind(validators, Validator), exhaustive=exhaustive))
        _DISPATCHES[key] = found
    return found[1]


class Engine:
    """Decides ALLOW, ASK or DENY for command lines under one policy. Thread-safe reads; the
    bounded cache is per engine. Each simple command is put to the validators whose declared
    programs include its program, and each line to the line validators whose line shapes it
    has; ``exhaustive=True`` puts each to every one (same decisions, slower: the dispatch test
    compares the two). Each decision is bounded: past ``max_steps``
    steps of work or ``max_cpu_seconds`` of CPU time it is DENY naming the bound. A line that
    hides what it runs gets a second opinion from a shadow run (``shadowing.py``) unless the
    policy turns it off; ``shadow`` gives the shadow to use (its limits), else one is made at
    the first such line; its runs are remembered per line in a bounded cache of their own
    (``shadow_cache_size``)."""

    def __init__(self, settings: EngineSettings | None = None,
                 validators: Sequence[AnyValidator] | None = None,
                 cache_size: int = 4096, *, exhaustive: bool = False,
                 shadow: Shadow | None = None, shadow_cache_size: int = 256,
                 max_steps: int = MAX_STEPS, max_cpu_seconds: float = MAX_CPU_SECONDS) -> None:
        shared = validators is None
        if validators is None:
            from clawgate.validators import load_all

            validators = load_all().instances()
        self.settings = settings or EngineSettings()
        self._raw: list[RawValidator] = _of_kind(validators, RawValidator)
        self._line: list[LineValidator] = _of_kind(validators, LineValidator)
        commands: list[Validator] = _of_kind(validators, Validator)
        # The registry's validators are shared, and so is what dispatch learns of them: an
        # engine made per call (a hook's, in a forked worker) starts with it learnt.
        self._dispatch = _shared_dispatch(validators, exhaustive) if shared else \
            Dispatch(commands, exhaustive=exhaustive)
        # Bound once: the loops over them run for every line. Line validators by line shape.
        self._raw_checks = [(v, v.check_text) for v in self._raw]
        # those with an opinion on a text of printable ASCII alone (the common case)
        self._raw_plain = [(v, c) for v, c in self._raw_checks if v.reads_plain_text()]
        self._line_dispatch = LineDispatch(self._line, exhaustive=exhaustive)
        # Each decision with the filesystem facts it read (None: it read none), reused only
        # while they hold (fsfacts.py)
        self._cache: OrderedDict[_CacheKey, tuple[Decision, Facts | None]] = OrderedDict()
        self._cache_size = cache_size
        self._bounds = (max_steps, max_cpu_seconds)
        # by the cwd, the process cwd and the environment placing the context (``_environment``)
        self._contexts: dict[tuple[object, ...], tuple[Context, Facts | None]] = {}
        self._shadow = shadow
        self._shadow_cache_size = shadow_cache_size
        self._second: SecondOpinion | None = None  # made at the first line that needs it
        # The autonomy verdict per risk tier, for the settings they were made under
        self._autonomies: tuple[EngineSettings | None, dict[Risk, Verdict]] = (None, {})

    @classmethod
    def from_files(cls, *paths: str | os.PathLike[str], embedded_default: bool = True) -> Engine:
        """An engine for the embedded default policy layered with ``paths``, in order."""
        from clawgate.policy.loader import load_policy

        return cls(load_policy(*paths, embedded_default=embedded_default).engine_settings())

    def forget(self) -> None:
        """Drop every remembered decision, shadow run and reading: the next check of any line
        costs what its first sight costs (for timing a line, ``policy fuzz``)."""
        from clawgate.preload import forget_lines

        self._cache.clear()
        if self._second is not None:
            self._second.forget()
        forget_lines()

    def check(self, command: str, *, cwd: str | None = None) -> Decision:
        """The decision for one command line. Never raises for any input string. A decision
        remembered is reused only while every filesystem fact it read holds (``fsfacts``)."""
        ctx = self._context(cwd)
        # ~ and $HOME mean the home directory of the moment; the state directory is the one
        # the environment names now; the hooks directories are the ones the git config names
        key = (command, ctx.cwd, ctx.workspace, ctx.home, ctx.guarded, ctx.state_env,
               ctx.protected, ctx.cdpath)
        cached = self._cache.get(key)
        if cached is not None and (cached[1] is None or holds(cached[1])):
            with suppress(KeyError):  # another thread may have evicted it meanwhile
                self._cache.move_to_end(key)
            if cached[1] is not None:
                adopt(cached[1])  # a check inside another decision: that one read them too
            return cached[0]
        with recording() as facts:
            decision = self._decide(command, ctx)
        if facts.reusable:  # else a fact changed while it was read: decided anew next time
            self._cache[key] = (decision, facts if facts.seen else None)
            if len(self._cache) > self._cache_size:
                with suppress(KeyError):  # or emptied it
                    self._cache.popitem(last=False)
        return decision

    def _context(self, cwd: str | None) -> Context:
        """The context for ``cwd``, remembered per (cwd, process cwd, and the environment that
        names the home and state directories) while the filesystem facts it read hold (the
        git config naming a hooks directory, the state directory's real path): path
        normalisation costs more than a whole plain-word check."""
        # A relative cwd or workspace is read from the process's working directory of the
        # moment, which is then part of the key
        relative = not (cwd and cwd.startswith("/")) or not (
            self.settings.workspace or "/").startswith("/")
        base = _process_cwd() if relative else ""
        key = (cwd, base, *_environment())
        found = self._contexts.get(key)
        if found is not None and (found[1] is None or holds(found[1])):
            return found[0]
        with recording() as facts:
            here = os.path.normpath(os.path.join(base, cwd or ""))
            workspace = os.path.normpath(os.path.join(base, self.settings.workspace or here))
            made = Context(here, workspace, os.path.expanduser("~"),
                           _forbidden_in(workspace, self.settings.forbidden_paths),
                           (*self.settings.protected_paths, *hooks_patterns(workspace)),
                           self.settings.regenerable_paths, state_paths(), _placing_state(),
                           cdpath=bool(key[2]))
        if len(self._contexts) >= 64:
            self._contexts.clear()
        if facts.reusable:
            self._contexts[key] = (made, facts if facts.seen else None)
        return made

    def _decide(self, command: str, ctx: Context) -> Decision:
        run = _Run()
        if not self.settings.shell_allowed:
            run.add(Verdict.deny(self.settings.shell_denied_by, "the policy does not permit "
                                 "running commands (permissions without shell)"), command)
        try:
            with bounded(Budget(*self._bounds)):
                self._check_line(command, ctx, run, depth=0)
            if self.settings.shadow and not run.misparsing and (
                    strictest(run.verdicts) is _ASK):  # DENY cannot get stricter
                self._second_opinion(command, ctx, run)
        except OverBudget as over:  # fail closed: a check that would run on is refused
            run.add(Verdict.deny(BOUND_ID, f"checking the line took {over.what}; failing closed",
                                 hint="split the line, or write a script file and review it"),
                    command[:80])
        except Exception as exc:  # fail closed: the machinery itself broke
            run.add(Verdict.deny(CRASH_ID, f"the checker failed ({type(exc).__name__}); "
                                 "failing closed"), command)
        return self._combine(command, run)

    def _second_opinion(self, command: str, ctx: Context, run: _Run) -> None:
        """What bash runs for a line that hides it, judged as if written out."""
        from clawgate.shadowtriggers import hides_what_it_runs

        if not hides_what_it_runs((r for v in run.verdicts for r in v.reasons), _ASK):
            return
        if self._second is None:
            from clawgate.shadowing import SecondOpinion

            self._second = SecondOpinion(lambda: self._shadow or _default_shadow(self.settings),
                                         cache_size=self._shadow_cache_size)
        verdicts, trace = self._second.opinion(command, ctx, self._written_out)
        run.trace.extend(trace)
        for verdict in verdicts:
            run.add(verdict, command)
            run.risk = max(run.risk, verdict.risk or run.risk)

    def _written_out(self, line: str, ctx: Context) -> Decision:
        """The decision for a line the shadow recorded: the static reading only."""
        run = _Run()
        try:
            with bounded(Budget(*self._bounds)):
                self._check_line(line, ctx, run, depth=1)
        except Exception as exc:  # a bound passed included: failing closed
            run.add(Verdict.deny(CRASH_ID, f"the checker failed ({type(exc).__name__}); "
                                 "failing closed"), line)
        return self._combine(line, run)

    def _check_line(self, line: str, ctx: Context, run: _Run, depth: int,
                    resolve: bool = True) -> None:
        """``resolve``: the line came from the agent (or a payload), not from the engine's own
        resolved reading of one."""
        if depth and resolve and not ctx.nested:  # not the agent's line, nor a reading of it
            ctx = replace(ctx, nested=True)
        seen = (line, resolve, ctx.cwd)
        if run.seen.get(seen, depth + 1) <= depth:
            return  # checked already, as deep or less (a payload met again after resolving)
        run.seen[seen] = depth
        charge_text(len(line))
        # UTF-8 spends at most 4 bytes a character: a shorter line is not encoded to be sure
        if len(line) > MAX_LINE_BYTES // 4 and len(
                line.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
            run.add(Verdict.deny(LENGTH_ID, f"longer than {MAX_LINE_BYTES} bytes",
                                 hint="write the script to a file and review it"), line[:80])
            return
        parsed = self._line_checks(line, ctx, run, resolve, depth)
        if parsed is None:
            return  # misparsing: the pipeline stops at once
        # the agent's own line starts where ctx says; a payload's $0 and directory are its own
        resolved, exact, fed = resolution(
            parsed, None if ctx.nested else ctx.cwd) if resolve else (None, frozenset(),
                                                                     frozenset())
        if depth >= MAX_NESTING:
            exact = fed = frozenset()  # no resolved reading is checked: nothing gives way to it
        # $CC --version, CC from the user: read with stand-ins after the other commands, and
        # only when nothing has asked yet (else the line asks whatever the readings say)
        readings = stand_in_readings(parsed) if resolve and not depth and not run.reading \
            else NO_READINGS
        later = readings[0] if readings[1] else frozenset()
        first = min(later, default=-1)
        moved = _moved(parsed, ctx) if _may_move(line) else None
        for index in range(len(parsed.commands)) if not later else (
                *(i for i in range(len(parsed.commands)) if i not in later), *sorted(later)):
            if index == first and not run.misparsing and strictest(run.verdicts) <= _ALLOW:
                exact |= self._stand_ins(parsed, ctx, run, readings)
            for where in moved.get(index, (ctx,)) if moved else (ctx,):
                self._check_command(parsed.commands[index], where, run, depth,
                                    exact=index in exact, fed=index in fed)
        if not resolve:
            return
        if resolved is not None and depth < MAX_NESTING:  # x=/; rm -rf "$x": as rm -rf / too
            self._check_line(resolved, ctx, run, depth + 1, resolve=False)
        elif resolved is None:
            for cmd in respelled(parsed):  # \d\d \o\f=/dev/sda: as dd of=/dev/sda too
                self._check_command(cmd, ctx, run, depth)

    def _stand_ins(self, parsed: ParsedLine, ctx: Context, run: _Run,
                   found: Readings) -> frozenset[int]:
        """The commands whose program is a variable the line never sets (``found``: they, and
        they and the line read with each stand-in program in their place,
        ``shell/standins.py``), when every reading is ALLOW or asks only what its stand-in
        asks for whatever words it is given, which these words cannot turn into harm
        (``validators/standinwords.py``: a network client given only names of this machine):
        their asks that only say the program is known at run time give way. The readings are
        checked under a bound of their own; past it, or at the first reading that is neither,
        nothing gives way (and nothing of the readings is added: ASK stays ASK). The commands
        alone first: cheaper, and most lines fail there."""
        indexes, readings, alone, programs = found
        try:
            with bounded(Budget(self._bounds[0] // 4, self._bounds[1] / 4)):
                for program, reading in (*zip(programs, alone, strict=True),
                                         *zip(programs, readings, strict=True)):
                    judged = _Run(reading=True)
                    self._check_line(reading, ctx, judged, depth=0)
                    if judged.misparsing or (strictest(judged.verdicts) > _ALLOW and
                                             not stand_in_asks(program, reading, judged.verdicts,
                                                               ctx, len(parsed.commands))):
                        return frozenset()
        except OverBudget:
            return frozenset()
        for index in sorted(indexes):
            run.trace.append(TraceEntry(parsed.commands[index].text, "CG-INJ-001",
                                        _PASSTHROUGH, "gives way: the line is ALLOW "
                                        f"with any of {len(readings)} stand-in programs"))
        return indexes

    def _line_checks(self, line: str, ctx: Context, run: _Run,
                     resolve: bool, depth: int = 0) -> ParsedLine | None:
        """The raw-text and whole-line validators; the parsed line, or None on misparsing.

        A resolved line is text the engine wrote: what it runs is checked, not how it is
        spelled (the line it came from was, raw and spelling validators included)."""
        raws = self._raw_checks if resolve else ()
        if raws and line.isascii() and line.isprintable():
            raws = self._raw_plain
        for raw, check_text in raws:  # inline: every line
            try:
                verdict = check_text(line, ctx)
            except Exception as exc:  # a crashing validator is a DENY naming it
                verdict = _failed(raw, exc)
            if verdict is not _NO_OPINION:
                run.add(verdict, line)
                if verdict.misparsing:
                    return None
        parsed = parse(line)
        for validator, check_line in self._line_dispatch.checks(parsed, resolve):
            try:
                verdict = check_line(parsed, ctx)
            except Exception as exc:
                verdict = _failed(validator, exc)
            if verdict is not _NO_OPINION and not (self.settings.unsafe
                                                   and _destructive_ask(verdict)):
                run.add(verdict, line)
                if verdict.misparsing:
                    return None
                for inner in verdict.nested:  # text the line writes and then runs
                    if isinstance(inner, MayRun) and depth < MAX_NESTING:
                        self._check_maybe(inner, ctx, run, depth)
                    elif isinstance(inner, str) and depth < MAX_NESTING:
                        self._check_line(inner, ctx, run, depth + 1)
        if resolve and depth < MAX_NESTING and (parsed.comments or "<<" in line):
            self._set_aside(parsed, ctx, run, depth, certain_body(line))
        return parsed

    def _check_maybe(self, inner: MayRun, ctx: Context, run: _Run, depth: int) -> None:
        """Another reading of what runs (``MayRun``): only its DENY counts."""
        maybe = _Run()
        self._check_line(inner, ctx, maybe, depth + 1)
        run.add_denials(maybe)

    def _set_aside(self, parsed: ParsedLine, ctx: Context, run: _Run, depth: int,
                   literal_body: bool = False) -> None:
        """Every byte accounted for: a comment or a here-document body that, read as a line of
        its own, is a command the engine would deny makes the line ASK at least (bash may read
        it otherwise than the parser did). One that does not parse adds nothing. The piece is
        judged for what it runs, as text the engine wrote (no spelling checks, no
        resolution): how it is written says nothing about a line it was never meant to be.
        ``literal_body``: the line as written is one plain command with one here-document
        whose delimiter is quoted whole and closes the text (``setaside.certain_body``)."""
        for kind, piece in set_aside(parsed):
            if kind == COMMENT and trailing_comment(parsed.source, piece):
                continue  # after a word and a blank: bash's reading is certain, no command
            if kind == BODY and literal_body:
                continue  # a quoted delimiter, its end certain: literal text to bash
            if parse(piece).has_error:
                continue  # prose, or text in another language: no command to any reader
            alone = _Run(aside=True)
            self._check_line(piece, ctx, alone, depth + 1, resolve=False)
            if not alone.misparsing and any(_judged_deny(v) for v in alone.verdicts):
                run.add(Verdict.ask(SET_ASIDE_ID, f"{kind} reads as a command that would be "
                                    "denied; a shell that reads it otherwise runs it",
                                    hint="leave the command out of the comment or text"),
                        piece[:80])

    def _check_command(self, cmd: SimpleCommand, ctx: Context, run: _Run, depth: int,
                       exact: bool = False, fed: bool = False) -> None:
        """``exact``: every dynamic word of ``cmd`` is put in exactly by the line's resolved
        reading, which is checked too; the asks that only say a value is unknown before run
        time (and the risk of an unknown program) give way to that reading. ``fed``: an xargs
        command whose items the resolved reading puts in under the feeding find's starting
        points: the command lines xargs would run with a bare item give way to that reading."""
        if depth > MAX_NESTING:
            run.add(Verdict.deny(NESTING_ID, f"wrapped more than {MAX_NESTING} levels deep"),
                    cmd.text)
            return
        verdicts: list[Verdict] = []
        checks = self._dispatch.for_command(cmd, ctx)
        charge(len(checks) + 1)
        for validator, check in checks:
            try:  # inline rather than through _verdict: this loop runs for every validator
                verdict = check(cmd, ctx)
            except Exception as exc:  # a crashing validator is a DENY naming it
                verdict = _failed(validator, exc)
            if verdict is _NO_OPINION:
                continue  # the shared passthrough: no outcome, risk or nested commands
            verdicts.append(verdict)
            for inner in verdict.nested:  # usually empty
                if fed and isinstance(inner, str) and XARGS_ITEM in inner:
                    continue  # checked rooted in the resolved reading
                if isinstance(inner, MayRun):
                    if not run.aside:  # "# then: rm -rf ~" is prose about a command
                        self._check_maybe(inner, ctx, run, depth)
                elif isinstance(inner, str):
                    self._check_line(inner, ctx, run, depth + 1)
                else:
                    self._check_command(inner, ctx, run, depth + 1)
        if exact:
            verdicts = [v for v in verdicts if not _run_time_ask(v)]
        for verdict in self._with_policy(cmd, verdicts, run, exact, nested=depth > 0):
            run.add(verdict, cmd.text)

    def _with_policy(self, cmd: SimpleCommand, verdicts: list[Verdict], run: _Run,
                     exact: bool = False, nested: bool = False) -> list[Verdict]:
        """Validator verdicts, the policy's rule and the autonomy verdict, as they combine."""
        risk = _LOW if exact else risk_of(cmd, nested)
        for verdict in verdicts:
            if verdict.risk is not None and verdict.risk > risk:
                risk = verdict.risk
        run.risk = max(run.risk, risk)
        run.trace.append(TraceEntry(cmd.text, "risk", _PASSTHROUGH, _RISK_NOTES[risk]))
        settings = self.settings
        rule, lifts_ask = settings.rules.evaluate(cmd)
        autonomies = self._autonomies
        if autonomies[0] is not settings:  # the settings were replaced: made again
            autonomies = self._autonomies = (settings, {r: _autonomy(settings, r) for r in Risk})
        autonomy = autonomies[1][risk]
        if settings.unsafe:
            verdicts = [v for v in verdicts if not _destructive_ask(v)]
        if rule.outcome is _ALLOW and strictest(verdicts) is not _DENY:
            if lifts_ask:
                verdicts = [v for v in verdicts if v.outcome is not _ASK]
            if autonomy.outcome is _ASK:
                autonomy = Verdict.passthrough()
        return [*verdicts, rule, autonomy]

    def _combine(self, command: str, run: _Run) -> Decision:
        outcome = max((v.outcome for v in run.verdicts), default=_ALLOW)
        if outcome is _PASSTHROUGH:
            outcome = _ALLOW
        if run.misparsing:
            outcome = _DENY
        reasons = _dedupe(r for v in run.verdicts if v.outcome is outcome for r in v.reasons)
        trace = (*run.trace, TraceEntry(command, "final", outcome, "strictest outcome wins"))
        return Decision(command, outcome, run.risk, reasons, run.misparsing, trace)


_NO_OPINION = Verdict.passthrough()


def _autonomy(s: EngineSettings, risk: Risk) -> Verdict:
    """The autonomy verdict for ``risk`` under the settings (verdicts are immutable: the
    policy step makes the three once per settings, and hands them out again)."""
    if s.autonomy is Autonomy.READONLY:
        if risk is _LOW:
            return _ALLOWED[risk]
        return Verdict.deny(AUTONOMY_ID, f"{risk.label}-risk command under read-only autonomy",
                            hint="this agent may only read")
    if risk is _HIGH:
        if s.autonomy is Autonomy.FULL and not s.block_high_risk_commands:
            return _ALLOWED[risk]
        if s.block_high_risk_commands:
            return Verdict.deny(AUTONOMY_ID, "high-risk commands are blocked by the policy")
        return Verdict.ask(AUTONOMY_ID, "high-risk command (network or outside the "
                           "workspace) needs approval under supervised autonomy")
    if risk is _MEDIUM and s.require_approval_for_medium_risk and (
            s.autonomy is Autonomy.SUPERVISED):
        return Verdict.ask(AUTONOMY_ID, "the policy requires approval for medium-risk "
                           "commands")
    return _ALLOWED[risk]


_MAY_MOVE = lazy_pattern(r"\b(?:cd|pushd|popd)\b")


def _may_move(line: str) -> bool:
    """A ``cd``, ``pushd`` or ``popd`` word in the line; the substring tests first (a search
    led by ``\\b`` tries every position: ~3 us a line, the tests ~0.3 us)."""
    return ("cd" in line or "pushd" in line or "popd" in line) and \
        _MAY_MOVE.search(line) is not None


# The validators that ask because a program, target, script or code is only known at run time.
RUN_TIME_IDS = frozenset({
    "CG-INJ-001", "CG-INJ-008", "CG-INJ-009", "CG-INJ-010", "CG-DEST-009", "CG-WRAP-001",
    "CG-WRAP-002", "CG-WRAP-003", "CG-WRAP-008", "CG-WRAP-009", "CG-WRAP-011", "CG-INTERP-001",
    "CG-INTERP-003", "CG-INTERP-004", "CG-INTERP-005", "CG-INTERP-006", "CG-INTERP-007",
    "CG-ZSH-001", "CG-ESC-007", "CG-CODE-003"})
_ALLOWED = {risk: Verdict(Outcome.ALLOW, risk=risk) for risk in Risk}  # verdicts are immutable
_RISK_NOTES = {risk: f"{risk.label} risk" for risk in Risk}
# Where a process whose directory was deleted stands: inside no workspace, so nothing it
# writes counts as a write inside one.
UNKNOWN_CWD = "/nonexistent/clawgate-unknown-cwd"


def _moved(parsed: ParsedLine, ctx: Context) -> dict[int, tuple[Context, ...]]:
    """The contexts of the line's commands that run elsewhere after a ``cd`` (by index): each
    is checked from every directory it may run in, wrappers and payloads included (``cd / &&
    env rm -rf build``, ``cd ~ && bash -c '…'``)."""
    from clawgate.validators.degreeline import places

    index = {id(cmd): i for i, cmd in enumerate(parsed.commands)}
    found: dict[int, tuple[Context, ...]] = {}
    for cmd, dirs in places(parsed, ctx):
        if dirs != (ctx.cwd,):
            found[index[id(cmd)]] = tuple(ctx if d == ctx.cwd else replace(ctx, cwd=d)
                                          for d in dirs)
    return found


# A decision's key: the line, the cwd, the home, the state, the variables placing it and the
# protected patterns (the hooks directories the git config names among them).
_CacheKey = tuple[str, str, str, str, tuple[str, ...], tuple[tuple[str, str], ...],
                  tuple[str, ...], bool]
# What the home and the state directories are read from (statedir.state_root).
_STATE_ENV = ("HOME", "CLAWGATE_STATE_HOME", "XDG_STATE_HOME", "CLAWGATE_STATE_DIR")
# The variables a context depends on (CDPATH first), as os.environ's encoded mapping holds them
_CONTEXT_ENV = ("CDPATH", *_STATE_ENV)
_CONTEXT_ENV_KEYS = tuple(os.fsencode(name) for name in _CONTEXT_ENV)


def _environment() -> tuple[object, ...]:
    """The values of ``_CONTEXT_ENV`` as set now, for a context's key (None where unset).
    Read from the encoded mapping ``os.environ`` keeps and every change through it updates
    (CPython's ``_data``): ``os.environ.get`` of an unset name raises and catches two
    exceptions inside (~1.4 µs), and every decision reads these five names. Where there is no
    such mapping (``os.environ`` replaced), through ``os.environ.get``."""
    data = getattr(os.environ, "_data", None)
    if type(data) is dict:
        return tuple(map(data.get, _CONTEXT_ENV_KEYS))
    return tuple(map(os.environ.get, _CONTEXT_ENV))


def _placing_state() -> tuple[tuple[str, str], ...]:
    """The variables that place the state directory, as set now (``$HOME`` is ``ctx.home``)."""
    return tuple((name, os.environ[name]) for name in _STATE_ENV[1:] if os.environ.get(name))


def _default_shadow(settings: EngineSettings) -> Shadow:
    """A shadow under the policy's time limit whose stubs include every program the catalog
    and the wrapper table name (a stub answers for them where they are not installed)."""
    from clawgate import programs
    from clawgate.shell.shadow import Limits, Shadow
    from clawgate.validators.wraptable import PLAIN, PRIVILEGED

    return Shadow(Limits(timeout_s=settings.shadow_timeout_s),
                  names=programs.names() | set(PLAIN) | set(PRIVILEGED))


def _forbidden_in(workspace: str, paths: tuple[str, ...]) -> tuple[str, ...]:
    """A relative forbidden path (``secrets/``, ``.env``) is relative to the workspace, as for
    the file tools (``tools/paths.py``); absolute and ``~`` entries stay as written."""
    return tuple(p if p.startswith(("/", "~")) else os.path.normpath(os.path.join(workspace, p))
                 for p in paths)


def _process_cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return UNKNOWN_CWD


def _judged_deny(verdict: Verdict) -> bool:
    """A DENY a validator gave about what a command does, not one of the machinery's own
    (nesting too deep, a crash, a length): those say nothing of text set aside."""
    return verdict.outcome is _DENY and any(
        not r.rule_id.startswith("CG-ENGINE-") for r in verdict.reasons)


def _failed(validator: AnyValidator, exc: Exception) -> Verdict:
    return Verdict.deny(validator.id, f"validator {validator.id} failed "
                        f"({type(exc).__name__}); failing closed")


def _destructive_ask(verdict: Verdict) -> bool:
    """ASKs of the destructive-command family, which ``permissions.unsafe`` lifts."""
    return verdict.outcome is _ASK and all(
        r.rule_id.startswith(DESTRUCTIVE_PREFIX) for r in verdict.reasons)


def _run_time_ask(verdict: Verdict) -> bool:
    """An ASK only because a value is not known before run time."""
    return verdict.outcome is _ASK and bool(verdict.reasons) and all(
        r.rule_id in RUN_TIME_IDS for r in verdict.reasons)


def _dedupe(reasons: Iterable[Reason]) -> tuple[Reason, ...]:
    return tuple(dict.fromkeys(reasons))
