"""The red team's attacks (issue 14) re-run against the merged main: a test marked ``bwrap`` or
``docker`` skips where that sandbox is missing, and fails instead under
``CLAWGATE_REQUIRE_BWRAP=1`` / ``CLAWGATE_REQUIRE_DOCKER=1`` (as in ``tests/executors``)."""

from __future__ import annotations

import os

import pytest
from redteam_support import REQUIREMENTS


@pytest.fixture(autouse=True)
def _real_sandbox(request: pytest.FixtureRequest) -> None:
    for marker, (variable, problem_of) in REQUIREMENTS.items():
        if request.node.get_closest_marker(marker) is None:
            continue
        problem = problem_of()
        if problem is None:
            continue
        if os.environ.get(variable) == "1":
            pytest.fail(f"{variable}=1 but {marker} is unavailable: {problem}")
        pytest.skip(f"{marker} unavailable: {problem}")
