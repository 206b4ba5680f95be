"""The bound on bashlex: an interruption that is swallowed once is raised again."""

from __future__ import annotations

import signal
import time

import pytest

from clawgate.shell import differential


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def _swallow_once() -> int:
    swallowed = 0
    with differential._deadline(0.05):
        try:
            _spin(5)
        except differential._TooSlow:  # as a finaliser run mid-parse would report and drop it
            swallowed += 1
        _spin(5)
    return swallowed


def test_a_swallowed_interruption_is_raised_again() -> None:
    start = time.monotonic()
    with pytest.raises(differential._TooSlow):
        _swallow_once()
    assert time.monotonic() - start < 1.0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_the_timer_is_cleared_when_bashlex_is_quick() -> None:
    with differential._deadline(0.5):
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
