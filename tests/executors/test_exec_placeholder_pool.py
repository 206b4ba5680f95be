"""The pool of empty directories placeholders' mount points are moved from
(``placeholderpool.py``): the workspace sees what it saw when they were made and removed, a
pooled directory is used only while it is empty and a directory, and only once (the pool is
made up with new ones), a move never replaces what is at its destination, and a workspace the
pool cannot serve gets new directories as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawgate.executors import placeholders as placeholders_module
from clawgate.executors.placeholderpool import POOL_MAX, SPENT, Pool, move
from clawgate.executors.placeholders import Placeholders
from clawgate.executors.view import Mount, SandboxView
from clawgate.statedir import state_root

NAMES = (".github", ".vscode", "CLAUDE.md")


def pool_dir() -> Path:
    return state_root() / "placeholders"


def pooled() -> set[int]:
    """The inodes of the pool's entries."""
    folder = pool_dir()
    return {os.lstat(folder / name).st_ino for name in os.listdir(folder)} \
        if folder.is_dir() else set()


def run_once(workspace: Path, names: tuple[str, ...] = NAMES) -> dict[str, int]:
    """One run's placeholders in ``workspace``: the inode at each path during the run."""
    owner = Placeholders(linger_s=0)
    view = SandboxView(tuple(Mount(str(workspace / n), "hidden", "held", placeholder=True)
                             for n in names))
    with owner.hold(workspace) as holder:
        held = holder.claim(view)
        assert [Path(m.path).name for m in held.mounts] == list(names)
        inodes = {n: os.lstat(workspace / n).st_ino for n in names}
        assert all((workspace / n).is_dir() and not os.listdir(workspace / n) for n in names)
    assert sorted(os.listdir(workspace)) == []
    owner.settle()  # the pool made up for what the run spent
    return inodes


