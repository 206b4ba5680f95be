"""CG-FS-006: a write into the control-group filesystem moves a process out of the run's group
(or changes its limits), so what it starts would outlive the call: DENY, by every channel."""

from __future__ import annotations

import pytest
from vtables import DENY, assert_allowed, assert_caught


@pytest.mark.parametrize("line", [
    "echo $$ > /sys/fs/cgroup/cgroup.procs",
    "echo $$ > /sys/fs/cgroup/pids/cgroup.procs",
    "sh -c 'echo $$ > /sys/fs/cgroup/cgroup.procs; sleep 300' &",
    "echo 1 | tee /sys/fs/cgroup/cgroup.procs",
    "echo $$ >> /sys/fs/cgroup/pids/tasks",
    "cd /sys/fs/cgroup && echo $$ > cgroup.procs",
    "echo max > /sys/fs/cgroup/clawgate-1/pids.max",
    "python3 -c \"open('/sys/fs/cgroup/cgroup.procs','w').write('1')\"",
    "cgexec -g pids:/ sleep 100",
    "cgclassify -g pids:/ 1234",
])
def test_writes_into_the_cgroup_filesystem(line: str) -> None:
    assert_caught(line, DENY, "CG-FS-006")


@pytest.mark.parametrize("line", [
    "cat /sys/fs/cgroup/pids.max",
    "cat /proc/self/cgroup",
    "ls /sys/fs/cgroup",
])
def test_reading_it_is_fine(line: str) -> None:
    assert_allowed(line)
