"""Shared fixtures (an engine on the built-in validators with default settings, a context), and
pytester, which drives the clawgate pytest plugin in its tests.

The suite writes state only under temporary directories: the XDG directories (state, config,
cache, data) point into one temporary directory for the whole session, subprocesses included
(``tests/test_suite_state.py`` checks it). At the end the session says so if anything under the
real ones' ``clawgate`` folders changed meanwhile; it does not fail on it, because other
processes of the machine (another checkout's tests, a user's agent) may write there too.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from clawgate.engine import Engine
from clawgate.testing.bashoracle import Oracle
from clawgate.validators.base import Context
from sandboxes import require

pytest_plugins = ["pytester"]

_XDG = {"XDG_STATE_HOME": ".local/state", "XDG_CONFIG_HOME": ".config",
        "XDG_CACHE_HOME": ".cache", "XDG_DATA_HOME": ".local/share"}
REAL_DIRS = tuple(Path(os.environ.get(var) or Path.home() / default) / "clawgate"
                  for var, default in _XDG.items())
SANDBOX = Path(tempfile.mkdtemp(prefix="clawgate-suite-"))
for _var in _XDG:
    os.environ[_var] = str(SANDBOX / _var.lower())
for _var in ("CLAWGATE_STATE_DIR", "CLAWGATE_POLICY"):  # the user's own, never the suite's
    os.environ.pop(_var, None)
# The guard's own state (keys, audit anchors, approvals), named for subprocesses that are given
# an environment of their own.
os.environ["CLAWGATE_STATE_HOME"] = str(SANDBOX / "clawgate-state")
# The suite's `policy` subprocesses decide in process: no resident decider is started behind
# a test's back (tests/daemon/ start their own, each under its own state directory, and stop it).
os.environ["CLAWGATE_NO_DAEMON"] = "1"


def snapshot(dirs: tuple[Path, ...]) -> dict[str, tuple[int, int]]:
    """Every file under ``dirs``: (size, modification time in ns). Other processes write there
    meanwhile (a temporary file renamed into place between listing and ``lstat``): a file
    gone by then is not there."""
    found: dict[str, tuple[int, int]] = {}
    for top in dirs:
        for path in top.rglob("*") if top.is_dir() else ():
            try:  # another process's temporary file may go between listing and reading
                info = path.lstat()
            except FileNotFoundError:
                continue
            found[str(path)] = (info.st_size, info.st_mtime_ns)
    return found


_BEFORE = snapshot(REAL_DIRS)


@pytest.fixture(scope="session")
def suite_dirs() -> tuple[Path, tuple[Path, ...]]:
    """The session's temporary home for XDG state and config, and the real ones it replaces."""
    return SANDBOX, REAL_DIRS


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Say so if the real home's clawgate state or config changed during the run."""
    changed = sorted(set(snapshot(REAL_DIRS).items()) - set(_BEFORE.items()))
    shutil.rmtree(SANDBOX, ignore_errors=True)
    if changed:
        names = ", ".join(name for name, _ in changed[:5])
        session.config.get_terminal_writer().line(
            f"\nclawgate state changed outside the suite's temporary directories during the "
            f"run (this suite, or another process): {names}", yellow=True)

# The suite is derandomised, so a run on a fresh clone is the run that passed here; the random
# exploration is `policy fuzz` and bench/bench_fuzz.py. CLAWGATE_HYPOTHESIS=explore lifts it.
settings.register_profile("clawgate-suite", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("CLAWGATE_HYPOTHESIS", "clawgate-suite"))


@pytest.fixture(autouse=True)
def _no_user_policy(tmp_path_factory: pytest.TempPathFactory,
                    monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the real user's policy (``$XDG_CONFIG_HOME/clawgate/policy.yaml``) or
    ``$CLAWGATE_POLICY``: policy discovery sees an empty configuration directory."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    monkeypatch.delenv("CLAWGATE_POLICY", raising=False)


@pytest.fixture(scope="session")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="session")
def ctx() -> Context:
    return Context(cwd="/work/project", workspace="/work/project", home="/home/agent")


@pytest.fixture(scope="session")
def bash_oracle() -> Iterator[Oracle]:
    """One sandbox of real bash for the session's oracle tests (started at the first line)."""
    with Oracle() as oracle:
        yield oracle


@pytest.fixture(autouse=True)
def _real_sandbox(request: pytest.FixtureRequest) -> None:
    """A test marked ``docker`` or ``bwrap`` skips where that sandbox is missing, and fails
    instead where CI requires it (``tests/sandboxes.py``)."""
    require(request)
