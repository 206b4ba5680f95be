"""The properties a policy must keep, each a plain function usable from any test.

Each raises ``InvariantViolation`` (an ``AssertionError``) naming the invariant, saying what
broke and carrying the keyword arguments that reproduce it (``replay`` runs them again), so a
counter-example can be stored as one JSON line and replayed forever after.

    decides                 every input gets a final decision in time and nothing raises
    rewrites                a meaning-preserving rewrite never gets a weaker outcome
    adding                  adding a command to a line never lowers the line's outcome
    wrappers                a DENY stays a DENY under wrappers (sudo, env, bash -c ...)
    paths                   no path resolved for a tool leaves the workspace
    audit                   every executed call has an audit record and passed the policy
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawgate.decision import Decision, Outcome
from clawgate.testing._grammar import join_lines

if TYPE_CHECKING:
    from clawgate.engine import Engine

HANG_FACTOR = 10  # the watchdog on ``decides``, in deadlines of CPU time
CONFIRMATIONS = 2  # more first-sight timings of a line over the deadline before it fails
DEADLINE_CHARS = 256  # the length of line ``decides``' deadline is for (longer: as much per)
# ``decides``' bound moves with the machine: a line also has this many times what a heavy,
# ordinary line of the fuzzer's shapes costs on the same machine at the same moment.
DEADLINE_RATIO = 8.0
# That line: a here-document to a shell, substitutions of every kind, a prompt expansion and an
# eval (a second opinion: bash run in its sandbox), as the generated lines have them.
REFERENCE_LINE = ('sh <<-END\n\techo "$HOME"\n\tgit status --short\n\tEND\n'
                  'v=status; git ${v} --short 2>/dev/null | head -n 5; eval "echo $HOME"; '
                  'printf "%s\\n" "$(git log --oneline -n 3)" ${x@P} <<< done; '
                  '{ cd build && make -j2 "CFLAGS=$(pkg-config --cflags zlib)" 2>&1 | tee log.txt; '
                  '} || echo "failed: `date`"')
HANG_S = 1.0  # the watchdog on checks made by the other invariants, in seconds of CPU time
# A check blocked without using CPU is a hang too: real time, this many watchdog periods (a
# loaded machine stretches real time several-fold, never thirty-fold).
HANG_WALL_FACTOR = 30
_FINAL = frozenset({Outcome.ALLOW, Outcome.ASK, Outcome.DENY})


class InvariantViolation(AssertionError):
    """An invariant that does not hold: which, why, and the arguments that show it."""

    def __init__(self, invariant: str, message: str, args: Mapping[str, Any],
                 shown: tuple[str, ...] = (), *, hang: bool = False) -> None:
        self.invariant = invariant
        self.message = message
        self.arguments = dict(args)
        self.shown = shown  # lines worth showing that are not arguments (a combined line)
        self.hang = hang  # the checker hung: every retry costs a watchdog's wait
        super().__init__(f"{invariant}: {message}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled whole (a forked ``policy fuzz`` worker sends it back)."""
        return (_violation, (self.invariant, self.message, self.arguments, self.shown,
                             self.hang))

    def lines(self) -> tuple[str, ...]:
        """The command lines involved, each reproducible with ``policy check``."""
        keys = ("line", "original", "rewritten", "extra", "wrapped_line")
        found = [v for k in keys if isinstance(v := self.arguments.get(k), str)]
        return (*found, *self.shown)


def _violation(invariant: str, message: str, args: Mapping[str, Any], shown: tuple[str, ...],
               hang: bool) -> InvariantViolation:
    return InvariantViolation(invariant, message, args, shown, hang=hang)


class CheckHung(BaseException):
    """Raised into a check that outlived its watchdog. A BaseException, so that the engine's
    fail-closed ``except Exception`` does not turn a hang into a quiet DENY."""


