"""The proxy's listener made in another network namespace (``netns.listen_in``), against real
namespaces: one whose loopback comes up only after the listener is asked for (as a bubblewrap
sandbox's does: bwrap reports the sandbox before it brings ``lo`` up) still gets it."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest

from clawgate.executors.egress.netns import can_join, listen_in

TOOLS = [shutil.which(t) for t in ("unshare", "nsenter", "ip")]
pytestmark = pytest.mark.skipif(None in TOOLS or not can_join(),
                                reason="needs unshare, nsenter, ip and CAP_SYS_ADMIN")


@pytest.fixture
def namespace() -> Iterator[int]:
    """A process alone in a new network namespace, its loopback down."""
    holder = subprocess.Popen(["unshare", "--net", "sleep", "60"])
    try:
        deadline = time.monotonic() + 30
        while os.stat(f"/proc/{holder.pid}/ns/net").st_ino == os.stat(
                "/proc/self/ns/net").st_ino:
            assert time.monotonic() < deadline, "unshare did not make its namespace"
            time.sleep(0.01)
        yield holder.pid
    finally:
        holder.kill()
        holder.wait()


def _loopback_up(pid: int) -> None:
    subprocess.run(["nsenter", "-t", str(pid), "-n", "ip", "link", "set", "lo", "up"],
                   check=True)


def test_a_loopback_that_comes_up_later_is_waited_for(namespace: int) -> None:
    later = threading.Timer(0.2, _loopback_up, args=(namespace,))
    later.start()
    try:
        listener = listen_in(namespace)
    finally:
        later.join()
    try:
        host, port = listener.getsockname()
        assert host == "127.0.0.1" and port > 0
    finally:
        listener.close()


def test_the_listener_is_in_that_namespace_not_ours(namespace: int) -> None:
    _loopback_up(namespace)
    listener = listen_in(namespace)
    try:
        port = listener.getsockname()[1]
        inside = subprocess.run(
            ["nsenter", "-t", str(namespace), "-n", "ss", "-Hltn", f"sport = :{port}"],
            capture_output=True, text=True, check=False)
        if inside.returncode != 0:
            pytest.skip("ss is not installed")
        assert f":{port}" in inside.stdout
        ours = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True,
                              text=True, check=True)
        assert f"127.0.0.1:{port}" not in ours.stdout
    finally:
        listener.close()
