"""The sandbox's filter loader, compiled once per machine from ``seccomp_loader.c``.

Every sandboxed run starts with the loader (``seccomp_loader.py`` says what it does); as a
Python file it costs each run an interpreter's start-up, some milliseconds of CPU, before the
command. The C loader does the same in well under one. It is compiled with the machine's C
compiler (``cc``, ``gcc`` or ``clang``, statically linked where the C library allows it) into
``loader`` in the guard's state (``statedir.py``: a folder no sandbox shows, only its owner
may open, never the workspace), named by a hash of its source, the compiler options and the
machine, so a changed source is compiled again and a compiled one is reused by every process.
The filter is not part of it: the supervisor sends the program over the run's channel
(``seccomp_notify.py``), as to the Python loader. A compiled file is used only while it is a
regular file of ours that no one else may write. It is compiled to a temporary name and moved
into place, so two processes compiling at once leave one whole file.

Where no compiler is found, or compiling fails, ``compiled_loader`` returns None and says why
once (the ``clawgate.executors`` logger); the executor then uses the Python loader: the filter
is the same, each run costs the start-up again.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import platform
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from clawgate.statedir import state_root

SOURCE = Path(__file__).with_name("seccomp_loader.c")
COMPILERS = ("cc", "gcc", "clang")
FLAGS = ("-O2", "-std=gnu11")
LINKINGS = (("-static",), ())  # static first: no dynamic loader at each run's start
COMPILE_TIMEOUT_S = 120.0
FOLDER = "loader"
LOG = logging.getLogger("clawgate.executors")


def compiled_loader(state: Path | None = None) -> Path | None:
    """The compiled loader in ``state`` (the guard's state root by default), compiled now
    where it is missing; None where it cannot be had (said once per reason, as a
    warning)."""
    try:
        return _compiled(state_root() if state is None else state)
    except LoaderUnavailable as exc:
        warn_python_loader(str(exc))
        return None


@functools.lru_cache(maxsize=16)
def warn_python_loader(why: str) -> None:
    """Say once per process (and reason) that runs use the Python loader."""
    LOG.warning("the sandbox's system-call filter is installed by a Python loader, which "
                "adds an interpreter start-up to every sandboxed run: %s", why)


class LoaderUnavailable(Exception):
    """No compiled loader here (the message says why)."""


def _compiled(state: Path) -> Path:
    source = SOURCE.read_bytes()
    folder = state / FOLDER
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise LoaderUnavailable(f"cannot make {folder}: {exc.strerror or exc}") from exc
    if not _private(folder, directory=True):
        raise LoaderUnavailable(f"{folder} is not a folder only this user may write to")
    target = folder / f"seccomp-loader-{_digest(source)}"
    if _private(target):
        return target
    compiler = next((found for name in COMPILERS if (found := shutil.which(name))), None)
    if compiler is None:
        raise LoaderUnavailable(f"no C compiler ({', '.join(COMPILERS)}) was found; install "
                                "one (gcc) to remove it")
    errors = [_build(compiler, linking, folder, target) for linking in LINKINGS]
    if _private(target):
        return target
    raise LoaderUnavailable(f"{compiler} could not compile {SOURCE.name}: {errors[-1]}")


def _digest(source: bytes) -> str:
    """What names a compiled loader: its source, the options, the machine."""
    key = hashlib.sha256(source)
    for part in (*FLAGS, *(flag for linking in LINKINGS for flag in linking),
                 platform.machine()):
        key.update(b"\0" + part.encode())
    return key.hexdigest()[:32]


def _build(compiler: str, linking: tuple[str, ...], folder: Path, target: Path) -> str:
    """Compile into a temporary file in ``folder`` and move it to ``target``; what the
    compiler said where it failed ("" once ``target`` is there)."""
    if _private(target):
        return ""
    handle, scratch = tempfile.mkstemp(prefix=".build-", dir=folder)
    os.close(handle)
    try:
        done = subprocess.run([compiler, *FLAGS, *linking, "-o", scratch, os.fspath(SOURCE)],
                              capture_output=True, text=True, check=False,
                              timeout=COMPILE_TIMEOUT_S, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            return (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        os.chmod(scratch, 0o700)
        os.replace(scratch, target)
        return ""
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    finally:
        if os.path.lexists(scratch):
            os.unlink(scratch)


def _private(path: Path, *, directory: bool = False) -> bool:
    """Whether ``path`` (not a link) is a regular file (or a directory) of this user's that
    no one else may write to."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    kind = stat.S_ISDIR if directory else stat.S_ISREG
    return kind(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022
