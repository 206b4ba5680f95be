"""Writes into the control-group filesystem: how a command's processes leave the run's group.

Each run is held in a control group of its own, and everything in it dies when the call returns
(``executors/cgroups.py``). A process that writes its pid into another group's ``cgroup.procs``
(or ``tasks``), or that changes a group's limits, steps out of that hold and outlives the call.
No approval makes that safe, so it is DENY; so are ``cgexec`` and ``cgclassify``, which do the
same by name.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.files import readings
from clawgate.validators.paths import under
from clawgate.validators.shapes import ANY
from clawgate.validators.writes import may_write, write_shapes, write_targets

CGROUP_FS = "/sys/fs/cgroup"
_MOVERS = frozenset({"cgexec", "cgclassify", "cgcreate", "cgset", "cgdelete"})


@register
class CgroupWrite(Validator):
    """A write into ``/sys/fs/cgroup`` (moving a process to another group, changing limits),
    or a program that moves processes between groups.

    Bad: ``echo $$ > /sys/fs/cgroup/cgroup.procs``. Harmless: ``cat /sys/fs/cgroup/pids.max``.
    """

    id = "CG-FS-006"

    def shapes(self, program: str | None) -> int:
        return ANY if program in _MOVERS else write_shapes(program)

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program in _MOVERS:
            return Verdict.deny(self.id, f"{cmd.program} moves processes between control "
                                "groups: what it starts would outlive the call")
        if not may_write(cmd):
            return NO_OPINION
        for word in write_targets(cmd):
            path = next((p for p in readings(word, ctx) if under(p, CGROUP_FS)), None)
            if path is not None:
                return Verdict.deny(self.id, f"writes {path}: a process moved out of the "
                                    "run's control group outlives the call")
        return NO_OPINION
