"""The suite's own state stays in temporary directories, and reading approvals writes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from clawgate.approval.store import ApprovalStore, default_state_dir

Dirs = tuple[Path, tuple[Path, ...]]


def _files(dirs: tuple[Path, ...]) -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    for top in dirs:
        for path in top.rglob("*") if top.is_dir() else ():
            info = path.lstat()
            found[str(path)] = (info.st_size, info.st_mtime_ns)
    return found


def test_the_default_state_dir_is_the_suites(suite_dirs: Dirs) -> None:
    sandbox, real = suite_dirs
    assert default_state_dir().is_relative_to(sandbox)
    assert all(not d.is_relative_to(sandbox) for d in real)


def test_a_subprocess_inherits_the_temporary_state(suite_dirs: Dirs) -> None:
    code = "from clawgate.approval.store import default_state_dir; print(default_state_dir())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert Path(done.stdout.strip()).is_relative_to(suite_dirs[0])


def test_reading_an_empty_store_leaves_nothing_behind(tmp_path: Path) -> None:
    state = tmp_path / "state"
    store = ApprovalStore(tmp_path, state_dir=state)
    assert store.list() == []
    assert store.revoke("nope") is False
    assert not state.exists()


def test_the_policy_cli_reads_approvals_without_writing(tmp_path: Path,
                                                        suite_dirs: Dirs) -> None:
    for args in (["approvals", "list", "--workspace", str(tmp_path)], ["check", "ls"]):
        done = subprocess.run([sys.executable, "-m", "clawgate", *args],
                              capture_output=True, check=False, env=os.environ.copy())
        assert done.returncode == 0, done.stderr
    assert not _files((default_state_dir(),))  # not even a lock file
