"""The mount points of a view's placeholders (``placeholders.py``): empty directories made for
the runs that need them, removed once none does (at once when settled, else after a while),
and never a path of the user's."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from clawgate.executors.placeholders import Placeholders
from clawgate.executors.view import Mount, SandboxView


def view_of(*mounts: Mount) -> SandboxView:
    return SandboxView(tuple(mounts))


def held(path: Path) -> Mount:
    return Mount(str(path), "hidden", "held", placeholder=True)


def test_mount_points_are_made_for_the_run_and_removed_after_it(tmp_path: Path) -> None:
    owner = Placeholders(linger_s=3600)
    github, claude = tmp_path / ".github", tmp_path / "CLAUDE.md"
    with owner.hold(tmp_path) as holder:
        view = holder.claim(view_of(held(github), held(claude)))
        assert [m.path for m in view.mounts] == [str(github), str(claude)]
        assert (github.is_dir(), claude.is_dir()) == (True, True)
    assert sorted(os.listdir(tmp_path)) == [".github", "CLAUDE.md"]  # the next run reuses them
    owner.settle(tmp_path)
    assert sorted(os.listdir(tmp_path)) == []


def test_they_go_once_the_workspace_has_had_no_run_for_a_while(tmp_path: Path) -> None:
    owner = Placeholders(linger_s=0.05)
    with owner.hold(tmp_path) as holder:
        holder.claim(view_of(held(tmp_path / ".claude")))
    for _ in range(600):  # a hang guard only
        if not (tmp_path / ".claude").exists():
            break
        time.sleep(0.05)
    assert not (tmp_path / ".claude").exists()


def test_a_later_run_holds_them_as_placeholders_again(tmp_path: Path) -> None:
    """The second run's view takes the first's mount points for protected paths that exist
    (a directory with more to protect below it): they are held as placeholders again, and
    nothing is made below them."""
    owner = Placeholders(linger_s=3600)
    github, claude = tmp_path / ".github", tmp_path / ".claude"
    with owner.hold(tmp_path) as holder:
        holder.claim(view_of(held(github), held(claude)))
    later = view_of(Mount(str(github), "read-write", "pinned"),
                    Mount(str(claude), "read-only", "protected"), held(github / "workflows"))
    with owner.hold(tmp_path) as holder:
        view = holder.claim(later)
    assert [(m.path, m.mode, m.placeholder) for m in view.mounts] == [
        (str(github), "hidden", True), (str(claude), "hidden", True)]
    assert not (github / "workflows").exists()
    owner.settle()
    assert sorted(os.listdir(tmp_path)) == []


def test_a_path_that_appeared_meanwhile_is_kept(tmp_path: Path) -> None:
    owner = Placeholders(linger_s=3600)
    (tmp_path / "CLAUDE.md").write_text("the user's\n")
    (tmp_path / ".github").mkdir()
    (tmp_path / ".vscode").symlink_to("/etc")
    with owner.hold(tmp_path) as holder:
        view = holder.claim(view_of(held(tmp_path / "CLAUDE.md"), held(tmp_path / ".github"),
                                    held(tmp_path / ".vscode")))
    owner.settle()
    assert [Path(m.path).name for m in view.mounts] == [".github"]  # a file, a link: not held
    assert (tmp_path / "CLAUDE.md").read_text() == "the user's\n"
    assert (tmp_path / ".github").is_dir()


def test_what_was_put_in_a_placeholder_on_the_host_stays(tmp_path: Path) -> None:
    owner = Placeholders(linger_s=3600)
    with owner.hold(tmp_path) as holder:
        holder.claim(view_of(held(tmp_path / ".github")))
        (tmp_path / ".github" / "README.md").write_text("written on the host\n")
    owner.settle()
    assert (tmp_path / ".github" / "README.md").read_text() == "written on the host\n"


def test_placeholders_stay_while_another_holds_the_workspace(tmp_path: Path) -> None:
    """Another process's sandbox may stand on them; they go once it is alone. (A second open
    file description's lock is another process's to ``flock``.)"""
    owner = Placeholders(linger_s=3600)
    other = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(other, fcntl.LOCK_SH)
        with owner.hold(tmp_path) as holder:
            holder.claim(view_of(held(tmp_path / ".claude")))
        owner.settle()
        assert (tmp_path / ".claude").is_dir()
        fcntl.flock(other, fcntl.LOCK_UN)
    finally:
        os.close(other)
    owner.settle()
    assert not (tmp_path / ".claude").exists()


def test_holders_of_one_workspace_share_its_placeholders(tmp_path: Path) -> None:
    owner = Placeholders(linger_s=3600)
    with owner.hold(tmp_path) as first:
        first.claim(view_of(held(tmp_path / ".claude")))
        with owner.hold(tmp_path) as second:
            second.claim(view_of(held(tmp_path / ".claude")))
        owner.settle()
        assert (tmp_path / ".claude").is_dir()  # the first run still stands on it
    owner.settle()
    assert not (tmp_path / ".claude").exists()
