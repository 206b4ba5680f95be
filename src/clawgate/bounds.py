"""The work one decision may do: a budget of steps and of CPU time.

The engine opens a budget for each line it decides (``bounded``); the engine itself and the
readers whose work grows with what they build (same-line variable resolution, brace expansion)
charge it (``charge``). Past either bound ``OverBudget`` is raised, which the engine turns into
DENY naming the bound: a line whose check would take longer is refused, never waited on.

The budget in force is a context variable, so each thread (and each task) that decides has its
own; outside a decision ``charge`` does nothing.
"""

from __future__ import annotations

import time
from contextvars import ContextVar

MAX_STEPS = 500_000  # a validator run, a command, 8 characters read or built (1 MiB: 131,073)
MAX_CPU_SECONDS = 5.0  # CPU time of the deciding thread (a loaded machine does not shorten it)
_CLOCK_EVERY = 64  # charges between two looks at the clock (the first, and every large one)


class OverBudget(BaseException):
    """A decision's work ran past its bound. A ``BaseException``: a validator's ``except
    Exception`` (which fails closed for its own crash) must not swallow it and carry on."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class Budget:
    """Steps left and the CPU deadline of one decision."""

    __slots__ = ("cpu_seconds", "deadline", "left", "steps", "ticks")

    def __init__(self, steps: int = MAX_STEPS, cpu_seconds: float = MAX_CPU_SECONDS) -> None:
        self.steps = steps
        self.cpu_seconds = cpu_seconds
        self.left = steps
        self.deadline = -1.0  # set at the first look at the clock: the first charge
        self.ticks = 0

    def charge(self, steps: int = 1) -> None:
        self.left -= steps
        if self.left < 0:
            raise OverBudget(f"more than {self.steps:,} steps of work")
        self.ticks += 1
        if steps > _CLOCK_EVERY or self.ticks % _CLOCK_EVERY == 1:
            # The CPU clock is a system call (~1.4 µs): one look per 64 charges. The CPU time
            # counts from the first charge, which the engine makes as a decision starts.
            now = time.thread_time()
            if self.deadline < 0:
                self.deadline = now + self.cpu_seconds
            if now >= self.deadline:
                raise OverBudget(f"more than {self.cpu_seconds:g} s of CPU time")

    @property
    def spent(self) -> int:
        """Steps charged so far."""
        return self.steps - self.left


_CURRENT: ContextVar[Budget | None] = ContextVar("clawgate_budget", default=None)


def charge(steps: int = 1) -> None:
    """Charge the budget of the decision under way (if any)."""
    budget = _CURRENT.get()
    if budget is not None:
        budget.charge(steps)


def charge_text(size: int) -> None:
    """Charge for ``size`` characters built (a value, an expanded line)."""
    charge(size // 8 + 1)


def bounded(budget: Budget) -> Bounded:
    """Make ``budget`` the one charged in this context until the block ends."""
    return Bounded(budget)


class Bounded:
    """``bounded``'s context manager. A class, not a generator-based context manager: one
    opens for every decision, and this one costs about a microsecond less."""

    __slots__ = ("budget", "token")

    def __init__(self, budget: Budget) -> None:
        self.budget = budget

    def __enter__(self) -> Budget:
        self.token = _CURRENT.set(budget := self.budget)
        return budget

    def __exit__(self, *exc: object) -> None:
        _CURRENT.reset(self.token)
