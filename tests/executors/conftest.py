"""Shared fixtures of the executor tests (the ``docker``/``bwrap`` markers are handled for the
whole suite: ``tests/sandboxes.py``)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from clawgate.executors import DockerExecutor, DockerSettings, SpawnLimiter
from clawgate.executors.egress.proxy import Connection
from egress_support import http_server
from sandboxes import IMAGE, docker_problem
from sandboxview import fake_home, git_workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home directory (``sandboxview.fake_home``): the real one's secrets stay out."""
    return fake_home(tmp_path, monkeypatch)


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    """A git checkout to run in, under the fake home."""
    return git_workspace(tmp_path)


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


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    """A local HTTP server on 127.0.0.1 for the egress tests, one per module: its port."""
    with http_server() as bound:
        yield bound


@pytest.fixture
def seen() -> list[Connection]:
    """The connections an egress proxy reported, in order."""
    return []
