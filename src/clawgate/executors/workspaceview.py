"""The protected paths of a workspace that a sandbox mounts read-only over the writable workspace.

The list is the checker's own (``protectedpaths.DEFAULT_PROTECTED``: agent configuration, git
internals, package-manager configuration, CI definitions, clawgate's policy files), found at
the top of the workspace and in the directories below it, breadth first, down to
``MAX_DEPTH`` levels and at most ``MAX_SUBDIRS`` directories (a monorepo's packages, a
vendored repository, a nested project's ``.git``); hidden directories and build or dependency
output (``SKIPPED``) are not looked into. One pattern is narrowed: of ``.git`` only what makes git
run something (``hooks``, ``config``) is read-only, since git must write the rest to commit;
a ``.git`` *file* (a worktree's or a submodule's pointer) is read-only itself. The directory
the repository's ``core.hooksPath`` names (``githooks.py``) is read-only too, or held empty.

What does not exist yet is listed too (``absent``), for the sandbox to hold an empty directory
in its place while a command runs: at the top of the workspace, the first
missing component of each pattern, spelled as the tools read it (``.github`` when there is
none, ``.github/workflows`` when ``.github`` has no ``workflows``, ``CLAUDE.md``); and in every
``.git`` directory found, a missing ``hooks`` or ``config``; and what a protected link
points to inside the workspace where it does not exist. A missing ``.git`` is not held
(``git init`` makes one), nor are paths missing below the top: the checker still judges every
path a command names.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from clawgate.githooks import hooks_patterns
from clawgate.protectedpaths import DEFAULT_PROTECTED, SPELLING

GIT_NARROWED = (".git/hooks", ".git/config")  # the parts of .git that run code
MAX_SUBDIRS = 512  # directories below the top looked into: a bound on the work per run
MAX_DEPTH = 3  # levels below the top looked into
MAX_HOPS = 40  # links followed on the way to one protected path (the kernel's own bound)
SKIPPED = frozenset({"node_modules", "target", "build", "dist", "__pycache__"})


def _by_first() -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for pattern, why in DEFAULT_PROTECTED:
        found.setdefault(pattern.split("/")[0], []).append((pattern, why))
    return found


_BY_FIRST = _by_first()


_GIT_WHY = dict(DEFAULT_PROTECTED)[".git"]
_HOOKS_WHY = "the repository's hooks directory (core.hooksPath), which git runs hooks from"


@dataclass(frozen=True, slots=True)
class Protected:
    """A workspace's protected paths: those that exist, (real path, why); those that do not,
    (path, why); and the links inside the workspace on the way to one or that are one,
    (path, why): ``CLAUDE.md -> AGENTS.md`` protects what it points to as its real path, and
    the link itself must be held too, or it could be replaced by a file of other content."""

    present: list[tuple[str, str]]
    absent: list[tuple[str, str]]
    links: list[tuple[str, str]] = field(default_factory=list)


def workspace_protected(workspace: Path) -> list[tuple[str, str]]:
    """(real path, why) of each protected path that exists in ``workspace``, inside it."""
    return workspace_paths(workspace).present


def workspace_paths(workspace: Path) -> Protected:
    """The protected paths of ``workspace`` (real, absolute) that exist and those that do not
    (one walk of its directories)."""
    listing = _Listing()
    found: dict[str, str] = {}
    absent: dict[str, str] = {}
    links: dict[str, str] = {}
    top = os.fspath(workspace)
    for root in [top, *_subdirs(workspace, listing)]:
        present = [entry for name in listing.names(root) for entry in _BY_FIRST.get(name, ())]
        for pattern, why in present:
            for path in _expanded(root, pattern, listing):
                real = _real(top, path)
                if real.startswith(top.rstrip("/") + "/"):
                    if os.path.lexists(real):
                        found.setdefault(real, why)
                    else:  # a link to nothing yet: what it would point to is held empty
                        absent.setdefault(real, why)
                if real != path:
                    for link in _links(top, path):
                        links.setdefault(link, why)
        for path in _git_missing(root, listing):
            absent.setdefault(path, _GIT_WHY)
    for pattern, why in DEFAULT_PROTECTED:
        missing = _first_missing(top, pattern, listing) if pattern != ".git" else None
        if missing is not None:
            absent.setdefault(missing, why)
    for hooks in hooks_patterns(top):  # core.hooksPath: git runs the hooks there
        if hooks.startswith(top.rstrip("/") + "/"):
            (found if os.path.lexists(hooks) else absent).setdefault(hooks, _HOOKS_WHY)
    return Protected(sorted(found.items()), sorted(absent.items()), sorted(links.items()))


def _real(top: str, path: str) -> str:
    """``path``'s real path, for a path below ``top`` (real itself): only its own components
    are looked at unless one of them is a link (a run looks at some fifty)."""
    here = path
    while here.startswith(top.rstrip("/") + "/"):
        if os.path.islink(here):
            return os.path.realpath(path)
        here = os.path.dirname(here)
    return path


def _links(top: str, path: str) -> list[str]:
    """The links inside ``top`` that ``path`` is reached through, its own components' and
    those of what each link points to, in the order they are followed (at most
    ``MAX_HOPS``, the kernel's own bound)."""
    inside = top.rstrip("/") + "/"
    found: list[str] = []
    pending = os.path.relpath(path, top).split("/")
    here = top
    hops = 0
    while pending and hops < MAX_HOPS:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            here = os.path.dirname(here)
            continue
        step = os.path.join(here, part)
        if not os.path.islink(step):
            here = step
            continue
        hops += 1
        if step.startswith(inside) and step not in found:
            found.append(step)
        target = os.readlink(step)
        here = "/" if target.startswith("/") else here
        pending = target.split("/") + pending
    return found


def _first_missing(top: str, pattern: str, listing: _Listing) -> str | None:
    """Where ``pattern`` stops existing under ``top``: its first missing component, spelled as
    the tools read it; None when it exists, or when a component on the way is a file or a
    link (what is there is then all there is to hold). An empty directory on the way is held
    itself: it holds nothing to show, and it may be another process's placeholder, which a
    mount point made inside it would keep from being removed (and leave ``.cargo/config.toml``
    a directory in the workspace)."""
    path = top
    parts = pattern.split("/")
    for index, part in enumerate(parts):
        name = listing.names(path).get(part)
        if name is None:
            return os.path.join(path, SPELLING.get(part, part))
        path = os.path.join(path, name)
        if os.path.islink(path) or not os.path.isdir(path):
            return None
        if index < len(parts) - 1 and not listing.names(path):
            return path
    return None


def _git_missing(root: str, listing: _Listing) -> list[str]:
    """The parts of ``root``'s ``.git`` directory that run code and do not exist."""
    git = listing.find(root, [".git"])
    if git is None or os.path.islink(git) or not os.path.isdir(git):
        return []
    names = [rel.split("/")[1] for rel in GIT_NARROWED]
    return [os.path.join(git, name) for name in names
            if listing.find(git, [name]) is None and not os.path.lexists(os.path.join(git, name))]


class _Listing:
    """Directory listings by lower-cased name, read once per run."""

    def __init__(self) -> None:
        self.seen: dict[str, dict[str, str]] = {}

    def names(self, folder: str) -> dict[str, str]:
        if folder not in self.seen:
            try:
                entries = os.listdir(folder)
            except OSError:
                entries = []
            self.seen[folder] = {name.lower(): name for name in sorted(entries)}
        return self.seen[folder]

    def find(self, root: str, parts: list[str]) -> str | None:
        path = root
        for part in parts:
            name = self.names(path).get(part)  # a file lists as empty
            if name is None:
                return None
            path = os.path.join(path, name)
        return path


def _subdirs(workspace: Path, listing: _Listing) -> list[str]:
    """The directories below ``workspace`` to look into, breadth first, within the bounds."""
    found: list[str] = []
    level = [os.fspath(workspace)]
    for _ in range(MAX_DEPTH):
        below: list[str] = []
        for folder in level:
            for name in listing.names(folder).values():
                path = os.path.join(folder, name)
                if name.startswith(".") or name in SKIPPED or os.path.islink(path) or \
                        not os.path.isdir(path):
                    continue
                if len(found) >= MAX_SUBDIRS:
                    return found
                found.append(path)
                below.append(path)
        level = below
    return found


def _expanded(root: str, pattern: str, listing: _Listing) -> list[str]:
    """The paths ``pattern`` names under ``root`` (``.git`` narrowed to what runs code)."""
    git = listing.find(root, [".git"]) if pattern == ".git" else None
    if git is None or not os.path.isdir(git) or os.path.islink(git):
        found = listing.find(root, pattern.split("/"))
        return [] if found is None else [found]
    return [p for p in (listing.find(root, rel.split("/")) for rel in GIT_NARROWED)
            if p is not None]
