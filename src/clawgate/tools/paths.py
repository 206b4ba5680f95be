"""Workspace containment: every path a tool touches must stay inside the workspace.

A path is joined to the workspace, canonicalised (``..`` and symlinks resolved, as the kernel
would) and must land inside the canonical workspace; for a file that does not exist yet, the
deepest existing ancestor is resolved and checked. NUL bytes, ``~user`` and forbidden paths
(``~/.ssh``, ``~/.aws``, ...) are refused with ``ToolError(InvalidPath)``, and so is anything in
the guard's own state directory (``protectedpaths.state_paths``), whatever the workspace is.

Checking a path and then opening it by name leaves a window in which a directory could be
swapped for a symlink. ``open_for_read`` and ``open_for_write`` therefore walk from the
workspace root one component at a time with ``O_NOFOLLOW`` (``openat``), so what is opened is
what was checked. Writes are atomic: a temporary file in the same directory, fsynced, then
renamed over the target; a reader never sees a half-written file.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from clawgate.errors import ToolError, ToolErrorKind
from clawgate.protectedpaths import state_paths, state_reason
from clawgate.secretpaths import SYSTEM_SECRETS, home_secret_stores

STATE_REFUSAL = "no tool may read or write it"  # what a path in the guard's state is told
_MAX_LINKS = 40  # the kernel's own limit on symlinks followed in one lookup
PATH_MAX = 4096  # the kernel refuses longer paths (ENAMETOOLONG); so do we, before any work
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

# The user's credential stores (the one list: ``clawgate.secretpaths``) and the system's.
DEFAULT_FORBIDDEN: tuple[str, ...] = (
    *(f"~/{store}" for store in home_secret_stores()), *SYSTEM_SECRETS)


def _refuse(path: object, why: str) -> ToolError:
    return ToolError(ToolErrorKind.INVALID_PATH, f"{path!s}: {why}")


def _expand_home(path: str, home: str) -> str:
    """``~`` and ``~/x`` become the home directory; ``~user`` is refused (another account)."""
    if not path.startswith("~"):
        return path
    if path == "~" or path.startswith("~/"):
        return home + path[1:]
    raise _refuse(path, "'~user' paths are not allowed")


def _canonical(path: str) -> str:
    """Resolve ``path`` (absolute) component by component as the kernel would.

    Missing components are kept as they are; a ``..`` after a missing component is refused,
    because the kernel would fail there while a lexical resolution would not. The components
    wait on a stack, last first, so each step costs the same however long the path is.
    """
    parts = [p for p in reversed(path.split("/")) if p not in ("", ".")]
    current, links, missing = "/", 0, False
    while parts:
        name = parts.pop()
        if name == "..":
            if missing:
                raise _refuse(path, "'..' after a directory that does not exist")
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, name)
        if missing:
            current = candidate
            continue
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            missing, current = True, candidate
            continue
        except OSError as exc:
            raise _refuse(path, f"cannot be inspected ({exc.strerror})") from exc
        if not stat.S_ISLNK(info.st_mode):
            current = candidate
            continue
        links += 1
        if links > _MAX_LINKS:
            raise _refuse(path, "too many symbolic links (a loop?)")
        try:
            target = os.readlink(candidate)
        except OSError as exc:
            raise _refuse(path, f"changed while resolving ({exc.strerror})") from exc
        parts.extend(p for p in reversed(target.split("/")) if p not in ("", "."))
        if target.startswith("/"):
            current = "/"
    return current


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def canonical_forbidden(forbidden: Sequence[str], home: str, root: str) -> tuple[str, ...]:
    """Each forbidden entry both as written and canonicalised; ``~`` is the home directory and
    a relative entry (``.env``, ``secrets/``) is relative to the workspace root."""
    out: list[str] = []
    for entry in forbidden:
        expanded = os.path.normpath(os.path.join(root, _expand_home(entry, home)))
        out.append(expanded)
        with contextlib.suppress(ToolError):
            out.append(_canonical(expanded))
    return tuple(dict.fromkeys(out))


def resolve_in_workspace(
    path: str | os.PathLike[str],
    workspace: str | os.PathLike[str],
    *,
    forbidden: Sequence[str] = DEFAULT_FORBIDDEN,
    home: str | None = None,
    guarded: Sequence[str] | None = None,
) -> Path:
    """The canonical absolute path of ``path`` if it stays inside ``workspace``.

    Raises ``ToolError(InvalidPath)`` for NUL bytes, ``~user``, a path that leaves the
    workspace (directly, by ``..`` or through a symlink), anything under a forbidden path and
    anything in the guard's state (``guarded``: ``state_paths()`` unless given).
    """
    raw = os.fspath(path)
    if "\x00" in raw or "\x00" in os.fspath(workspace):
        raise _refuse(repr(raw), "contains a NUL byte")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate from a JSON tool call
        raise _refuse(ascii(raw), "is not valid Unicode text") from exc
    if not raw:
        raise _refuse("''", "empty path")
    if len(raw.encode("utf-8")) >= PATH_MAX:
        raise _refuse(raw[:60] + "…", f"is {PATH_MAX} bytes or longer (the kernel's PATH_MAX)")
    home = home if home is not None else os.path.expanduser("~")
    root = _canonical(os.path.abspath(os.fspath(workspace)))
    joined = os.path.join(root, _expand_home(raw, home))
    resolved = _canonical(joined)
    if not _inside(resolved, root):
        raise _refuse(raw, f"leaves the workspace {root}")
    anchor = _deepest_existing(resolved)
    if not _inside(_canonical(anchor), root):
        raise _refuse(raw, f"its existing ancestor {anchor} leaves the workspace")
    lexical = os.path.normpath(joined)
    state = tuple(state_paths() if guarded is None else guarded)
    why = state_reason(resolved, state) or state_reason(lexical, state)
    if why is not None:
        raise _refuse(raw, f"{STATE_REFUSAL}: {why.split(' is ', 1)[1]}")
    for bad in canonical_forbidden(forbidden, home, root):
        if _inside(resolved, bad) or _inside(lexical, bad):
            raise _refuse(raw, f"is under the forbidden path {bad}")
    return Path(resolved)


def _deepest_existing(path: str) -> str:
    while not os.path.lexists(path):
        path = os.path.dirname(path)
    return path


class Workspace:
    """A workspace root with its forbidden paths; resolves and opens paths safely inside it.

    ``guarded``: more paths of the guard's own state (an approval store or audit log kept
    somewhere of the caller's choosing), out of reach like the state root."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        forbidden: Sequence[str] = DEFAULT_FORBIDDEN,
        home: str | None = None,
        guarded: Sequence[str | os.PathLike[str]] = (),
    ) -> None:
        self.root = Path(_canonical(os.path.abspath(os.fspath(root))))
        self.forbidden = tuple(forbidden)
        self.home = home if home is not None else os.path.expanduser("~")
        extra = (os.path.normpath(os.path.abspath(os.fspath(p))) for p in guarded)
        self.guarded = tuple(dict.fromkeys(
            (*state_paths(), *(q for p in extra for q in (p, os.path.realpath(p))))))

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        return resolve_in_workspace(path, self.root, forbidden=self.forbidden, home=self.home,
                                    guarded=self.guarded)

    def _relative_parts(self, path: str | os.PathLike[str]) -> list[str]:
        resolved = self.resolve(path)
        if resolved == self.root:
            raise _refuse(path, "is the workspace itself, not a file")
        return list(resolved.relative_to(self.root).parts)

    @contextlib.contextmanager
    def open_dir(self, path: str | os.PathLike[str]) -> Iterator[int]:
        """An fd on the directory ``path`` inside the workspace, reached one component at a time
        without following symlinks: listing through it lists what was checked, even if a
        directory on the way is swapped for a symlink meanwhile."""
        resolved = self.resolve(path)
        parts = list(resolved.relative_to(self.root).parts)
        if not parts:
            fd = os.open(self.root, _DIR_FLAGS)
        else:
            with self._parent_fd(parts, create=False) as parent:
                fd = _openat(parts[-1], _DIR_FLAGS, parent, "/".join(parts))
        try:
            yield fd
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def _parent_fd(self, parts: Sequence[str], *, create: bool) -> Iterator[int]:
        """An fd on the directory holding ``parts[-1]``, reached without following symlinks."""
        fd = os.open(self.root, _DIR_FLAGS)
        try:
            for name in parts[:-1]:
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, 0o755, dir_fd=fd)
                nxt = _openat(name, _DIR_FLAGS, fd, "/".join(parts))
                os.close(fd)
                fd = nxt
            yield fd
        finally:
            os.close(fd)

    def open_for_read(self, path: str | os.PathLike[str]) -> BinaryIO:
        """Open a regular file inside the workspace for reading, refusing symlinks and FIFOs."""
        parts = self._relative_parts(path)
        with self._parent_fd(parts, create=False) as parent:
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            fd = _openat(parts[-1], flags, parent, "/".join(parts))
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise _refuse(path, "is not a regular file")
        if info.st_nlink > 1:
            os.close(fd)
            raise _refuse(path, f"has {info.st_nlink} hard links; another name may lie outside "
                          "the workspace, so it is not read through this one")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")

    @contextlib.contextmanager
    def open_for_write(
        self, path: str | os.PathLike[str], *, make_parents: bool = False
    ) -> Iterator[BinaryIO]:
        """Yield a file whose content replaces ``path`` atomically when the block succeeds.

        On an exception the temporary file is removed and ``path`` is untouched. A symlink at
        ``path`` is replaced, never followed. An existing file keeps its permission bits.
        """
        parts = self._relative_parts(path)
        name = parts[-1]
        with self._parent_fd(parts, create=make_parents) as parent:
            mode = _existing_mode(name, parent)
            tmp = f".{name}.clawgate-{os.urandom(6).hex()}.tmp"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(tmp, flags, 0o600, dir_fd=parent)
            try:
                with os.fdopen(fd, "wb") as handle:
                    yield handle
                    handle.flush()
                    os.fchmod(handle.fileno(), mode)
                    os.fsync(handle.fileno())
                os.rename(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=parent)
                raise
            os.fsync(parent)

    def write_bytes(self, path: str | os.PathLike[str], data: bytes, **kw: bool) -> Path:
        """Atomically replace ``path`` with ``data``; returns the canonical path written."""
        with self.open_for_write(path, **kw) as handle:
            handle.write(data)
        return self.resolve(path)


