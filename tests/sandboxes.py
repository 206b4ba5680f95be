"""The real sandboxes the suite runs against, and the rule for a test that needs one.

A test marked ``docker`` needs a Docker engine that answers and holds the image
``clawgate-sandbox:busybox`` (``scripts/docker-engine.sh`` provides both); one marked ``bwrap``
needs a working bubblewrap. Where they are missing such tests skip, unless
``CLAWGATE_REQUIRE_DOCKER=1`` / ``CLAWGATE_REQUIRE_BWRAP=1`` (set by ``.ci/run``) make the
absence a failure. ``tests/conftest.py`` applies ``require`` to every test.
"""

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
    """Why bubblewrap cannot be used here, or None."""
    try:
        BwrapExecutor(workspace=tempfile.gettempdir())
    except SandboxUnavailable as exc:
        return str(exc)
    return None


@cache
def docker_problem() -> str | None:
    """Why no Docker engine with the image can be used here, or None."""
    try:
        DockerExecutor(DockerSettings(image=IMAGE), workspace=tempfile.gettempdir()).close()
    except SandboxUnavailable as exc:
        return str(exc)
    return None


REQUIREMENTS: dict[str, tuple[str, Callable[[], str | None]]] = {
    "docker": ("CLAWGATE_REQUIRE_DOCKER", docker_problem),
    "bwrap": ("CLAWGATE_REQUIRE_BWRAP", bwrap_problem),
}


def require(request: pytest.FixtureRequest) -> None:
    """Skip, or fail when required, a test whose sandbox is missing."""
    for marker, (variable, problem_of) in REQUIREMENTS.items():
        if request.node.get_closest_marker(marker) is None:
            continue
        problem = problem_of()
        if problem is None:
            continue
        if os.environ.get(variable) == "1":
            pytest.fail(f"{variable}=1 but {marker} is unavailable: {problem}")
        pytest.skip(f"{marker} unavailable: {problem}")
