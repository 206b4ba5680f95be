"""``scripts/docker-engine.sh stop`` stops only the dockerd this checkout recorded starting.

A stand-in process named ``dockerd`` (a copy of ``sleep``) plays the engine, so that no test
comes near the machine's real engine: ``stop`` is pointed at a temporary state directory.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "docker-engine.sh"


def _start_time(pid: int) -> str:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return fields[19]  # field 22 of stat: the start time in clock ticks since boot


@pytest.fixture
def fake_dockerd(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    program = tmp_path / "dockerd"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", program)
    process = subprocess.Popen([str(program), "300"])
    yield process
    if process.poll() is None:
        process.kill()
    process.wait()


def _stop(state: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAWGATE_ENGINE_DIR": str(state)}
    return subprocess.run(["bash", str(SCRIPT), "stop"], env=env, capture_output=True,
                          text=True, check=False)


def _record(state: Path, text: str) -> None:
    state.mkdir(exist_ok=True)
    (state / "dockerd.pid").write_text(text)


def test_stop_stops_the_dockerd_this_checkout_recorded(
        tmp_path: Path, fake_dockerd: subprocess.Popen[bytes]) -> None:
    state = tmp_path / "state"
    _record(state, f"{fake_dockerd.pid} {_start_time(fake_dockerd.pid)}\n")
    done = _stop(state)
    assert done.returncode == 0, done.stderr
    assert fake_dockerd.wait(timeout=60) == -signal.SIGTERM  # the timeout: a hang detector
    assert not (state / "dockerd.pid").exists()


@pytest.mark.parametrize("recorded", [
    "{pid} 1\n",  # the PID is reused by a later dockerd: not the process this checkout started
    "{pid}\n",  # an old machine-wide record without a start time
    "",
    "garbage\n",
], ids=["reused-pid", "no-start-time", "empty", "garbage"])
def test_stop_leaves_an_engine_it_did_not_start(
        tmp_path: Path, fake_dockerd: subprocess.Popen[bytes], recorded: str) -> None:
    state = tmp_path / "state"
    _record(state, recorded.format(pid=fake_dockerd.pid))
    done = _stop(state)
    assert done.returncode == 0, done.stderr
    assert "nothing to stop" in done.stderr
    assert fake_dockerd.poll() is None


def test_stop_without_a_record_stops_nothing(
        tmp_path: Path, fake_dockerd: subprocess.Popen[bytes]) -> None:
    done = _stop(tmp_path / "never-started-here")
    assert done.returncode == 0
    assert "nothing to stop" in done.stderr
    assert fake_dockerd.poll() is None


def test_a_process_of_another_name_is_never_stopped(tmp_path: Path) -> None:
    other = subprocess.Popen(["sleep", "300"])
    try:
        state = tmp_path / "state"
        _record(state, f"{other.pid} {_start_time(other.pid)}\n")
        assert "nothing to stop" in _stop(state).stderr
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_the_state_is_kept_in_the_checkout_and_ignored_by_git() -> None:
    text = SCRIPT.read_text()
    assert "STATE_DIR=${CLAWGATE_ENGINE_DIR:-$CHECKOUT/.clawgate-engine}" in text
    ignored = (SCRIPT.parent.parent / ".gitignore").read_text().split()
    assert ".clawgate-engine/" in ignored
