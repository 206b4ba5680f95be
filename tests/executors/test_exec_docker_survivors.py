"""Warm Docker containers (issue 14): 20 calls that each leave a ``setsid`` child leave nothing
in the container; another call running at the same time is left alone; a container nobody
closed is removed at interpreter exit. The real engine and image."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from clawgate.executors import DockerExecutor, DockerSettings, ExecRequest
from proctable import unique_sleep

pytestmark = pytest.mark.docker
IMAGE = "clawgate-sandbox:busybox"
SRC = str(Path(__file__).resolve().parents[2] / "src")


def processes(executor: DockerExecutor, marker: str) -> list[str]:
    listing = executor.run(ExecRequest("ps -o pid,args")).stdout.splitlines()
    return [line for line in listing if marker in line and "ps -o" not in line]


def test_setsid_children_of_twenty_calls_do_not_survive(warm_docker: DockerExecutor) -> None:
    marker = unique_sleep()
    for _ in range(20):
        result = warm_docker.run(ExecRequest(
            f"setsid sleep {marker} </dev/null >/dev/null 2>&1 & echo started"))
        assert result.stdout == "started\n"
    assert processes(warm_docker, marker) == []


def test_a_setsid_loop_does_not_outlive_its_call(warm_docker: DockerExecutor) -> None:
    marker = unique_sleep()
    warm_docker.run(ExecRequest(
        f"setsid sh -c 'while true; do setsid sleep {marker} & sleep 0.05; done' "
        "</dev/null >/dev/null 2>&1 & sleep 0.3; echo spawned"))
    assert processes(warm_docker, marker) == []


def test_a_call_running_beside_is_left_alone(warm_docker: DockerExecutor) -> None:
    box: list[str] = []
    slow = threading.Thread(target=lambda: box.append(
        warm_docker.run(ExecRequest("sleep 1.5; echo finished", timeout_s=30)).stdout))
    slow.start()
    for _ in range(5):
        warm_docker.run(ExecRequest("setsid sleep 30 </dev/null >/dev/null 2>&1 & true"))
    slow.join(60)
    assert box == ["finished\n"]


LEAVER = """
import sys
from clawgate.executors import DockerExecutor, DockerSettings, ExecRequest
executor = DockerExecutor(DockerSettings(image=sys.argv[1]), workspace=sys.argv[2])
executor.run(ExecRequest("true"))
print(executor._warm.id, flush=True)
"""


def test_a_warm_container_nobody_closed_is_removed_at_exit(module_workspace: Path) -> None:
    done = subprocess.run([sys.executable, "-c", LEAVER, IMAGE, str(module_workspace)],
                          capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": SRC})
    container_id = done.stdout.strip()
    assert len(container_id) == 64
    with DockerExecutor(DockerSettings(image=IMAGE), workspace=module_workspace) as probe:
        ids = [c.id for c in probe._client.containers.list(all=True)]
    assert container_id not in ids