@contextlib.contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Interrupt the block with ``CheckHung`` once it has used ``seconds`` of CPU time, or
    ``HANG_WALL_FACTOR`` times that in real time (main thread only, elsewhere it only waits).
    A hung check would otherwise stop a fuzz run for good: some inputs make a parser loop and
    grow without bound. CPU time (``ITIMER_VIRTUAL``), because a loop is what hangs, and the
    time slices other processes take on a loaded machine must not make a slow check a hang;
    bashlex's own deadline keeps ``ITIMER_PROF`` (``shell.differential``)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def fire(signum: int, frame: object) -> None:
        raise CheckHung(f"no decision within {seconds:g} s of CPU time")

    timers = ((signal.ITIMER_VIRTUAL, signal.SIGVTALRM, seconds),
              (signal.ITIMER_REAL, signal.SIGALRM, seconds * HANG_WALL_FACTOR))
    previous = [signal.signal(signum, fire) for _, signum, _ in timers]
    # Re-armed every 50 ms: an interrupt that lands in code that swallows exceptions (a gc
    # callback, a bare except) is followed by another until one gets through.
    for which, _, after in timers:
        signal.setitimer(which, after, 0.05)
    try:
        yield
    finally:
        for (which, signum, _), handler in zip(timers, previous, strict=True):
            signal.setitimer(which, 0)
            signal.signal(signum, handler)


def _outcome(engine: Engine, line: str, cwd: str | None) -> Outcome:
    """The outcome for ``line``; a check that hangs is a ``decides`` violation, whichever
    invariant ran into it (and stops the run instead of stalling it)."""
    try:
        with watchdog(HANG_S):
            return engine.check(line, cwd=cwd).outcome
    except CheckHung:
        raise InvariantViolation("decides", f"no decision after {HANG_S:g} s of CPU time: the "
                                 "checker hangs", {"line": line, "deadline_ms": 50.0},
                                 hang=True) from None


def decides_in_time(engine: Engine, line: str, *, deadline_ms: float = 50.0,
                    ratio: float = DEADLINE_RATIO, cwd: str | None = None) -> Decision:
    """``line`` gets ALLOW, ASK or DENY, without an exception, within its time bound.

    The bound is CPU time, which neighbours on a shared machine do not inflate, with the
    garbage collector paused (a collection costs what the whole process's heap costs -- a test
    runner's -- not what the checker does); a watchdog interrupts a check still running after
    ``HANG_FACTOR`` bounds of CPU time. Real time is no bound: on a loaded machine it measures
    the neighbours. Even CPU time differs from machine to machine and from moment to moment on
    a shared virtual machine (the same first sight of a line measured 33 to 61 ms on two
    machines of one kind), so the bound is the larger of ``deadline_ms`` and ``ratio`` times
    what ``REFERENCE_LINE`` -- a heavy, ordinary line -- costs beside it: a slow or busy
    machine is slow for both, and what fails is a line that costs many times what a heavy
    ordinary line does. Noise only ever adds: a miss is timed ``CONFIRMATIONS`` more times,
    each as a first sight (``Engine.forget``), the reference timed as often between them, and
    only a line over its bound every time fails.

    The bound is for a line of up to ``DEADLINE_CHARS`` characters; a longer one has as much
    per ``DEADLINE_CHARS`` characters (the checker's work grows with the text it reads: what
    must not happen is that it grows faster, or without bound).
    """
    args = {"line": line, "deadline_ms": deadline_ms}
    scale = max(1.0, len(line) / DEADLINE_CHARS)
    allowed = deadline_ms * scale
    decision, cpu_ms, wall_ms = _timed_check(engine, line, cwd, allowed, args)
    tries = [cpu_ms]
    references: list[float] = []
    while min(tries) > allowed and len(tries) <= CONFIRMATIONS:
        for _ in range(1 if references else 2):  # the first time warms it (lazy imports)
            engine.forget()  # (its watchdog: HANG_S, the line's may be far below its cost)
            references.append(_timed_check(engine, REFERENCE_LINE, cwd,
                                           max(allowed, HANG_S * 1000 / HANG_FACTOR), args)[1])
        engine.forget()
        decision, cpu_ms, wall_ms = _timed_check(engine, line, cwd, allowed, args)
        tries.append(cpu_ms)
    if references:
        allowed = max(deadline_ms, ratio * min(references)) * scale
    if min(tries) > allowed:
        each = ", ".join(f"{t:.1f}" for t in tries)
        per = f" per {DEADLINE_CHARS} characters" if scale > 1 else ""
        bound = (f"its {allowed:.1f} ms bound (the larger of {deadline_ms:g} ms and {ratio:g} "
                 f"times the reference line's {min(references):.1f} ms{per})")
        raise InvariantViolation("decides", f"took {min(tries):.1f} ms of CPU at best ({each} "
                                 f"ms, each a first sight; {wall_ms:.1f} ms wall the last "
                                 f"time), over {bound}", args)
    if references:
        engine.forget()  # the reference's decisions are not the run's
    return decision


