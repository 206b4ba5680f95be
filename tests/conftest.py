"""Shared fixtures (an engine on the built-in validators with default settings, a context), and
pytester, which drives the clawgate pytest plugin in its tests."""

from __future__ import annotations

import pytest

from clawgate.engine import Engine
from clawgate.validators.base import Context

pytest_plugins = ["pytester"]


@pytest.fixture(scope="session")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="session")
def ctx() -> Context:
    return Context(cwd="/work/project", workspace="/work/project", home="/home/agent")
