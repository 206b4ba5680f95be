"""The harness's tests run its invariants with a hang detector of a minute.

The harness's own watchdog (``invariants.HANG_S``, one second of CPU time) is what ``policy
fuzz`` reports a hang by; a check that is merely slow (a first parse, a collection) must not
make a test fail on that bound either. Tests that hang a checker on purpose keep the real
watchdog (the ``real_watchdog`` marker): their check never ends, so no load can change what
they see.
"""

from __future__ import annotations

import pytest

from clawgate.testing import invariants

PATIENT_S = 60.0


@pytest.fixture(autouse=True)
def patient_watchdog(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("real_watchdog") is None:
        monkeypatch.setattr(invariants, "HANG_S", PATIENT_S)
