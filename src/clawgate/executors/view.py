"""What a sandbox shows of the file system: one list of mounts, each with its mode and why, that
the bubblewrap and Docker executors translate into their own arguments and that
``policy run --explain-sandbox`` prints.

The view, in the order it is built (a later entry at the same path replaces an earlier one;
mounts are applied parents first, so a deeper entry covers what a shallower one shows):

1. the user's home directory read-only: toolchains and their configuration (``~/.cargo``,
   ``~/.nvm``, ``~/go``, ``~/.pyenv``) are there; minus every credential store of
   ``clawgate.secretpaths``, each covered by an empty read-only directory or an empty file;
2. a per-workspace toolchain cache, read-write (``toolchains.py``: pip, uv, npm, cargo, go);
3. the workspace read-write, minus its protected paths (git hooks and config, agent
   configuration, CI files: ``workspace_paths``), mounted read-only, the directories on
   the way to each pinned so they cannot be renamed away; a protected path that does not
   exist is held by an empty directory that nothing run can fill (a *placeholder*: its mount
   point is made on the host while runs need it, ``placeholders.py``), so that nothing run
   creates it; a link that is a protected path or leads to one (``CLAUDE.md -> AGENTS.md``)
   is held itself (``link``: it still points where it did, and cannot be removed, renamed or
   replaced; bubblewrap mounts it onto itself, ``linkpin.py``), what it points to being
   protected at its real path;
4. the loaded policy files inside the workspace, read-only and pinned;
5. the interpreter of the active virtual environment and what it links to, read-only;
6. the policy's own ``executor.mounts``;
7. the guard's state directories, hidden wherever they would be visible: no entry can show
   them (a policy mount inside one is an error).

The system (bubblewrap: ``/usr``, ``/etc``, ... read-only; Docker: the image) and the private
``/tmp``, ``/proc`` and ``/dev`` are the backends' own (``base``) and listed for the reader.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from clawgate.errors import ExecutorError
from clawgate.executors.base import from_known_fields
from clawgate.executors.mounts import pinned_dirs
from clawgate.executors.npmsettings import npm_userconfig
from clawgate.executors.toolchains import cache_env, venv_env, venv_prefixes
from clawgate.executors.workspaceview import workspace_paths
from clawgate.protectedpaths import STATE_WHY, state_paths
from clawgate.secretpaths import SECRET_WHY, home_secret_stores

Mode = Literal["read-only", "read-write", "hidden"]
MODES: tuple[str, ...] = ("read-only", "read-write", "hidden")
HOME_WHY = ("your home directory, read-only: toolchains and their configuration are visible, "
            "nothing there can be changed")
WORKSPACE_WHY = "the workspace: commands may change it"
PIN_WHY = "pinned (a mount point cannot be renamed): it holds a read-only path"
POLICY_FILE_WHY = "a loaded policy file: what runs may not rewrite the rules it runs under"
ABSENT_WHY = "a protected path that does not exist, held empty so that nothing creates it"
LINK_WHY = ("a link that is a protected path or leads to one, held: it cannot be removed, "
            "renamed or replaced (what it points to is protected where it lies)")
CACHE_WHY = ("the workspace's own toolchain cache (pip, uv, npm, cargo, go): installs work, "
             "your own caches stay untouched")


@dataclass(frozen=True, slots=True)
class Mount:
    """One path of the view: its real absolute path, its mode, and why."""

    path: str
    mode: Mode
    reason: str
    is_dir: bool = True
    placeholder: bool = False  # a protected path that does not exist: held by an empty folder
    link: bool = False  # a link held as it is (mounted onto itself)

    def line(self) -> str:
        """How ``--explain-sandbox`` prints it."""
        return f"{self.mode:<10}  {self.path}  ({self.reason})"


@dataclass(frozen=True, slots=True)
class MountSpec:
    """A policy's ``executor.mounts`` entry as written: a path (absolute, ``~/...``, or relative
    to the workspace), a mode, and the reason shown to whoever reads the view."""

    path: str
    mode: Mode
    reason: str

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"executor.mounts: mode {self.mode!r}: use one of "
                             f"{', '.join(MODES)}")
        if not self.path or "\0" in self.path or not self.reason:
            raise ValueError(f"executor.mounts: {self.path!r} needs a path and a reason")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> MountSpec:
        """An entry from a manifest's ``executor.mounts``; an unknown key is an error."""
        return from_known_fields(cls, values, "executor.mounts entry")

    def resolved(self, workspace: Path, home: str) -> str:
        """The real absolute path this entry names."""
        path = self.path
        if path == "~" or path.startswith("~/"):
            path = home + path[1:]
        return os.path.realpath(os.path.join(workspace, path))


