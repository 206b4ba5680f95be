"""Which program installs the system-call filter as a sandboxed run's first step, and how the
sandbox shows it: the compiled loader (``seccomp_cloader.py``) where this machine could build
it, else the Python one (``seccomp_loader.py``) on the system's Python."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from clawgate.executors.egress import inside
from clawgate.executors.seccomp_cloader import compiled_loader, warn_python_loader
from clawgate.executors.seccomp_loader import PYTHON_FILE
from clawgate.statedir import state_root

INSIDE_LOADER = "/run/clawgate-loader/seccomp-loader"  # where the compiled one is shown
SYSTEM_PYTHON = "/usr/bin/python3"
PYTHON_LOADER = Path(__file__).with_name("seccomp_loader.py")


@dataclass(frozen=True, slots=True)
class FilterLoader:
    """The loader: ``argv`` run inside the sandbox (the channel's fd and the command follow),
    ``binds`` the bwrap options that show it there (before the view: a path the view hides
    stays hidden), ``host`` the file it is on this machine."""

    compiled: bool
    argv: tuple[str, ...]
    binds: tuple[str, ...]
    host: str

    def command(self, channel: int, argv: Sequence[str], bridge: bool = False) -> list[str]:
        """What runs ``argv`` under the filter; behind the egress bridge where ``bridge``
        (on the Python loader's own interpreter: one start-up for both; after the compiled
        one, on this process's interpreter, which the sandbox then shows: ``bridge_binds``)."""
        if bridge and not self.compiled:
            return [*self.argv, str(channel), PYTHON_FILE, *inside.bridge_args(list(argv))]
        if bridge:
            return [*self.argv, str(channel), *inside.bridged(list(argv),
                                                               inside.interpreter()[0])]
        return [*self.argv, str(channel), *argv]


def choose_loader(workspace: Path) -> FilterLoader:
    """The compiled loader where there is one (compiled now where it can be), else the
    Python one; never one compiled into ``workspace`` (a state root set inside it: what runs
    there could change the file)."""
    state = os.path.realpath(state_root())
    top = os.path.realpath(workspace)
    if state == top or state.startswith(top.rstrip("/") + "/"):
        warn_python_loader(f"the guard's state ({state}) lies in the workspace")
        return python_loader()
    compiled = compiled_loader(Path(state))
    if compiled is not None:
        return FilterLoader(True, (INSIDE_LOADER,),
                            ("--ro-bind", os.fspath(compiled), INSIDE_LOADER),
                            os.fspath(compiled))
    return python_loader()


def python_loader() -> FilterLoader:
    """The Python loader on the system's Python (which the sandbox shows), else on this one
    (its installation then shown read-only)."""
    python = SYSTEM_PYTHON if os.access(SYSTEM_PYTHON, os.X_OK) \
        else os.path.realpath(sys.executable)
    return FilterLoader(False, (python, "-I", "-S", "-c",
                                PYTHON_LOADER.read_text(encoding="utf-8")),
                        tuple(_python_binds(python)), python)


def _python_binds(python: str) -> list[str]:
    """The installation the loader's Python lives in, read-only, where the system binds do
    not show it already."""
    root = os.path.realpath(sys.base_prefix)
    if python.startswith("/usr/") or not python.startswith(root + "/"):
        return []
    return ["--ro-bind", root, root]
