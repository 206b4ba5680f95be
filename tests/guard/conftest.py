"""The real sandboxes for the Guard's tests: a test marked ``bwrap`` or ``docker`` skips where
that sandbox is missing, and fails instead under ``CLAWGATE_REQUIRE_BWRAP=1`` /
``CLAWGATE_REQUIRE_DOCKER=1`` (as in ``tests/executors``)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from functools import cache

import pytest

from clawgate.errors import SandboxUnavailable
from clawgate.executors import BwrapExecutor, DockerExecutor, DockerSettings

IMAGE = "clawgate-sandbox:busybox"


@cache
def bwrap_problem() -> str | None:
    try:
        BwrapExecutor(workspace=tempfile.gettempdir())
    except SandboxUnavailable as exc:
        return str(exc)
    return None


@cache
def docker_problem() -> str | None:
    try:
        DockerExecutor(DockerSettings(image=IMAGE), workspace=tempfile.gettempdir()).close()
    except SandboxUnavailable as exc:
        return str(exc)
    return None


REQUIREMENTS: dict[str, tuple[str, Callable[[], str | None]]] = {
    "docker": ("CLAWGATE_REQUIRE_DOCKER", docker_problem),
    "bwrap": ("CLAWGATE_REQUIRE_BWRAP", bwrap_problem),
}


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
