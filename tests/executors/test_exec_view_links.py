"""Links among a workspace's protected paths (``workspaceview.py``): each link that is a
protected path or leads to one is listed, where it lies, and the view holds it (mode
read-only, ``link``) while what it points to is protected at its real path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawgate.executors.bwrap import view_args
from clawgate.executors.view import build_view
from clawgate.executors.workspaceview import workspace_paths


def layout(root: Path, entries: dict[str, str | None]) -> None:
    """``name: None`` a directory, ``name: "->target"`` a link, else a file's text."""
    for name, what in entries.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if what is None:
            path.mkdir()
        elif what.startswith("->"):
            path.symlink_to(what[2:])
        else:
            path.write_text(what)


@pytest.mark.parametrize(("entries", "expected"), [
    ({"AGENTS.md": "rules", "CLAUDE.md": "->AGENTS.md"}, ["CLAUDE.md"]),
    ({"ci/github/workflows": None, ".github": "->ci/github"}, [".github"]),
    ({"CLAUDE.md": "->/etc/hostname"}, ["CLAUDE.md"]),
    ({"pkg/AGENTS.md": "rules", "pkg/CLAUDE.md": "->AGENTS.md"}, ["pkg/CLAUDE.md"]),
    ({"docs/rules.md": "rules", "docs/all": "->.", "CLAUDE.md": "->docs/all/rules.md"},
     ["CLAUDE.md", "docs/all"]),
    ({"AGENTS.md": "rules", "notes.md": "->AGENTS.md"}, []),  # not a protected name
    ({"CLAUDE.md": "rules"}, []),
])
def test_links_among_protected_paths(tmp_path: Path, entries: dict[str, str | None],
                                     expected: list[str]) -> None:
    layout(tmp_path, entries)
    found = workspace_paths(tmp_path).links
    assert [os.path.relpath(path, tmp_path) for path, _ in found] == expected


def test_the_view_holds_the_link_and_bwrap_mounts_only_its_target(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    workspace = tmp_path / "ws"
    layout(workspace, {"AGENTS.md": "rules", "CLAUDE.md": "->AGENTS.md"})
    view = build_view(workspace)
    entries = {m.path: (m.mode, m.link) for m in view.mounts
               if m.path.startswith(str(workspace) + "/") and not m.placeholder}
    assert entries == {str(workspace / "AGENTS.md"): ("read-only", False),
                       str(workspace / "CLAUDE.md"): ("read-only", True)}
    args = view_args(view)
    assert str(workspace / "AGENTS.md") in args
    assert str(workspace / "CLAUDE.md") not in args