@dataclass(frozen=True, slots=True)
class SandboxView:
    """The mounts a backend applies, in order, its own ``base``, and the environment that
    points toolchains at the view's cache."""

    mounts: tuple[Mount, ...]
    base: tuple[Mount, ...] = ()  # host paths the backend shows itself (the system)
    env: tuple[tuple[str, str], ...] = field(default=())
    private: tuple[str, ...] = ()  # what the backend makes fresh (/tmp, /proc, /dev)

    def mode_of(self, path: str) -> Mode | None:
        """What a command sees at ``path`` (real, absolute): the mode of the deepest entry
        that holds it, or None where nothing is mounted."""
        return _mode_of(path, (*self.base, *self.mounts))

    def lines(self) -> list[str]:
        """The view as ``--explain-sandbox`` prints it, one path a line."""
        return [*(m.line() for m in (*self.base, *self.mounts)),
                *(f"{'private':<10}  {p}" for p in self.private)]


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _depth(path: str, folders: Iterable[str]) -> int:
    """The length of the deepest of ``folders`` that holds ``path`` (-1: none; an anchor that
    is the path itself counts, a hidden folder that is the path itself is not above it).
    ``path`` and the folders are absolute and normal: the path's own ancestors are looked up
    (a view holds a hundred entries or more; comparing each with each would be quadratic)."""
    found = folders if isinstance(folders, (set, frozenset)) else set(folders)
    while True:
        if path in found:
            return len(path)
        if path == "/":
            return -1
        path = os.path.dirname(path)


def _mode_of(path: str, mounts: Iterable[Mount]) -> Mode | None:
    """The mode of the deepest of ``mounts`` that holds ``path`` (the last one at a path)."""
    by_path = {mount.path: mount for mount in mounts}
    while True:
        if path in by_path:
            return by_path[path].mode
        if path in ("/", ""):
            return None
        path = os.path.dirname(path)


class _Builder:
    """Entries by path, the last at a path winning."""

    def __init__(self, base: Sequence[Mount]) -> None:
        self.base = tuple(base)
        self.entries: dict[str, Mount] = {}
        self.explicit: set[str] = set()  # the policy's own entries
        self.workspace: list[str] = []

    def add(self, path: str, mode: Mode, reason: str, *, explicit: bool = False) -> None:
        if os.path.lexists(path):
            self.entries[path] = Mount(path, mode, reason, os.path.isdir(path))
            if explicit:
                self.explicit.add(path)
            else:
                self.explicit.discard(path)

    def add_link(self, path: str, reason: str) -> None:
        """A link, held as it is."""
        self.entries[path] = Mount(path, "read-only", reason, is_dir=False, link=True)
        self.explicit.discard(path)

    def add_absent(self, path: str, reason: str) -> None:
        """A path that does not exist, held by an empty directory."""
        self.entries[path] = Mount(path, "hidden", reason, placeholder=True)
        self.explicit.discard(path)

    def shown(self) -> list[Mount]:
        """The entries, less those the view would show from inside a hidden one (a bind's
        source is the host's path: a protected file under a hidden folder would be seen
        again). Only the policy's own entries and the workspace may show a path under a
        hidden one, and what lies below them. A placeholder inside another (what a protected
        link to nothing points to, in a protected folder that does not exist either) is not
        kept: the outer one holds it, and a mount point made inside the outer one's would
        leave it filled, a directory of the workspace's for the next run."""
        hidden = {m.path for m in self.entries.values() if m.mode == "hidden"}
        held = {m.path for m in self.entries.values() if m.placeholder}
        anchors = {*self.explicit, *self.workspace}
        kept: list[Mount] = []
        for mount in self.entries.values():
            if mount.placeholder and _depth(os.path.dirname(mount.path), held) >= 0:
                continue  # held empty by the placeholder above it: no mount point made in it
            above = _depth(mount.path, hidden)  # -1: no hidden folder holds it
            if mount.mode == "hidden" or above < 0 or _depth(mount.path, anchors) > above:
                kept.append(mount)
        return kept

    def mode(self, path: str) -> Mode | None:
        return _mode_of(path, (*self.base, *self.entries.values()))

    def view(self, env: Mapping[str, str], private: Sequence[str]) -> SandboxView:
        ordered = sorted(self.shown(), key=lambda m: m.path.rstrip("/").count("/"))
        return SandboxView(tuple(ordered), self.base, tuple(sorted(env.items())),
                           tuple(private))


def cache_dir(workspace: Path, environ: Mapping[str, str]) -> str:
    """``$XDG_CACHE_HOME/clawgate/sandbox/<workspace hash>`` (``~/.cache`` by default)."""
    base = environ.get("XDG_CACHE_HOME") or os.path.join(_home(environ), ".cache")
    digest = hashlib.sha256(os.fsencode(workspace)).hexdigest()[:16]
    return os.path.join(base, "clawgate", "sandbox", digest)


