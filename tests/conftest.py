"""Shared fixtures (an engine on the built-in validators with default settings, a context), and
pytester, which drives the clawgate pytest plugin in its tests."""

from __future__ import annotations

import os
import tempfile

import pytest
from hypothesis import settings

from clawgate.engine import Engine
from clawgate.validators.base import Context

pytest_plugins = ["pytester"]

# The guard's own state (keys, audit anchors, approvals) goes to a directory of this run, never
# the user's: subprocesses the tests start inherit it.
os.environ["CLAWGATE_STATE_HOME"] = tempfile.mkdtemp(prefix="clawgate-state-")

# The suite is derandomised, so a run on a fresh clone is the run that passed here; the random
# exploration is `policy fuzz` and bench/bench_fuzz.py. CLAWGATE_HYPOTHESIS=explore lifts it.
settings.register_profile("clawgate-suite", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("CLAWGATE_HYPOTHESIS", "clawgate-suite"))


@pytest.fixture(scope="session")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="session")
def ctx() -> Context:
    return Context(cwd="/work/project", workspace="/work/project", home="/home/agent")