@pytest.fixture(autouse=True)
def own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool of the test's own."""
    monkeypatch.setenv("CLAWGATE_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture
def workspaces(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    return first, second


def test_a_run_spends_its_mount_points_and_the_next_takes_new_ones_from_the_pool(
        workspaces: tuple[Path, Path]) -> None:
    """A directory that stood in a workspace is never used again (whatever saw it there may
    hold it open); the pool is made up with as many new ones, which the next run takes."""
    first, second = workspaces
    during = run_once(first)
    stock = pooled()
    assert len(stock) == len(NAMES) and not stock & set(during.values())
    assert os.listdir(state_root() / SPENT) == []  # removed once out of the workspace
    again = run_once(second)  # another workspace on the same file system
    assert set(again.values()) == stock
    assert not pooled() & set(again.values())  # (the first run's numbers are free again)


def test_a_pooled_directory_that_is_not_empty_is_never_used(
        workspaces: tuple[Path, Path]) -> None:
    """What someone put in the pool meanwhile is not a placeholder: none is used, and each
    is kept as it is, out of the pool (in its spent folder)."""
    first, second = workspaces
    run_once(first)
    folder = pool_dir()
    for entry in os.listdir(folder):
        (folder / entry / "planted").write_text("not a placeholder's\n")
    filled = pooled()
    during = run_once(second)
    assert not set(during.values()) & filled
    spent = state_root() / SPENT
    assert sorted((spent / e / "planted").read_text() for e in os.listdir(spent)
                  if os.lstat(spent / e).st_ino in filled) == ["not a placeholder's\n"] * 3


@pytest.mark.parametrize("kind", ["file", "link"])
def test_a_pooled_entry_that_is_no_directory_is_not_used(
        workspaces: tuple[Path, Path], tmp_path: Path, kind: str) -> None:
    first, _ = workspaces
    pool_dir().mkdir(parents=True, exist_ok=True)
    for entry in os.listdir(pool_dir()):
        os.rmdir(pool_dir() / entry)
    outside = tmp_path / "outside"
    outside.mkdir()
    planted = pool_dir() / "1"
    if kind == "file":
        planted.write_text("a file\n")
    else:
        planted.symlink_to(outside)
    run_once(first)
    assert os.path.lexists(planted) and sorted(os.listdir(outside)) == []
    assert planted.is_symlink() is (kind == "link")


def test_a_move_never_replaces_what_is_at_its_destination(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "dst").mkdir()  # empty: a plain rename would replace it
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(FileExistsError):
            move(fd, "src", fd, "dst")
    finally:
        os.close(fd)
    assert (tmp_path / "src").is_dir() and (tmp_path / "dst").is_dir()


def test_a_path_that_exists_is_not_given_a_pooled_directory(
        workspaces: tuple[Path, Path]) -> None:
    first, second = workspaces
    run_once(first)
    before = pooled()
    (second / ".github").mkdir()  # the user's, made meanwhile
    fd = os.open(second, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with Pool(str(second)) as pool, pytest.raises(FileExistsError):
            pool.take(fd, ".github")
    finally:
        os.close(fd)
    assert pooled() == before and sorted(os.listdir(second)) == [".github"]


def test_a_workspace_on_another_file_system_gets_new_directories(tmp_path: Path) -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir() or os.stat(shm).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("no second file system to put a workspace on")
    workspace = Path(os.path.realpath(shm)) / f"clawgate-pool-{os.getpid()}"
    workspace.mkdir()
    try:
        before = pooled()
        during = run_once(workspace)
        assert not set(during.values()) & before and pooled() == before
    finally:
        workspace.rmdir()


def test_a_full_pool_takes_no_more(workspaces: tuple[Path, Path]) -> None:
    first, _ = workspaces
    pool_dir().mkdir(parents=True, exist_ok=True)
    while len(os.listdir(pool_dir())) < POOL_MAX:
        (pool_dir() / f"x{len(os.listdir(pool_dir()))}").mkdir()
    run_once(first, names=NAMES)
    assert len(os.listdir(pool_dir())) == POOL_MAX


def test_a_pooled_directory_not_named_by_its_inode_is_not_used(
        workspaces: tuple[Path, Path]) -> None:
    """Only directories the pool named itself are taken (one made there by other hands, under
    whatever name, stays where it is)."""
    first, _ = workspaces
    pool_dir().mkdir(parents=True, exist_ok=True)
    for name in ("12", "other"):
        (pool_dir() / name).mkdir()
    strangers = {os.lstat(pool_dir() / n).st_ino for n in ("12", "other")}
    during = run_once(first)
    assert not set(during.values()) & strangers
    assert {"12", "other"} <= set(os.listdir(pool_dir()))


def test_the_pool_is_made_up_between_runs_never_beside_one(
        workspaces: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's spent directories are made up for once no run of the process is going (the
    thread that does it would hold the interpreter away from the run's own), and then
    they are."""
    monkeypatch.setattr(placeholders_module, "QUIET_MOST_S", 600.0)  # no run ever waited out
    first, second = workspaces
    owner = Placeholders(linger_s=0)
    view = SandboxView(tuple(Mount(str(first / n), "hidden", "held", placeholder=True)
                             for n in NAMES))
    with owner.hold(second):  # a run of another workspace, going all along
        with owner.hold(first) as holder:
            holder.claim(view)
        assert os.listdir(first) == []  # the workspace's entries gone with its run
        assert (pooled(), len(os.listdir(state_root() / SPENT))) == (set(), len(NAMES))
    owner.settle()
    assert (len(pooled()), os.listdir(state_root() / SPENT)) == (len(NAMES), [])


def test_settling_inside_a_hold_makes_the_pool_up_without_waiting_for_quiet(
        workspaces: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm container holds its workspace until its executor closes, and the close settles:
    the making-up it waits for must not wait for a quiet that the hold itself prevents (it
    would wait ``QUIET_MOST_S`` per directory). Here that wait would be ten minutes each; the
    thread that settles is given a minute, as a hang guard."""
    import threading

    monkeypatch.setattr(placeholders_module, "QUIET_MOST_S", 600.0)
    first, second = workspaces
    owner = Placeholders(linger_s=0)
    view = SandboxView(tuple(Mount(str(first / n), "hidden", "held", placeholder=True)
                             for n in NAMES))
    with owner.hold(second):  # the warm container, going until after the settle
        with owner.hold(first) as holder:
            holder.claim(view)
        settling = threading.Thread(target=owner.settle, daemon=True)
        settling.start()
        settling.join(60)
        assert not settling.is_alive()
        assert len(pooled()) == len(NAMES)
