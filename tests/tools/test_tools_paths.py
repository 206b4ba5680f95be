"""Workspace containment: table tests, safe opening, atomic writes, and a property test."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.tools.paths import Workspace, resolve_in_workspace


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """ws/{a/b.txt, inner -> a, out -> ../outside, abs -> /etc, loop -> loop, dangle -> ../x}."""
    ws = tmp_path / "ws"
    (ws / "a").mkdir(parents=True)
    (ws / "a" / "b.txt").write_text("hello")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("s")
    (ws / "inner").symlink_to("a")
    (ws / "out").symlink_to("../outside")
    (ws / "abs").symlink_to("/etc")
    (ws / "loop").symlink_to("loop")
    (ws / "dangle").symlink_to("../newfile")
    (ws / "home" / ".ssh").mkdir(parents=True)
    return ws


ACCEPTED = [
    ("a/b.txt", "a/b.txt"),
    ("./a/../a/b.txt", "a/b.txt"),
    ("inner/b.txt", "a/b.txt"),
    ("a/new.txt", "a/new.txt"),
    ("new/dir/file", "new/dir/file"),
    (".", ""),
    ("inner/../a/b.txt", "a/b.txt"),
]


@pytest.mark.parametrize(("path", "expected"), ACCEPTED)
def test_accepted(tree: Path, path: str, expected: str) -> None:
    assert resolve_in_workspace(path, tree, forbidden=()) == (tree / expected).resolve()


def test_absolute_path_inside_is_accepted(tree: Path) -> None:
    assert resolve_in_workspace(str(tree / "a" / "b.txt"), tree) == tree.resolve() / "a/b.txt"


REFUSED = [
    "../outside/secret",
    "a/../../outside",
    "out/secret",
    "out/newfile",
    "abs/passwd",
    "/etc/passwd",
    "loop",
    "loop/x",
    "dangle",
    "a/b.txt\x00.png",
    "~root/.bashrc",
    "~/x",
    "nothere/../../outside",
    "",
]


@pytest.mark.parametrize("path", REFUSED)
def test_refused(tree: Path, path: str) -> None:
    with pytest.raises(ToolError) as err:
        resolve_in_workspace(path, tree, home="/home/nobody-here")
    assert err.value.kind is ToolErrorKind.INVALID_PATH


@pytest.mark.parametrize("path", ["home/.ssh/id_rsa", "home/.ssh", "~/.ssh/config", "home/./.ssh"])
def test_forbidden_paths(tree: Path, path: str) -> None:
    home = str(tree / "home")
    with pytest.raises(ToolError, match="forbidden"):
        resolve_in_workspace(path, tree, forbidden=["~/.ssh"], home=home)


def test_relative_forbidden_entries_are_relative_to_the_workspace(tree: Path) -> None:
    (tree / ".env").write_text("X=1")
    with pytest.raises(ToolError, match="forbidden"):
        resolve_in_workspace(".env", tree, forbidden=[".env", "secrets"])
    with pytest.raises(ToolError, match="forbidden"):
        resolve_in_workspace("secrets/new.txt", tree, forbidden=[".env", "secrets"])
    assert resolve_in_workspace("a/.env", tree, forbidden=[".env"]) == tree.resolve() / "a/.env"


def test_forbidden_through_a_symlink(tree: Path) -> None:
    (tree / "keys").symlink_to("home/.ssh")
    with pytest.raises(ToolError, match="forbidden"):
        resolve_in_workspace("keys/id_rsa", tree, forbidden=["~/.ssh"], home=str(tree / "home"))


def test_open_for_read_reads_and_refuses_symlink_leaf(tree: Path) -> None:
    ws = Workspace(tree)
    with ws.open_for_read("inner/b.txt") as handle:
        assert handle.read() == b"hello"
    with pytest.raises(ToolError) as err:
        ws.open_for_read("a/missing")
    assert err.value.kind is ToolErrorKind.FILE_NOT_FOUND
    os.mkfifo(tree / "a" / "fifo")
    with pytest.raises(ToolError, match="not a regular file"):
        ws.open_for_read("a/fifo")


def test_swapped_directory_is_not_followed(tree: Path) -> None:
    """A directory replaced by a symlink after the check is refused while walking (ELOOP)."""
    ws = Workspace(tree)
    parts = ws._relative_parts("a/b.txt")
    (tree / "a").rename(tree / "a-old")
    (tree / "a").symlink_to("../outside")
    with pytest.raises(ToolError) as err, ws._parent_fd(parts, create=False):
        pass
    assert err.value.kind is ToolErrorKind.INVALID_PATH


def test_atomic_write_replaces_and_keeps_mode(tree: Path) -> None:
    ws = Workspace(tree)
    target = tree / "a" / "b.txt"
    target.chmod(0o640)
    assert ws.write_bytes("a/b.txt", b"new") == target.resolve()
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o640
    assert ws.write_bytes("x/y/z.txt", b"deep", make_parents=True).read_bytes() == b"deep"


def test_failed_write_leaves_old_content_and_no_temp(tree: Path) -> None:
    ws = Workspace(tree)

    def half_write() -> None:
        with ws.open_for_write("a/b.txt") as handle:
            handle.write(b"half")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        half_write()
    assert (tree / "a" / "b.txt").read_text() == "hello"
    assert sorted(p.name for p in (tree / "a").iterdir()) == ["b.txt"]


def test_write_replaces_a_symlink_instead_of_following_it(tree: Path) -> None:
    (tree / "a" / "link").symlink_to("b.txt")
    ws = Workspace(tree)
    with ws.open_for_write("a/b.txt") as handle:
        handle.write(b"via target")
    assert (tree / "a" / "b.txt").read_text() == "via target"
    with pytest.raises(ToolError):
        ws.write_bytes("out/secret", b"x")
    assert (tree.parent / "outside" / "secret").read_text() == "s"


# --- property: no accepted path leaves the workspace -------------------------------------

NAMES = ["a", "b", "l1", "l2", "l3"]
COMPONENT = st.sampled_from([*NAMES, "..", ".", "new"])
LINK_TARGETS = st.sampled_from(
    ["a", "..", "../..", "../outside", "/", "a/b", "l1", "l2/..", "b/../..", ".", "/tmp"]
)


@settings(max_examples=150, deadline=None)
@given(
    links=st.lists(st.tuples(st.sampled_from(["l1", "l2", "l3", "a/l1", "b/l2"]), LINK_TARGETS),
                   max_size=5),
    path=st.lists(COMPONENT, min_size=1, max_size=7).map("/".join),
)
def test_no_accepted_path_leaves_the_workspace(links: list[tuple[str, str]], path: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        ws = root / "ws"
        (ws / "a" / "b").mkdir(parents=True)
        (ws / "b").mkdir()
        (root / "outside").mkdir()
        for name, target in links:
            if not os.path.lexists(ws / name):
                (ws / name).symlink_to(target)
        kernel = os.path.realpath(ws / path)
        try:
            got = resolve_in_workspace(path, ws, forbidden=())
        except ToolError:
            event("refused")
            return
        event("accepted")
        assert str(got) == str(ws) or str(got).startswith(f"{ws}/")
        if os.path.exists(ws / path):
            assert str(got) == kernel  # what the kernel opens is what was checked
        anchor = got
        while not os.path.lexists(anchor):
            anchor = anchor.parent
        real = os.path.realpath(anchor)
        assert real == str(ws) or real.startswith(f"{ws}/")
