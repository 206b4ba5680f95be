"""Run every invariant under hypothesis against one engine: the engine of ``policy fuzz`` and of
the pytest plugin. Each invariant gets ``examples`` generated inputs; a failure is shrunk and
kept with the arguments that reproduce it."""

from __future__ import annotations

import importlib.util
import multiprocessing
import shlex
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import FlakyFailure

from clawgate.preload import preload
from clawgate.testing import invariants as inv
from clawgate.testing import strategies as s

if TYPE_CHECKING:
    from clawgate.engine import Engine

INVARIANTS = ("decides", "rewrites", "adding", "wrappers", "paths", "audit")
# No "explain" phase: it renders every strategy's repr (the grammar's runs to 100 kB).
_PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
_SEPARATORS = ("; ", " && ", " || ", " | ", "\n", " & ")


@dataclass(frozen=True, slots=True)
class FuzzConfig:
    """``seeds``: command lines of the user's own (rule examples) mixed into every invariant.
    ``policies``: the manifests the engine was loaded from (the ``audit`` invariant builds a
    Guard from them); None when the engine was built in code."""

    examples: int = 200
    seed: int | None = None
    deadline_ms: float = 50.0
    only: tuple[str, ...] = ()
    seeds: tuple[str, ...] = ()
    keep_going: bool = False  # count every failing example instead of stopping to shrink
    policies: tuple[str, ...] | None = ()  # the engine's manifests; None: built otherwise
    jobs: int = 1  # invariants run at once (forked processes)
    deadline_ratio: float = inv.DEADLINE_RATIO  # ``decides``: times the reference line's cost


@dataclass
class Result:
    """What one invariant did: ``applied`` counts examples where it had something to check
    (a DENY to keep under wrappers, an outcome above ALLOW to keep under rewrites ...)."""

    name: str
    status: str = "ok"  # ok | FAIL | skipped
    examples: int = 0
    applied: int = 0
    seconds: float = 0.0
    note: str = ""
    violation: inv.InvariantViolation | None = None
    steps: tuple[str, ...] = field(default=())
    failed_at: int = 0  # the example that first failed (later ones are hypothesis shrinking)
    failures: int = 0  # failing examples (with keep_going: all of them, none shrunk)


def _settings(config: FuzzConfig) -> settings:
    return settings(
        max_examples=config.examples, deadline=None, database=None,
        derandomize=config.seed is None, verbosity=Verbosity.quiet, report_multiple_bugs=False,
        print_blob=False, phases=_PHASES,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                               HealthCheck.data_too_large, HealthCheck.large_base_example],
    )


def _with_seeds(strategy: st.SearchStrategy[str], config: FuzzConfig) -> st.SearchStrategy[str]:
    return st.one_of(strategy, st.sampled_from(config.seeds)) if config.seeds else strategy


def _dangerous_lines() -> st.SearchStrategy[str]:
    return st.one_of(s.dangerous_commands().map(shlex.join), st.sampled_from(s.TRICKY_LINES))


class _StopRun(BaseException):
    """Ends a hypothesis run at once, unshrunk: a hang makes every shrinking step wait for the
    watchdog. A BaseException, which hypothesis lets through like a KeyboardInterrupt."""

    def __init__(self, violation: inv.InvariantViolation) -> None:
        super().__init__(violation.message)
        self.violation = violation


Body = Callable[..., None]
Built = tuple[tuple[st.SearchStrategy[Any], ...], Body]


def _decides(engine: Engine, config: FuzzConfig, result: Result,
             stack: ExitStack) -> Built:
    worst = [0.0]

    def body(data: st.DataObject, line: str) -> None:
        start = time.perf_counter()
        inv.decides_in_time(engine, line, deadline_ms=config.deadline_ms,
                            ratio=config.deadline_ratio)
        worst[0] = max(worst[0], (time.perf_counter() - start) * 1000)
        result.note = f"slowest {worst[0]:.1f} ms"
        result.applied += 1

    return (_with_seeds(s.any_input(), config),), body


def _rewrites(engine: Engine, config: FuzzConfig, result: Result,
              stack: ExitStack) -> Built:
    seeds = [st.sampled_from(config.seeds)] if config.seeds else []
    source: st.SearchStrategy[Any] = st.one_of(s.dangerous_commands(), s.simple_commands(),
                                               *seeds)

    def body(data: st.DataObject, command: str | tuple[str, ...]) -> None:
        rewrite = data.draw(s.rewrites(command), label="rewrite")
        result.steps = rewrite.steps
        result.applied += inv.rewrite_not_weaker(engine, rewrite.original, rewrite.line)

    return (source,), body


def _adding(engine: Engine, config: FuzzConfig, result: Result,
            stack: ExitStack) -> Built:
    part = _with_seeds(st.one_of(s.lines(), s.lines(), _dangerous_lines()), config)

    def body(data: st.DataObject, line: str, extra: str, sep: str) -> None:
        result.applied += inv.adding_never_lowers(engine, line, extra, sep)

    return (part, part, st.sampled_from(_SEPARATORS)), body


def _wrappers(engine: Engine, config: FuzzConfig, result: Result,
              stack: ExitStack) -> Built:
    source = _with_seeds(st.one_of(_dangerous_lines(), _dangerous_lines(), s.lines()), config)

    def body(data: st.DataObject, line: str) -> None:
        rewrite = data.draw(s.wrapped(line), label="wrapped")
        result.steps = rewrite.steps
        result.applied += inv.deny_survives_wrapping(engine, line, rewrite.line)

    return (source,), body


