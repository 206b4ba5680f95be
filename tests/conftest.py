"""Shared fixtures: an engine on the built-in validators with default settings."""

from __future__ import annotations

import pytest

from clawgate.engine import Engine
from clawgate.validators.base import Context


@pytest.fixture(scope="session")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="session")
def ctx() -> Context:
    return Context(cwd="/work/project", workspace="/work/project", home="/home/agent")
