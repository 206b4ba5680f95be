"""The decider's own work around a call: the waiting workers it keeps, replaced once a call is
answered (at once when none is left), and the code stamp that tells it its code changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from decider import imported, running, status, wait_for

from clawgate.daemon.server import SPARES, stamp_of

ENGINE = "clawgate.engine"  # imported by a process that decides in process
BURST = SPARES + 3  # more calls at once than there are workers waiting


def _waiting_workers(pid: int) -> int:
    return len(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())


def test_a_burst_of_calls_is_answered_by_the_decider_and_the_spares_come_back(
        tmp_path: Path) -> None:
    with running(tmp_path / "state") as env:
        pid = status(env)["pid"]
        assert isinstance(pid, int)
        calls = [subprocess.Popen([sys.executable, "-X", "importtime", "-m", "clawgate",
                                   "check", "rm -rf /"], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for _ in range(BURST)]
        done = [(call.wait(timeout=300), *call.communicate(timeout=300)) for call in calls]
        wait_for(lambda: _waiting_workers(pid) == SPARES, f"{SPARES} waiting workers")
    assert [code for code, _, _ in done] == [4] * BURST
    assert all(ENGINE not in imported(err) for _, _, err in done)  # each through the decider


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "package"
    (root / "sub" / "__pycache__").mkdir(parents=True)
    (root / "a.py").write_text("")
    (root / "sub" / "b.yaml").write_text("")
    (root / "sub" / "c.json").write_text("")
    (root / "sub" / "d.txt").write_text("")
    for path in root.rglob("*"):
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    return root


@pytest.mark.parametrize(("change", "moves"), [
    (lambda root: (root / "sub" / "e.py").write_text(""), True),  # a new source
    (lambda root: (root / "a.py").unlink(), True),  # a source removed
    (lambda root: os.utime(root / "sub" / "b.yaml", ns=(2_000_000_000, 2_000_000_000)), True),
    (lambda root: (root / "sub" / "__pycache__" / "a.cpython-311.pyc").write_text(""), False),
    (lambda root: (root / "sub" / "notes.md").write_text(""), False),
])
def test_the_code_stamp_moves_with_the_sources_only(
        tree: Path, change: object, moves: bool) -> None:
    before = stamp_of((str(tree),))
    assert before == (1_000_000_000, 4)
    change(tree)  # type: ignore[operator]
    assert (stamp_of((str(tree),)) != before) is moves

