"""Markers for the real sandboxes, and shared fixtures.

A test marked ``docker`` needs a Docker engine that answers and holds the image
``clawgate-sandbox:busybox`` (``scripts/docker-engine.sh`` provides both); one marked ``bwrap``
needs a working bubblewrap. Where they are missing such tests skip, unless
``CLAWGATE_REQUIRE_DOCKER=1`` / ``CLAWGATE_REQUIRE_BWRAP=1`` (set by ``.ci/run``) make the
absence a failure.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest

from clawgate.errors import SandboxUnavailable
from clawgate.executors import BwrapExecutor, DockerExecutor, DockerSettings, SpawnLimiter

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


@pytest.fixture(autouse=True)
def _real_sandbox(request: pytest.FixtureRequest) -> None:
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


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def limiter() -> SpawnLimiter:
    """A cap of 5 of the test's own, so that tests running together do not share slots."""
    return SpawnLimiter(5)


@pytest.fixture(scope="module")
def module_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("docker-ws")


@pytest.fixture(scope="module")
def warm_docker(module_workspace: Path) -> Iterator[DockerExecutor]:
    """One warm container for a whole module: exec into it costs tens of milliseconds."""
    problem = docker_problem()
    if problem is not None:
        if os.environ.get("CLAWGATE_REQUIRE_DOCKER") == "1":
            pytest.fail(f"CLAWGATE_REQUIRE_DOCKER=1 but docker is unavailable: {problem}")
        pytest.skip(f"docker unavailable: {problem}")
    with DockerExecutor(DockerSettings(image=IMAGE), workspace=module_workspace,
                        limiter=SpawnLimiter(5)) as executor:
        yield executor


class Counter:
    """How many calls run at once, and the most ever seen: the observer of the cap."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self._lock = threading.Lock()

    def enter(self) -> None:
        with self._lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def leave(self) -> None:
        with self._lock:
            self.now -= 1


@pytest.fixture
def counter() -> Counter:
    return Counter()
