"""Paths that try to leave a workspace, and the invariant that none does.

The invariant runs against ``clawgate.tools.paths.resolve_in_workspace`` (the guard's work);
where that module is not in the build, those tests skip and say so.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawgate.testing import invariants as inv
from clawgate.testing import strategies as s

FAST = settings(max_examples=300, deadline=None, database=None, derandomize=True,
                report_multiple_bugs=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
NEEDS = "needs clawgate.tools.paths (resolve_in_workspace, written on the guard branch)"


def test_workspace_layout_has_links_out_and_in(tmp_path: Path) -> None:
    layout = s.make_workspace(tmp_path)
    assert os.path.realpath(layout.root / "in_link") == str((layout.root / "dir").resolve())
    assert os.path.realpath(layout.root / "out_link") == str(layout.outside.resolve())
    assert os.path.realpath(layout.root / "dir" / "up") == str(tmp_path.resolve())
    assert (layout.root / "loop").is_symlink()
    assert s.make_workspace(tmp_path) == layout  # idempotent


def test_paths_strategy_reaches_every_trick() -> None:
    seen: set[str] = set()

    @settings(max_examples=400, database=None, derandomize=True)
    @given(s.paths(("dir", "out_link")))
    def collect(path: str) -> None:
        seen.update(t for t, hit in {
            "dotdot": ".." in path, "nul": "\x00" in path, "absolute": path.startswith("/"),
            "home": path.startswith("~"), "link": "out_link" in path,
            "surrogate": any("\ud800" <= c <= "\udfff" for c in path),
            "unicode": not path.isascii()}.items() if hit)

    collect()
    assert seen == {"dotdot", "nul", "absolute", "home", "link", "surrogate", "unicode"}


@pytest.fixture
def layout(tmp_path: Path) -> s.Layout:
    pytest.importorskip("clawgate.tools.paths", reason=NEEDS)
    (tmp_path / "home").mkdir()
    return s.make_workspace(tmp_path)


@pytest.mark.parametrize("path", ["../outside/secret.txt", "out_link/secret.txt", "abs_etc/passwd",
                                  "dir/up/outside", "dir/deep_out", "/etc/passwd", "~/x",
                                  "a\x00b", "loop", "root_link/etc"])
def test_escapes_are_refused(layout: s.Layout, path: str) -> None:
    assert inv.path_stays_inside(path, layout.root, home=str(layout.root.parent / "home")) is None


@pytest.mark.parametrize("path", ["file.txt", "dir/../file.txt", "in_link/file2.txt",
                                  "dir/back_in", "new/file"])
def test_paths_inside_are_resolved_inside(layout: s.Layout, path: str) -> None:
    resolved = inv.path_stays_inside(path, layout.root, home=str(layout.root.parent / "home"))
    assert resolved is not None
    assert str(resolved).startswith(str(layout.root.resolve()))


def test_forbidden_paths_inside_the_workspace_are_refused(layout: s.Layout) -> None:
    forbidden = (str(layout.root / "dir" / "sub"),)
    assert inv.path_stays_inside("in_link/sub/x", layout.root, forbidden=forbidden,
                                 home=str(layout.root.parent / "home")) is None


# Found by this test (now fixed, kept in regressions.jsonl): a lone surrogate ('\ud800', which
# a JSON tool call can carry) made resolve_in_workspace raise UnicodeEncodeError.
@FAST
@given(data=st.data())
def test_no_generated_path_leaves_the_workspace(layout: s.Layout, data: st.DataObject) -> None:
    path = data.draw(s.paths(layout.names))
    inv.path_stays_inside(path, layout.root, forbidden=("~/.ssh", "/etc/shadow"),
                          home=str(layout.root.parent / "home"))