def _timed_check(engine: Engine, line: str, cwd: str | None, deadline_ms: float,
                 args: Mapping[str, Any]) -> tuple[Decision, float, float]:
    """One check: its final decision, its CPU and wall milliseconds."""
    collecting = gc.isenabled()
    gc.disable()
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        with watchdog(HANG_FACTOR * deadline_ms / 1000):
            decision = engine.check(line, cwd=cwd)
    except CheckHung:
        raise InvariantViolation("decides", f"no decision after {HANG_FACTOR * deadline_ms:g} "
                                 "ms of CPU time: the checker hangs", args, hang=True) from None
    except Exception as exc:
        raise InvariantViolation("decides", f"check raised {type(exc).__name__}: {exc}",
                                 args) from exc
    finally:
        cpu_ms = (time.thread_time() - cpu) * 1000
        wall_ms = (time.perf_counter() - wall) * 1000
        if collecting:
            gc.enable()
    if not isinstance(decision, Decision) or decision.outcome not in _FINAL:
        raise InvariantViolation("decides", f"not a final decision: {decision!r}", args)
    return decision, cpu_ms, wall_ms


def rewrite_not_weaker(engine: Engine, original: str, rewritten: str, *,
                       cwd: str | None = None) -> bool:
    """``rewritten`` means what ``original`` means, so its outcome is at least as strict.
    Returns whether there was anything to keep (``original`` is stricter than ALLOW)."""
    before, after = _outcome(engine, original, cwd), _outcome(engine, rewritten, cwd)
    if after < before:
        raise InvariantViolation(
            "rewrites", f"the rewrite is {after.label} but the command is {before.label}",
            {"original": original, "rewritten": rewritten})
    return before > Outcome.ALLOW


def adding_never_lowers(engine: Engine, line: str, extra: str, sep: str = "; ", *,
                        cwd: str | None = None) -> bool:
    """``line`` followed by ``extra`` is at least as strict as each of them alone. Returns
    whether there was anything to lower (a part stricter than ALLOW).

    ``line`` must be complete (another command may follow it on a new line); ``join_lines``
    puts a newline where ``sep`` cannot follow it.
    """
    combined = join_lines(line, sep, extra)
    alone = max(_outcome(engine, line, cwd), _outcome(engine, extra, cwd))
    together = _outcome(engine, combined, cwd)
    if together < alone:
        raise InvariantViolation(
            "adding", f"the combined line is {together.label}, one part alone is {alone.label}",
            {"line": line, "extra": extra, "sep": sep}, shown=(combined,))
    return alone > Outcome.ALLOW


