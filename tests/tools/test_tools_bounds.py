"""What the red team did to the file and memory tools (issue 14): a 3 GiB sparse memory file,
a catastrophic grep pattern, a hard link to a file outside, a 200,000-component path. Each is
refused up front, against real files."""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.tools.base import ToolRegistry
from clawgate.tools.files import MAX_READ_BYTES, file_tools
from clawgate.tools.memory import MEMORY_FILE, memory_tools
from clawgate.tools.paths import PATH_MAX, Workspace, resolve_in_workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def registry(workspace: Path) -> ToolRegistry:
    ws = Workspace(workspace, forbidden=(), home=str(workspace.parent / "home"))
    return ToolRegistry([*file_tools(ws), *memory_tools(ws)])


def call(registry: ToolRegistry, name: str, **args: object) -> object:
    return registry.get(name).execute(registry.validate(name, args))


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize("tool", ["memory_read", "memory_write"])
def test_a_sparse_giant_memory_file_is_refused_without_reading_it(
        registry: ToolRegistry, workspace: Path, tool: str) -> None:
    memory = workspace / MEMORY_FILE
    memory.parent.mkdir()
    with open(memory, "wb") as handle:
        handle.truncate(3 << 30)  # 3 GiB of holes: costs no disk
    before = rss_mib()
    args = {"query": "x"} if tool == "memory_read" else {"content": "note"}
    with pytest.raises(ToolError) as err:
        call(registry, tool, **args)
    assert err.value.kind is ToolErrorKind.INVALID_ARGS
    assert "cap" in str(err.value)
    assert rss_mib() - before < 4 * MAX_READ_BYTES / (1 << 20)  # at most the cap was read


def test_memory_write_refuses_to_grow_past_the_cap(registry: ToolRegistry,
                                                   workspace: Path) -> None:
    memory = workspace / MEMORY_FILE
    memory.parent.mkdir()
    memory.write_text("x" * (MAX_READ_BYTES - 100))
    with pytest.raises(ToolError, match="cap"):
        call(registry, "memory_write", content="y" * 1000)
    assert memory.stat().st_size == MAX_READ_BYTES - 100  # nothing half-written


@pytest.mark.parametrize("pattern", ["(a+)+$", r"(\w*)*x", "(a|ab)*c", "(x+x+)+y"])
def test_grep_refuses_patterns_that_backtrack_catastrophically(
        registry: ToolRegistry, workspace: Path, pattern: str) -> None:
    (workspace / "a.txt").write_text("a" * 4000 + "!\n")
    with pytest.raises(ToolError, match="backtrack catastrophically") as err:
        call(registry, "grep", pattern=pattern)
    assert err.value.kind is ToolErrorKind.INVALID_ARGS


def test_grep_still_takes_ordinary_patterns(registry: ToolRegistry, workspace: Path) -> None:
    (workspace / "a.txt").write_text("def main():\n    return 1\n")
    got = call(registry, "grep", pattern=r"^def \w+\(")
    assert isinstance(got, dict)
    assert [m["line"] for m in got["matches"]] == [1]


def test_read_file_refuses_a_hard_link_whose_other_name_is_outside(
        registry: ToolRegistry, workspace: Path) -> None:
    outside = workspace.parent / "id_rsa"
    outside.write_text("PRIVATE\n")
    os.link(outside, workspace / "innocent.txt")
    with pytest.raises(ToolError, match="hard links") as err:
        call(registry, "read_file", path="innocent.txt")
    assert err.value.kind is ToolErrorKind.INVALID_PATH
    got = call(registry, "grep", pattern="PRIVATE")
    assert got == {"matches": [], "truncated": False}  # grep skips it too


def test_a_path_of_200000_components_is_refused_before_any_work(workspace: Path) -> None:
    path = "/".join(["a", ".."] * 100_000) + "/x"
    with pytest.raises(ToolError, match="PATH_MAX") as err:
        resolve_in_workspace(path, workspace)
    assert err.value.kind is ToolErrorKind.INVALID_PATH


def test_a_long_path_below_path_max_still_resolves(workspace: Path) -> None:
    depth = (PATH_MAX - len(str(workspace)) - 16) // 2
    path = "/".join(["d"] * depth)
    assert resolve_in_workspace(path, workspace) == workspace.joinpath(*["d"] * depth)


SWAPPER = """
import os, shutil, sys
link, outside = sys.argv[1], sys.argv[2]
print("go", flush=True)
while True:
    try:
        if os.path.islink(link):
            os.unlink(link)
            os.mkdir(link)
            open(os.path.join(link, "ok.txt"), "w").write("fine\\n")
        else:
            shutil.rmtree(link, ignore_errors=True)
            os.symlink(outside, link)
    except OSError:
        pass
"""


def test_a_directory_swapped_for_a_symlink_mid_walk_leaks_nothing(
        registry: ToolRegistry, workspace: Path) -> None:
    """Another process swaps ``d`` between a real directory and a symlink to a directory
    outside, as a sandboxed command can; list_directory, glob and grep through ``d`` never show
    what is outside. (Before the walk held descriptors, a few calls in a hundred leaked.)"""
    outside = workspace.parent / "outside"
    outside.mkdir()
    (outside / "LEAKED_NAME").write_text("LEAKED_TEXT\n")
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(workspace / "d"),
                                str(outside)], stdout=subprocess.PIPE, text=True)
    seen: list[str] = []
    try:
        assert swapper.stdout is not None
        assert swapper.stdout.readline() == "go\n"
        for _ in range(500):
            for name, args in (("list_directory", {"path": "d"}), ("glob", {"pattern": "d/*"}),
                               ("grep", {"pattern": "LEAKED", "path": "d"})):
                with contextlib.suppress(ToolError):
                    seen.append(repr(call(registry, name, **args)))
    finally:
        swapper.kill()
        swapper.wait()
        if swapper.stdout is not None:
            swapper.stdout.close()
    leaked = [s for s in seen if "LEAKED" in s]
    assert not leaked
    assert any("ok.txt" in s for s in seen)  # the calls did list the real directory


class RacingWorkspace(Workspace):
    """Swaps ``d`` for a symlink to ``outside`` right after each check, the moment a racing
    process would: the window between checking a path and using it, made certain."""

    outside: Path

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        checked = super().resolve(path)
        d = self.root / "d"
        if d.is_dir() and not d.is_symlink():
            shutil.rmtree(d)
            d.symlink_to(self.outside)
        return checked


@pytest.mark.parametrize(("name", "args"), [
    ("list_directory", {"path": "d"}), ("glob", {"pattern": "*", "path": "d"}),
    ("grep", {"pattern": "LEAKED", "path": "d"}),
])
def test_the_swap_between_check_and_use_is_refused(workspace: Path, name: str,
                                                   args: dict[str, object]) -> None:
    outside = workspace.parent / "outside"
    outside.mkdir()
    (outside / "LEAKED_NAME").write_text("LEAKED_TEXT\n")
    (workspace / "d").mkdir()
    racing = RacingWorkspace(workspace, forbidden=(), home=str(workspace.parent / "home"))
    racing.outside = outside
    registry = ToolRegistry(file_tools(racing))
    try:
        shown = repr(call(registry, name, **args))
    except ToolError as exc:
        shown = str(exc)
    assert "LEAKED" not in shown
