"""The bound on bashlex: an interruption that is swallowed once is raised again; in a thread,
where no signal can be taken, a budget of traced calls stops a loop.

Nothing here reads a clock: the loops are bounded by counting, and what is asserted is that
the interruption came (an exception), not when.
"""

from __future__ import annotations

import signal
import threading

import pytest

from clawgate.shell import differential

SPINS = 10**9  # far beyond any deadline here (minutes of work): reaching the end is the failure


def _spin() -> int:
    done = 0
    for _ in range(SPINS):
        done += 1
    return done


def _swallow_once(swallowed: list[int]) -> None:
    with differential._deadline(0.05):
        try:
            _spin()
        except differential._TooSlow:  # as a finaliser run mid-parse would report and drop it
            swallowed.append(1)
        _spin()


def test_a_swallowed_interruption_is_raised_again() -> None:
    swallowed: list[int] = []
    with pytest.raises(differential._TooSlow):
        _swallow_once(swallowed)
    assert swallowed == [1]  # the first one was swallowed, and a second one came
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def test_the_timer_is_cleared_when_bashlex_is_quick() -> None:
    with differential._deadline(0.5):
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def _calls_forever(counted: list[int]) -> None:
    def step() -> None:
        counted[0] += 1

    for _ in range(SPINS):
        step()


def test_outside_the_main_thread_a_call_budget_stops_a_loop() -> None:
    counted = [0]
    caught: list[BaseException] = []

    def work() -> None:
        try:
            with differential._deadline(0.05):
                _calls_forever(counted)
        except differential._TooSlow as exc:
            caught.append(exc)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(120)  # a hang detector only
    assert len(caught) == 1
    assert 0 < counted[0] <= differential.BASHLEX_CALLS  # stopped by the count, not by a clock