def deny_survives_wrapping(engine: Engine, line: str, wrapped_line: str, *,
                           cwd: str | None = None) -> bool:
    """If ``line`` is DENY, ``wrapped_line`` (the line under a wrapper that runs it) is DENY.
    Returns whether the invariant applied (``line`` was DENY)."""
    if _outcome(engine, line, cwd) is not Outcome.DENY:
        return False
    after = _outcome(engine, wrapped_line, cwd)
    if after is not Outcome.DENY:
        raise InvariantViolation("wrappers", f"the command is deny but wrapped it is "
                                 f"{after.label}", {"line": line, "wrapped_line": wrapped_line})
    return True


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def path_stays_inside(path: str, workspace: str | os.PathLike[str], *,
                      forbidden: Sequence[str] = (), home: str | None = None) -> Path | None:
    """``clawgate.tools.paths.resolve_in_workspace`` refuses ``path`` with ``InvalidPath`` or
    returns a path that, resolved independently by the OS, is inside the workspace and under no
    forbidden path. Returns the resolved path, or None when it was refused."""
    from clawgate.errors import ToolError, ToolErrorKind

    # Written by the guard branch; the ignore covers builds without it (and is then unused).
    from clawgate.tools.paths import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        resolve_in_workspace,
    )

    args = {"path": path, "workspace": os.fspath(workspace), "forbidden": list(forbidden)}
    try:
        resolved = resolve_in_workspace(path, workspace, forbidden=forbidden, home=home)
    except ToolError as exc:
        if exc.kind is ToolErrorKind.INVALID_PATH:
            return None
        raise InvariantViolation("paths", f"refused with {exc.kind.value}, not InvalidPath",
                                 args) from exc
    except Exception as exc:
        raise InvariantViolation("paths", f"raised {type(exc).__name__}: {exc}", args) from exc
    root = os.path.realpath(workspace)
    try:
        real = os.path.realpath(resolved)
    except (UnicodeEncodeError, ValueError) as exc:  # a name no system call can take
        raise InvariantViolation("paths", f"resolved to a path the OS cannot name: {exc}",
                                 args) from exc
    if not _inside(real, root):
        raise InvariantViolation("paths", f"resolved to {real}, outside {root}", args)
    home = home if home is not None else os.path.expanduser("~")
    for entry in forbidden:
        bad = os.path.realpath(home + entry[1:] if entry.startswith("~") else entry)
        if _inside(real, bad):
            raise InvariantViolation("paths", f"resolved to {real}, under forbidden {bad}", args)
    return Path(resolved)


def executed_calls_audited(engine: Engine, executed: Sequence[str],
                           audit: Sequence[Mapping[str, object]], *, cwd: str | None = None,
                           redact: Callable[[str], str] | None = None) -> None:
    """Every command an executor ran has its own audit record that let it run, and the policy
    lets it run: not DENY, and an ASK only with ``approved: true`` in the record.

    ``executed``: the commands in the order the executor saw them. ``audit``: the records as the
    audit log holds them, with ``command``, ``outcome`` and (for an ASK) ``approved``. ``cwd``:
    where the commands ran (the policy is asked there). ``redact``: how the audit log scrubs a
    command (credentials), so that a scrubbed record still matches its command.
    """
    pending = list(audit)
    for command in executed:
        args = {"executed": list(executed), "audit": [dict(r) for r in audit]}
        logged = redact(command) if redact is not None else command
        match = next((r for r in pending if r.get("command") in (command, logged) and
                      _lets_run(r)), None)
        if match is None:
            raise InvariantViolation("audit", f"{command!r} ran without an audit record "
                                     "letting it run", args)
        pending.remove(match)
        outcome = _outcome(engine, command, cwd)
        if outcome is Outcome.DENY or (outcome is Outcome.ASK and match.get("approved") is
                                       not True):
            raise InvariantViolation("audit", f"{command!r} ran but the policy says "
                                     f"{outcome.label}", args)


def _lets_run(record: Mapping[str, object]) -> bool:
    outcome = record.get("outcome")
    return outcome == "allow" or (outcome == "ask" and record.get("approved") is True)


CHECKS: dict[str, Callable[..., object]] = {
    "decides": decides_in_time,
    "rewrites": rewrite_not_weaker,
    "adding": adding_never_lowers,
    "wrappers": deny_survives_wrapping,
    "paths": path_stays_inside,
    "audit": executed_calls_audited,
}
_NEEDS_ENGINE = frozenset({"decides", "rewrites", "adding", "wrappers", "audit"})


def replay(engine: Engine, invariant: str, arguments: Mapping[str, Any]) -> None:
    """Run ``invariant`` again with stored ``arguments`` (a line of a regressions file)."""
    check = CHECKS[invariant]
    if invariant in _NEEDS_ENGINE:
        check(engine, **arguments)
    else:
        check(**arguments)
