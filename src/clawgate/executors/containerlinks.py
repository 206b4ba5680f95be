"""A container's protected links, held as bubblewrap holds them (``linkpin.py``): each link
mounted onto itself in the container's mount namespace once it runs and before anything is
run in it, so that it still points where it did and cannot be removed, renamed or replaced.

The engine cannot do it: a bind or a tmpfs whose destination is a link lands where the link
points, and the link itself stays a file of the writable workspace. Joining the container's
mount namespace needs ``CAP_SYS_ADMIN`` over it (a guard running as root, with a rootful
engine); where this process lacks it, a workspace holding a protected link is not run in a
container at all.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from clawgate.errors import SandboxUnavailable
from clawgate.executors import linkpin
from clawgate.executors.egress.netns import can_join


def hold(pid: int, paths: Sequence[str], belongs: Callable[[], bool]) -> None:
    """Mount each of ``paths`` (links, as the container sees them) onto itself in the mount
    namespace of the container whose first process is ``pid`` (``belongs`` says whether
    ``pid`` is still that container's). Raises SandboxUnavailable where that cannot be done:
    nothing is to run in the container then."""
    if not paths:
        return
    if not can_join():
        raise SandboxUnavailable(
            f"the workspace holds protected links ({', '.join(paths)}) that a container can "
            "hold only where clawgate runs with CAP_SYS_ADMIN; run with the bubblewrap "
            "executor, or replace each link with the file it points to; nothing was run")
    try:
        inode = os.stat(f"/proc/{pid}/ns/mnt").st_ino
        if not belongs():
            raise OSError(0, f"process {pid} is not the container's")
        linkpin.pin_in_thread(pid, inode, list(paths))
    except OSError as exc:
        raise SandboxUnavailable(f"the container's protected links could not be held: "
                                 f"{exc.strerror or exc}; nothing was run") from exc
