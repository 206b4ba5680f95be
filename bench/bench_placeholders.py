"""Placeholder figures: what holding a bare workspace's missing protected paths costs a run.

    python bench/bench_placeholders.py [--runs N] [--dir DIR]

Each run enters the workspace's hold, builds the view, makes the placeholders' mount points
(``placeholders.py``, from the pool: ``placeholderpool.py``) and removes them, as a sandboxed
run does around its command (no sandbox is started). Prints the placeholders a run holds, the
median and p99 wall time of a run, the median CPU of the thread that runs it (what a caller
waits for), and the whole process's CPU per run (the pool made up for what each run spent, on
a thread of its own), with the load average. DIR (default ``/var/tmp``) is where the workspace
and the state go: a disk file system, where making and removing a directory is journalled.

Corpora: none.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--dir", default="/var/tmp")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="clawgate-bench-placeholders-", dir=args.dir))
    os.environ["CLAWGATE_STATE_HOME"] = str(base / "state")
    from clawgate.executors.placeholders import Placeholders
    from clawgate.executors.view import build_view

    workspace = base / "ws"
    workspace.mkdir()
    owner = Placeholders(linger_s=0)

    def once() -> int:
        with owner.hold(workspace) as held:
            view = held.claim(build_view(workspace))
        return sum(1 for mount in view.mounts if mount.placeholder)

    count = once()
    owner.settle()
    walls: list[float] = []
    threads: list[float] = []
    started = time.process_time()
    for _ in range(args.runs):
        wall, thread = time.perf_counter(), time.thread_time()
        once()
        threads.append(time.thread_time() - thread)
        walls.append(time.perf_counter() - wall)
    owner.settle()
    process = (time.process_time() - started) / args.runs
    p99 = sorted(walls)[max(0, int(len(walls) * 0.99) - 1)]
    print(f"placeholders per run {count}; wall median {statistics.median(walls) * 1e3:.2f} ms, "
          f"p99 {p99 * 1e3:.2f} ms; caller's thread CPU median "
          f"{statistics.median(threads) * 1e3:.2f} ms; process CPU per run "
          f"{process * 1e3:.2f} ms; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
