"""Paths that try to leave a workspace: ``..``, symlinks out and back, absolute paths, ``~``,
Unicode, NUL and surrogates -- and a workspace laid out with such symlinks to try them in."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

# name -> where the symlink points (relative to the workspace unless absolute; {outside} is a
# directory next to the workspace).
_LINKS = {
    "in_link": "dir",
    "out_link": "{outside}",
    "abs_etc": "/etc",
    "dir/up": "../..",
    "dir/deep_out": "../../outside/secret.txt",
    "loop": "loop",
    "dangling": "nowhere/at/all",
    "dir/back_in": "../dir/sub",
    "root_link": "/",
}


@dataclass(frozen=True, slots=True)
class Layout:
    """A workspace made by ``make_workspace``: its root, the directory beside it, and every
    name in it (files, directories, symlinks) relative to the root."""

    root: Path
    outside: Path
    names: tuple[str, ...]


def make_workspace(base: Path) -> Layout:
    """Lay out ``base/workspace`` with files, directories and symlinks that point inside,
    outside, to ``/``, in a loop and nowhere; ``base/outside`` holds a secret."""
    root, outside = base / "workspace", base / "outside"
    (root / "dir" / "sub").mkdir(parents=True, exist_ok=True)
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text("secret\n")
    (root / "file.txt").write_text("hello\n")
    (root / "dir" / "file2.txt").write_text("hello\n")
    for name, target in _LINKS.items():
        link = root / name
        if not link.is_symlink():
            os.symlink(target.format(outside=outside), link)
    names = ("file.txt", "dir", "dir/sub", "dir/file2.txt", *_LINKS)
    return Layout(root, outside, names)


_SPECIAL = (".", "..", "", "~", "~root", "...", "-rf", ".ssh", ".git", "outside", "etc",
            "passwd", "secret.txt", "\u202e", "ｄｉｒ", "é", "a\x00b", "\x00", "\ud800", "\udcff",
            " ", "dir\\..", "%2e%2e", "con", "a" * 300)


def path_components(names: tuple[str, ...] = ()) -> st.SearchStrategy[str]:
    """One path component (or a run of them from the layout): names that exist, ``.``, ``..``,
    look-alikes, NUL, lone surrogates, over-long names."""
    return st.one_of(
        st.sampled_from(_SPECIAL),
        st.sampled_from(names or ("dir",)),
        st.text(st.characters(blacklist_characters="/"), min_size=1, max_size=6),
    )


@st.composite
def paths(draw: st.DrawFn, names: tuple[str, ...] = ()) -> str:
    """A path as a tool call would carry it: relative or absolute (``/``, ``~/``), built from
    ``path_components``; ``names`` are the names that exist in the workspace."""
    parts = draw(st.lists(path_components(names), min_size=1, max_size=6))
    start = draw(st.sampled_from(["", "", "", "/", "~/", "./", "//"]))
    end = draw(st.sampled_from(["", "", "/", "/."]))
    return start + "/".join(parts) + end
