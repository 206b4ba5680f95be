"""The second opinion at decision time: a line whose static reading says it hides what it runs
is run in the shadow (``shell/shadow``), and every program bash started there is judged as if
it had been written out, so is every pipeline those programs formed and the text of every
command that redirected output or named ``/dev/tcp`` (a builtin starts no program); the
strictest outcome wins.

Triggered by the reasons the static reading gives (``shadowtriggers.py``). This module is
imported at the first such line only (``threading`` costs the CLI's start-up); the shadow's
own modules and files are prepared on a thread of its own, once.

The shadow only adds strictness: its recorded programs are checked by the same engine
(``judge``, never shadowed again) and their outcomes join the line's; a shadow run that failed,
timed out or cannot happen here adds nothing but a note in the trace. Where bubblewrap is
missing one warning is logged (``clawgate.engine``) and the engine stays static.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from contextlib import suppress

from clawgate.decision import Decision, Outcome, Reason, TraceEntry, Verdict
from clawgate.fsfacts import Facts, adopt, holds, listing, recording
from clawgate.records import replace
from clawgate.shadowtriggers import SHADOW_ID, SHADOW_NOTE_ID
from clawgate.validators.base import Context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    _T = TypeVar("_T")
    from clawgate.shell.shadow import Shadow, ShadowRun

MAX_JUDGED = 64  # recorded programs judged per line
Judge = Callable[[str, Context], Decision]


class SecondOpinion:
    """Shadow runs for one engine: made lazily, cached per (line, cwd, home) in a bounded
    LRU, the unavailability warned of once."""

    def __init__(self, make: Callable[[], Shadow], cache_size: int = 256) -> None:
        self._make = make
        self._shadow: Shadow | None = None
        self._lock = threading.Lock()
        self._warned = False
        # each run with the facts it depends on: the names the working directory holds
        self._cache: OrderedDict[tuple[str, str, str], tuple[ShadowRun, Facts]] = OrderedDict()
        self._cache_size = cache_size

    def opinion(self, line: str, ctx: Context, judge: Judge
                ) -> tuple[list[Verdict], list[TraceEntry]]:
        """The verdicts the shadow adds to ``line`` (one per recorded program that is not
        ALLOW) and the trace of what bash would have run."""
        found = self._shadow_run(line, ctx)
        if found is None:
            return [], []
        verdicts: list[Verdict] = []
        trace: list[TraceEntry] = []
        if found.status.value != "ok":
            trace.append(TraceEntry(line, SHADOW_NOTE_ID, Outcome.PASSTHROUGH,
                                    f"shadow run {found.status.value} ({found.detail}); the "
                                    "static reading stands"))
        else:
            trace.append(TraceEntry(line, SHADOW_NOTE_ID, Outcome.PASSTHROUGH,
                                    f"shadow run: bash started {len(found.executions)} "
                                    "program(s)"))
        for text, cwd, said in _written(found):
            decision = judge(text, ctx if cwd == ctx.cwd else replace(ctx, cwd=cwd))
            trace.append(TraceEntry(line, SHADOW_ID, decision.outcome,
                                    f"bash would {'read' if said else 'run'}: {text}"))
            trace.extend(TraceEntry(f"{text} (shadow)", t.rule_id, t.outcome, t.message)
                         for t in decision.trace if t.rule_id not in ("risk", "final"))
            if decision.outcome > Outcome.ALLOW:
                verdicts.append(_verdict(text, decision, "read" if said else "run"))
        return verdicts, trace

    def forget(self) -> None:
        """Drop the remembered shadow runs."""
        self._cache.clear()

    def _shadow_run(self, line: str, ctx: Context) -> ShadowRun | None:
        key = (line, ctx.cwd, ctx.home)
        cached = self._cache.get(key)
        if cached is not None and holds(cached[1]):
            with suppress(KeyError):  # another thread may have evicted it meanwhile
                self._cache.move_to_end(key)
            adopt(cached[1])
            return cached[0]
        shadow = self._ready()
        if shadow is None:
            return None
        with recording() as facts:
            listing(ctx.cwd)  # the run's working directory mirrors the names there
            found = shadow.run(line, cwd=ctx.cwd, home=ctx.home)
        if shadow.problem() is not None:  # the first run found no sandbox can be made here
            self._ready()
        if found.status.value == "ok" and facts.reusable:  # a time-out may be the load
            self._cache[key] = (found, facts)
            if len(self._cache) > self._cache_size:
                with suppress(KeyError):
                    self._cache.popitem(last=False)
        return found

    def _ready(self) -> Shadow | None:
        """The shadow, or None (warned once) where it cannot run here."""
        with self._lock:
            if self._shadow is None:
                self._shadow = _on_a_thread(self._prepared)
            problem = self._shadow.problem()
            if problem is not None and not self._warned:
                self._warned = True
                import logging

                logging.getLogger("clawgate.engine").warning(
                    "clawgate: no shadow runs here (%s); lines that hide what they run are "
                    "judged by their static reading alone (set shell.shadow: false to accept "
                    "that silently)", problem)
            return None if problem is not None else self._shadow

    def _prepared(self) -> Shadow:
        shadow = self._make()
        shadow.prepare()
        return shadow


def _on_a_thread(make: Callable[[], _T]) -> _T:
    """``make()`` on a thread of its own, waited for. The shadow's preparation (its modules,
    the stub directory with its some 1,600 links) is a one-time cost of the process or the
    machine, not CPU time of the decision that first needs it, which ``policy fuzz``'s
    ``decides`` bounds per thread."""
    found: list[_T] = []
    failed: list[BaseException] = []

    def work() -> None:
        try:
            found.append(make())
        except BaseException as exc:  # handed to the caller below
            failed.append(exc)

    worker = threading.Thread(target=work, name="clawgate-shadow-setup", daemon=True)
    worker.start()
    worker.join()
    if failed:
        raise failed[0]
    return found[0]


def _written(found: ShadowRun) -> list[tuple[str, str, bool]]:
    """What bash ran, as lines with their working directories and whether bash read the line
    as text (a command whose redirections matter, not an execution): each execution, each
    pipeline the executions formed (a download piped into a shell is judged as one), each
    such command text."""
    from clawgate.shell.shadow import requote
    from clawgate.shell.shadow.pipes import pipelines, requote_pipeline

    written = dict.fromkeys((requote(e), e.cwd, False) for e in found.executions)
    joined = dict.fromkeys((requote_pipeline(p), p[0].cwd, False)
                           for p in pipelines(found.executions[:MAX_JUDGED]))
    said = dict.fromkeys((t.text, t.cwd, True) for t in found.texts)
    # The first MAX_JUDGED in the order bash started them, judged in a fixed order: the
    # stages of a pipeline start together, in either order, and a trace must not depend
    # on which one the scheduler ran first.
    return (sorted(list(written)[:MAX_JUDGED]) + sorted(joined)
            + sorted(list(said)[:MAX_JUDGED]))


def _verdict(text: str, decision: Decision, verb: str) -> Verdict:
    first = next(iter(decision.reasons), None)
    why = f": {first.rule_id} {first.message}" if first is not None else ""
    return Verdict(decision.outcome, (Reason(
        SHADOW_ID, f"bash would {verb} {text!r}{why}",
        hint="write out what the line runs" if first is None or first.hint is None
        else first.hint),), risk=decision.risk)