def _paths(engine: Engine, config: FuzzConfig, result: Result,
           stack: ExitStack) -> Built | str:
    try:
        found = importlib.util.find_spec("clawgate.tools.paths")
    except ModuleNotFoundError:
        found = None
    if found is None:
        return "needs clawgate.tools.paths (resolve_in_workspace), not in this build"
    base = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="clawgate-fuzz-")))
    layout = s.make_workspace(base)
    home = base / "home"
    home.mkdir()
    forbidden = ("~/.ssh", "/etc/shadow", str(layout.root / "dir" / "sub"))

    def body(data: st.DataObject, path: str) -> None:
        resolved = inv.path_stays_inside(path, layout.root, forbidden=forbidden, home=str(home))
        result.applied += resolved is not None

    return (s.paths(layout.names),), body


def _audit(engine: Engine, config: FuzzConfig, result: Result,
           stack: ExitStack) -> Built | str:
    if config.policies is None:
        return "needs the manifests to build a Guard (the engine was built in code)"
    from clawgate.testing._guarded import GuardedShell

    shell = GuardedShell(config.policies, stack)
    line = _with_seeds(st.one_of(_dangerous_lines(), s.simple_commands()), config)

    def body(data: st.DataObject, lines: list[str], approve: bool) -> None:
        ran, records = shell.run(lines, approve)
        inv.executed_calls_audited(engine, ran, records, cwd=str(shell.workspace),
                                   redact=shell.redact)
        result.applied += bool(ran)

    return (st.lists(line, min_size=1, max_size=3), st.booleans()), body


BUILDERS: dict[str, Callable[[Engine, FuzzConfig, Result, ExitStack], Built | str]] = {
    "decides": _decides, "rewrites": _rewrites, "adding": _adding, "wrappers": _wrappers,
    "paths": _paths, "audit": _audit,
}


def warm_up(engine: Engine) -> None:
    """Load the check path (every module, every pattern) and the parsers once, so that no
    timed example pays for a first use."""
    preload()
    for line in ("echo $(ls) | grep 'x' && cat <<EOF\nx\nEOF", "a=1; b \"$a\"", *s.TRICKY_LINES):
        engine.check(line)


def run_one(engine: Engine, name: str, config: FuzzConfig) -> Result:
    """One invariant, ``config.examples`` times; the shrunk counter-example on failure."""
    warm_up(engine)
    with ExitStack() as stack:
        return _run_one(engine, name, config, stack)


def _run_one(engine: Engine, name: str, config: FuzzConfig, stack: ExitStack) -> Result:
    result = Result(name)
    built = BUILDERS[name](engine, config, result, stack)
    if isinstance(built, str):
        result.status, result.note = "skipped", built
        return result
    strategies, body = built

    def counted(args: tuple[Any, ...], data: st.DataObject) -> None:
        result.examples += 1
        try:
            body(data, *args)
        except inv.InvariantViolation as exc:
            result.failed_at = result.failed_at or result.examples
            result.failures += 1
            if exc.hang and not config.keep_going:
                raise _StopRun(exc) from exc
            if not config.keep_going:
                raise
            if result.violation is None:
                result.status, result.violation, first_steps[:] = "FAIL", exc, result.steps

    test = given(st.tuples(*strategies), st.data())(counted)
    test = _settings(config)(test)
    if config.seed is not None:
        test = hypothesis_seed(config.seed)(test)
    first_steps: list[str] = []
    start = time.perf_counter()
    try:
        test()
    except inv.InvariantViolation as exc:
        result.status, result.violation = "FAIL", exc
    except _StopRun as stop:
        result.status, result.violation = "FAIL", stop.violation
        result.note = "the checker hangs: not shrunk (each try would wait for the watchdog)"
    except FlakyFailure as group:
        # Failed once, passed on replay: a time bound met the second time (the engine caches
        # decisions). Still a failure; the first one is the counter-example, unshrunk.
        found = [e for e in group.exceptions if isinstance(e, inv.InvariantViolation)]
        if not found:
            raise
        result.status, result.violation = "FAIL", found[0]
        result.note = "did not fail again on replay (unshrunk)"
    result.seconds = time.perf_counter() - start
    if config.keep_going and result.violation is not None:
        result.steps = tuple(first_steps)
    return result


def run(engine: Engine, config: FuzzConfig, *, names: Sequence[str] = INVARIANTS,
        on_result: Callable[[Result], None] | None = None) -> list[Result]:
    """Every invariant in ``names`` (``config.only`` narrows them), reported in that order;
    with ``config.jobs`` > 1, that many run at once in forked worker processes."""
    chosen = [name for name in names if not config.only or name in config.only]
    workers = min(config.jobs, len(chosen))
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        return _run_forked(engine, config, chosen, workers, on_result)
    results = []
    for name in chosen:
        result = run_one(engine, name, config)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


# The engine and settings the forked workers inherit (an engine holds parsers that do not
# pickle); set only while ``_run_forked`` runs.
_FORKED: list[tuple[Engine, FuzzConfig]] = []
_COST_ORDER = ("adding", "rewrites", "wrappers", "decides", "audit", "paths")  # slowest first


def _run_forked(engine: Engine, config: FuzzConfig, chosen: list[str], workers: int,
                on_result: Callable[[Result], None] | None) -> list[Result]:
    warm_up(engine)  # once, before the fork: every worker starts warm
    _FORKED.append((engine, config))
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            order = sorted(chosen, key=lambda n: _COST_ORDER.index(n) if n in _COST_ORDER
                           else -1)
            futures = {name: pool.submit(_run_inherited, name) for name in order}
            results = []
            for name in chosen:
                result = futures[name].result()
                results.append(result)
                if on_result is not None:
                    on_result(result)
            return results
    finally:
        _FORKED.clear()


def _run_inherited(name: str) -> Result:
    engine, config = _FORKED[-1]
    return run_one(engine, name, config)
