"""What a sandbox must not let change inside the writable workspace it mounts (the whole view,
the guard's hidden state included, is ``view.py``'s).

- The loaded policy files inside the workspace are mounted read-only, and every directory on
  the way from the workspace to one is *pinned*: bound onto itself, so it is a mount point in
  the sandbox, which the kernel refuses to rename or remove (EBUSY). Protecting the file alone
  protects an inode: ``mv conf conf.old`` and a new ``conf/project.yaml`` would put another
  file at the path the next load reads.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def inside_workspace(paths: Iterable[str | os.PathLike[str]], workspace: Path
                     ) -> tuple[str, ...]:
    """The real paths among ``paths`` that exist inside ``workspace`` (the others are not
    mounted at all, or lie in the read-only system)."""
    found: list[str] = []
    for path in paths:
        real = Path(os.path.realpath(path))
        if real.exists() and real != workspace and real.is_relative_to(workspace):
            found.append(os.fspath(real))
    return tuple(dict.fromkeys(found))


def pinned_dirs(files: Iterable[str], workspace: Path) -> tuple[str, ...]:
    """The directories strictly between ``workspace`` and each of ``files`` (real paths inside
    it), parents first: binding each onto itself makes it unrenameable in the sandbox."""
    top = os.fspath(workspace).rstrip("/")
    found: list[str] = []
    for file in files:
        folder = os.path.dirname(file)
        while folder.startswith(top + "/"):
            found.append(folder)
            folder = os.path.dirname(folder)
    return tuple(sorted(dict.fromkeys(found), key=lambda p: (p.count("/"), p)))