def _home(environ: Mapping[str, str]) -> str:
    return environ.get("HOME") or os.path.expanduser("~")


def build_view(workspace: Path, *, base: Sequence[Mount] = (), private: Sequence[str] = (),
               read_only: Iterable[str] = (), extra: Sequence[MountSpec] = (),
               environ: Mapping[str, str] | None = None) -> SandboxView:
    """The view of ``workspace`` (real, absolute) for a command started with ``environ`` (the
    caller's environment by default). ``base``: the host paths the backend shows itself;
    ``private``: what it makes fresh, for the reader. Raises ExecutorError for a policy mount
    inside the guard's state."""
    environ = os.environ if environ is None else environ
    home = os.path.realpath(_home(environ))
    builder = _Builder(base)
    if home != "/" and os.path.isdir(home):
        builder.add(home, "read-only", HOME_WHY)
    cache = cache_dir(workspace, environ)
    _make(cache, "the workspace's toolchain cache (set $XDG_CACHE_HOME elsewhere)")
    builder.add(os.path.realpath(cache), "read-write", CACHE_WHY)
    builder.add(os.fspath(workspace), "read-write", WORKSPACE_WHY)
    builder.workspace.append(os.fspath(workspace))
    _add_workspace_protection(builder, workspace, read_only)
    for prefix, why in venv_prefixes(workspace, environ):
        if builder.mode(prefix) is None:  # only what nothing shows yet
            builder.add(prefix, "read-only", why)
    _hide_secrets(builder, home)
    for spec in extra:
        _add_spec(builder, spec, workspace, home)
    _hide_state(builder)
    return builder.view(sandbox_env(workspace, environ), private)


def sandbox_env(workspace: Path, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables a sandboxed command gets on top of the allowed ones:
    each toolchain's cache in the workspace's cache directory, npm's user configuration
    without its credentials (the file itself is hidden: ``npmsettings.py``), and
    ``VIRTUAL_ENV`` when the view shows it."""
    environ = os.environ if environ is None else environ
    cache = os.path.realpath(cache_dir(workspace, environ))
    return {**cache_env(cache), **npm_userconfig(environ, cache), **venv_env(workspace, environ)}


def _add_workspace_protection(builder: _Builder, workspace: Path, read_only: Iterable[str]
                              ) -> None:
    paths = workspace_paths(workspace)
    files = [os.path.realpath(p) for p in read_only]
    files = [p for p in files if os.path.exists(p) and p != os.fspath(workspace)
             and Path(p).is_relative_to(workspace)]
    held = [path for path, _ in paths.absent]
    links = [path for path, _ in paths.links]
    for folder in pinned_dirs([*(p for p, _ in paths.present), *held, *links, *files],
                              workspace):
        builder.add(folder, "read-write", PIN_WHY)
    for path, why in paths.present:
        builder.add(path, "read-only", f"a protected path: {why}")
    for path, why in paths.links:
        builder.add_link(path, f"{LINK_WHY}: {why}")
    for path, why in paths.absent:
        builder.add_absent(path, f"{ABSENT_WHY}: {why}")
    for path in files:
        builder.add(path, "read-only", POLICY_FILE_WHY)


def _hide_secrets(builder: _Builder, home: str) -> None:
    """Each credential store of the home that the view would show (through the home, the
    workspace, a venv's mount, or where a link in the home points) is hidden."""
    for store in home_secret_stores():
        path = os.path.join(home, store)
        if os.path.lexists(path):
            real = os.path.realpath(path)
            if builder.mode(real) in ("read-only", "read-write"):
                builder.add(real, "hidden", SECRET_WHY)


def _add_spec(builder: _Builder, spec: MountSpec, workspace: Path, home: str) -> None:
    path = spec.resolved(workspace, home)
    for state in state_paths():
        if _within(path, os.path.realpath(state)):
            raise ExecutorError(f"executor.mounts: {spec.path} lies in {STATE_WHY}, which no "
                                "sandbox shows")
    builder.add(path, spec.mode, f"policy: {spec.reason}", explicit=True)


def _make(folder: str, what: str) -> None:
    """``mkdir -p`` with mode 0700; a failure is the run's: ExecutorError naming the folder."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise ExecutorError(f"cannot make {folder}, {what}: {exc.strerror}") from exc


def _hide_state(builder: _Builder) -> None:
    """Each state directory that would be visible is hidden; one missing where commands may
    write is made first (mode 0700), so none can be planted for the guard to read later."""
    for state in dict.fromkeys(os.path.realpath(s) for s in state_paths()):
        mode = builder.mode(state)
        if mode is None or mode == "hidden":
            continue
        if mode == "read-write":
            _make(state, STATE_WHY)
        builder.add(state, "hidden", STATE_WHY)
