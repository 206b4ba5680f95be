"""Red team, the file tools through the Guard (issue 14, containment and resources): a
directory swapped for a symlink while ``list_directory``/``glob``/``grep`` walk it, by a
command the guard itself runs in the sandbox; ``/proc/<pid>/environ`` through symlinks and hard
links in the workspace; a sparse 3 GiB memory file; a ReDoS pattern for ``grep``; a path of
200,000 components. Real files, real processes."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import pytest
from redteam_support import EXECUTORS, guard_for

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.executors import ExecRequest
from clawgate.tools.files import MAX_READ_BYTES
from clawgate.tools.memory import MEMORY_FILE

SWAP = ("n=0; while [ $n -lt 500 ]; do rm -rf d; ln -s {outside} d; rm -f d; mkdir d; "
        "echo fine > d/ok.txt; n=$((n+1)); done; echo swapped")


@pytest.mark.parametrize("kind", ["host", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_a_swap_by_a_command_the_guard_runs_leaks_no_outside_name(
        tmp_path: Path, kind: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "LEAKED_NAME").write_text("LEAKED_TEXT\n")
    guard = guard_for(tmp_path, EXECUTORS[kind])
    (tmp_path / "ws" / "d").mkdir()
    done: list[str] = []
    swapper = threading.Thread(target=lambda: done.append(guard.executor.run(
        ExecRequest(SWAP.format(outside=outside), timeout_s=120)).stdout))
    swapper.start()
    seen: list[str] = []
    while swapper.is_alive():
        for name, args in (("list_directory", {"path": "d"}), ("glob", {"pattern": "d/*"}),
                           ("grep", {"pattern": "LEAKED", "path": "d"})):
            with contextlib.suppress(ToolError):
                seen.append(repr(guard.call(name, args)))
    swapper.join()
    assert done == ["swapped\n"]
    assert seen  # the walks ran while the swapper did
    leaked = [s for s in seen if "LEAKED" in s]
    assert not leaked
    guard.close()


def test_proc_environ_through_links_in_the_workspace_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    planted = "redteam-" + os.urandom(8).hex()
    monkeypatch.setenv("REDTEAM_API_TOKEN", planted)
    guard = guard_for(tmp_path, EXECUTORS["host"])
    workspace = tmp_path / "ws"
    os.symlink(f"/proc/{os.getpid()}/environ", workspace / "env.txt")
    os.symlink("/proc/self", workspace / "me")
    os.symlink(f"/proc/{os.getpid()}", workspace / "guard")
    for path in ("env.txt", "me/environ", "guard/environ", "guard/./environ",
                 f"/proc/{os.getpid()}/environ", "/proc/self/../self/environ"):
        with pytest.raises(ToolError) as refused:
            guard.call("read_file", {"path": path})
        assert refused.value.kind in (ToolErrorKind.INVALID_PATH,
                                      ToolErrorKind.PERMISSION_DENIED)
        assert planted not in refused.value.message
    for name, args in (("grep", {"pattern": "REDTEAM", "path": "."}),
                       ("list_directory", {"path": "guard"}), ("glob", {"pattern": "me/*"})):
        try:
            found = repr(guard.call(name, args))
        except ToolError as exc:
            found = exc.message
        assert planted not in found
    guard.close()


def test_a_sparse_three_gib_memory_file_is_refused(tmp_path: Path) -> None:
    guard = guard_for(tmp_path, EXECUTORS["host"])
    memory = tmp_path / "ws" / MEMORY_FILE
    memory.parent.mkdir(parents=True, exist_ok=True)
    with open(memory, "wb") as handle:
        handle.truncate(3 << 30)
    for tool, args in (("memory_read", {"query": "x"}), ("memory_write", {"content": "n"})):
        with pytest.raises(ToolError) as refused:
            guard.call(tool, args)
        assert refused.value.kind is ToolErrorKind.INVALID_ARGS
    assert memory.stat().st_size == 3 << 30  # nothing was rewritten
    guard.close()


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|a)*b", "(a|aa)+$", "(a*)*b"])
def test_grep_refuses_catastrophic_patterns(tmp_path: Path, pattern: str) -> None:
    guard = guard_for(tmp_path, EXECUTORS["host"])
    (tmp_path / "ws" / "a.txt").write_text("a" * 5000 + "!\n")
    with pytest.raises(ToolError) as refused:
        guard.call("grep", {"pattern": pattern, "path": "."})
    assert refused.value.kind is ToolErrorKind.INVALID_ARGS
    guard.close()


@pytest.mark.parametrize("path", ["a/" * 200_000 + "x", "./" * 200_000 + "x",
                                  "../" * 200_000 + "etc/passwd", "a" * 5000])
def test_a_pathological_path_is_refused(tmp_path: Path, path: str) -> None:
    guard = guard_for(tmp_path, EXECUTORS["host"])
    for tool, args in (("read_file", {"path": path}),
                       ("write_file", {"path": path, "content": "x"}),
                       ("list_directory", {"path": path})):
        with pytest.raises(ToolError) as refused:
            guard.call(tool, args)
        assert refused.value.kind in (ToolErrorKind.INVALID_PATH, ToolErrorKind.INVALID_ARGS)
    guard.close()


def test_a_hard_link_to_a_file_outside_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("LEAKED_TEXT\n")
    guard = guard_for(tmp_path, EXECUTORS["host"])
    os.link(secret, tmp_path / "ws" / "copy.txt")
    with pytest.raises(ToolError) as refused:
        guard.call("read_file", {"path": "copy.txt"})
    assert "LEAKED_TEXT" not in refused.value.message
    assert MAX_READ_BYTES > 0
    guard.close()