def _existing_mode(name: str, parent: int) -> int:
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return 0o644
    if stat.S_ISDIR(info.st_mode):
        raise _refuse(name, "is a directory")
    return stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else 0o644


def _openat(name: str, flags: int, dir_fd: int, shown: str) -> int:
    """``openat`` with errors turned into ToolErrors; ELOOP means a symlink was swapped in."""
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    except FileNotFoundError as exc:
        raise ToolError(ToolErrorKind.FILE_NOT_FOUND, f"{shown}: no such file") from exc
    except (NotADirectoryError, IsADirectoryError) as exc:
        raise _refuse(shown, exc.strerror or "wrong file type") from exc
    except OSError as exc:
        raise _refuse(shown, f"changed while opening or not openable ({exc.strerror})") from exc


def open_for_read(path: str | os.PathLike[str], workspace: str | os.PathLike[str]) -> BinaryIO:
    """Shorthand for ``Workspace(workspace).open_for_read(path)``."""
    return Workspace(workspace).open_for_read(path)


def open_for_write(
    path: str | os.PathLike[str], workspace: str | os.PathLike[str]
) -> contextlib.AbstractContextManager[BinaryIO]:
    """Shorthand for ``Workspace(workspace).open_for_write(path)`` (atomic replace)."""
    return Workspace(workspace).open_for_write(path)
