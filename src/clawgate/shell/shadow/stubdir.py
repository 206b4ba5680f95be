"""The shadow's fixed files, made once and shared by every process of this user.

One directory holds ``stubs/`` (a link to the recorder for every program name: some 1,600
links, which cost a few hundred milliseconds to make) and ``root/`` (the recorder, the shells'
start-up file and copies of the real programs, bound at ``/.clawgate-shadow``). It is named by
a hash of everything in it (the names, the scripts, each real program's path, size and time),
built under a temporary name and renamed into place, so a process either finds it whole or
makes it; it lives in ``$XDG_CACHE_HOME/clawgate/shadow`` (``~/.cache``). One not owned by
this user, or writable by others, is never used. Where the cache cannot be written, a private
temporary copy serves the one process.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from clawgate.shell.shadow.recorder import RECORDER


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "clawgate" / "shadow"


def stub_directory(names: Iterable[str], real: Mapping[str, str], recorder: str,
                   prelude: str) -> tuple[Path, bool]:
    """The directory for these contents, and whether it is a private one the caller must
    remove (the cache could not be used)."""
    names = sorted(set(names))
    key = _key(names, real, recorder, prelude)
    target = cache_root() / key
    if _ours(target):
        return target, False
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        building = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    except OSError:
        return _private(names, real, recorder, prelude), True
    try:
        _fill(building, names, real, recorder, prelude)
        os.rename(building, target)
    except OSError:  # another process renamed its copy first, or a foreign one is there
        shutil.rmtree(building, ignore_errors=True)
        if not _ours(target):
            return _private(names, real, recorder, prelude), True
    return target, False


def _private(names: list[str], real: Mapping[str, str], recorder: str, prelude: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix="clawgate-shadow-"))
    _fill(path, names, real, recorder, prelude)
    return path


def _key(names: list[str], real: Mapping[str, str], recorder: str, prelude: str) -> str:
    programs = {}
    for name, path in sorted(real.items()):
        info = os.stat(path)
        programs[name] = [path, info.st_size, info.st_mtime_ns]
    text = json.dumps([names, programs, recorder, prelude])
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:24]


def _ours(path: Path) -> bool:
    """A directory of this user that no one else may write to."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & 0o022)


def _fill(base: Path, names: list[str], real: Mapping[str, str], recorder: str,
          prelude: str) -> None:
    root = base / "root"
    (root / "real").mkdir(parents=True)
    (root / "trace").mkdir()  # where each run's own trace directory is bound
    for name, path in real.items():  # copies: one bind for all of them
        shutil.copy2(path, root / "real" / name)
    (root / "recorder").write_text(recorder)
    (root / "recorder").chmod(0o755)
    (root / "prelude").write_text(prelude)
    stubs = base / "stubs"
    stubs.mkdir()
    for name in names:
        os.symlink(RECORDER, stubs / name)
    base.chmod(0o755)
