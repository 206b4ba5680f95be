"""Executor figures: overheads, the spawn cap under load, and memory under an output flood.

    python bench/bench_executors.py [--quick] [--skip-docker] [--skip-bwrap] [--first N]
                                    [--first-only]

Prints medians and p99 of host and bubblewrap overhead over a bare ``subprocess.run(["true"])``
(bubblewrap with and without its system-call filter, in a workspace holding a protected link,
and the filter's one-off probe),
Docker warm exec and cold run, the 50 x ``sleep 0.2`` run with a queue (total time and the most
commands seen running at once in the process table), and the peak RSS growth while a command
prints 1 GiB. Targets: host <= 5 ms, bwrap <= 30 ms, warm exec <= 150 ms, cold <= 1 s,
50 sleeps in 2.0 s +- 20 % with never more than 5 running, 1 GiB costing no more than the cap.

Then first runs (``--first N``, default 12): in N fresh workspaces, a host run of ``true``
(after one to warm it), then the first run of a new ``BwrapExecutor`` there, in turns; it prints
the medians and p99 of both, the median over the host run, and the CPU time a sandboxed first
run costs (this process and its children, user + system: what the machine's load disturbs
least), with the load average it started at. ``--first-only`` prints only that.

Corpora: none (fixed commands). Docker and bubblewrap parts need those programs
(``scripts/docker-engine.sh``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from clawgate.errors import SandboxUnavailable
from clawgate.executors import (
    BwrapExecutor,
    DockerExecutor,
    DockerSettings,
    ExecRequest,
    Executor,
    HostExecutor,
    Limits,
    SpawnLimiter,
)
from clawgate.executors import bwrap as bwrap_module

GIB = 1024**3


def timings(func: Callable[[], object], runs: int) -> list[float]:
    """Milliseconds per call, after two warm-up calls."""
    for _ in range(2):
        func()
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        out.append((time.perf_counter() - start) * 1000)
    return out


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def line(name: str, values: list[float], base: float | None = None) -> None:
    median = statistics.median(values)
    extra = f"  overhead {median - base:7.2f} ms" if base is not None else ""
    print(f"{name:<34} median {median:8.2f} ms  p99 {p99(values):8.2f} ms{extra}")


def interleaved(funcs: dict[str, Callable[[], object]], runs: int) -> dict[str, list[float]]:
    """Milliseconds per call of each function, taken in turns so that the machine's load
    (shared by several people) weighs on all of them alike."""
    out: dict[str, list[float]] = {name: [] for name in funcs}
    for func in funcs.values():
        func()
        func()
    for _ in range(runs):
        for name, func in funcs.items():
            start = time.perf_counter()
            func()
            out[name].append((time.perf_counter() - start) * 1000)
    return out


def overheads(workspace: Path, runs: int, bwrap: bool, docker: bool) -> None:
    host = HostExecutor(workspace=workspace, limiter=SpawnLimiter(5))
    funcs: dict[str, Callable[[], object]] = {
        "bare subprocess.run(['true'])": lambda: subprocess.run(["true"], check=False),
        "host  ExecRequest(['true'])": lambda: host.run(ExecRequest(["true"])),
        "host  ExecRequest('true') (sh -c)": lambda: host.run(ExecRequest("true")),
    }
    if bwrap:
        box = BwrapExecutor(workspace=workspace, limiter=SpawnLimiter(5))
        bare_box = BwrapExecutor(workspace=workspace, limiter=SpawnLimiter(5), seccomp=False)
        funcs["bwrap ExecRequest('true')"] = lambda: box.run(ExecRequest("true"))
        funcs["bwrap 'true' without the filter"] = lambda: bare_box.run(ExecRequest("true"))
        linked = workspace.parent / f"{workspace.name}-linked"  # CLAUDE.md -> AGENTS.md
        linked.mkdir(exist_ok=True)
        (linked / "AGENTS.md").write_text("the rules\n")
        if not (linked / "CLAUDE.md").is_symlink():
            (linked / "CLAUDE.md").symlink_to("AGENTS.md")
        link_box = BwrapExecutor(workspace=linked, limiter=SpawnLimiter(5))
        funcs["bwrap 'true', a protected link"] = lambda: link_box.run(ExecRequest("true"))
    results = interleaved(funcs, runs)
    bare = results.pop("bare subprocess.run(['true'])")
    line("bare subprocess.run(['true'])", bare)
    base = statistics.median(bare)
    for name, values in results.items():
        line(name, values, base)
    if docker:
        with DockerExecutor(DockerSettings(), workspace=workspace,
                            limiter=SpawnLimiter(5)) as warm:
            line("docker warm exec 'true'", timings(lambda: warm.run(ExecRequest("true")),
                                                    max(runs // 4, 10)))
        with DockerExecutor(DockerSettings(warm=False), workspace=workspace,
                            limiter=SpawnLimiter(5)) as cold:
            line("docker cold run 'true'", timings(lambda: cold.run(ExecRequest("true")),
                                                   max(runs // 20, 5)))


def filter_start(workspace: Path, runs: int) -> None:
    """What the system-call filter costs once: building a BwrapExecutor (its probe: a
    sandboxed ``true``, with the filter under it), with and without; the machine is probed
    once per process, so each of these builds forgets the probes first; then a build in a
    process that has probed already."""
    def first(seccomp: bool) -> BwrapExecutor:
        bwrap_module._WORKS.clear()  # as in a process that has built none yet
        return BwrapExecutor(workspace=workspace, seccomp=seccomp)

    results = interleaved({
        "bwrap executor built (filter)": lambda: first(True),
        "bwrap executor built (no filter)": lambda: first(False)}, runs)
    for name, values in results.items():
        line(name, values)
    first(True)
    line("bwrap executor built again", timings(lambda: BwrapExecutor(workspace=workspace),
                                               runs))


def first_runs(root: Path, count: int) -> None:
    """A host run, then a new sandbox's first run, in ``count`` fresh workspaces in turns
    (their toolchain caches under ``root``, not in the home)."""
    print(f"first runs in {count} fresh workspaces, load average {os.getloadavg()[0]:.2f}")
    cache = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(root / "cache")
    try:
        measured = first_run_times(root, count)
    finally:
        if cache is None:
            os.environ.pop("XDG_CACHE_HOME")
        else:
            os.environ["XDG_CACHE_HOME"] = cache
    hosts, boxes, cpu = measured
    line("host run (the reference)", hosts)
    line("first sandboxed run", boxes, statistics.median(hosts))
    print(f"{'first sandboxed run, CPU':<34} median {statistics.median(cpu):8.2f} ms  "
          f"p99 {p99(cpu):8.2f} ms  (this process and its children, user + system)")


def first_run_times(root: Path, count: int) -> tuple[list[float], list[float], list[float]]:
    """Milliseconds of the host runs and of the first sandboxed runs, and the CPU of each."""
    hosts: list[float] = []
    boxes: list[float] = []
    cpu: list[float] = []
    for index in range(count):
        fresh = root / f"first-{index}"
        fresh.mkdir()
        host = HostExecutor(workspace=fresh, limiter=SpawnLimiter(5))
        host.run(ExecRequest("true"))
        hosts.append(one_run(host))
        box = BwrapExecutor(workspace=fresh, limiter=SpawnLimiter(5))
        used = cpu_seconds()
        boxes.append(one_run(box))
        cpu.append((cpu_seconds() - used) * 1000)
        box.close()
    return hosts, boxes, cpu


def one_run(executor: Executor) -> float:
    """Milliseconds of one run of ``true``."""
    start = time.perf_counter()
    executor.run(ExecRequest("true"))
    return (time.perf_counter() - start) * 1000


def cpu_seconds() -> float:
    """User and system time of this process and of its children waited for, so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), \
        resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def count_running(marker: str) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    count += 1
            except OSError:
                continue
    return count


def queue_run(workspace: Path) -> None:
    """50 concurrent `sleep 0.2` calls, a queue, the cap of 5: time and the most seen running."""
    marker = "0.2000314159"  # a sleep argument nothing else on the machine uses
    limiter = SpawnLimiter(5)
    host = HostExecutor(workspace=workspace, limiter=limiter, limits=Limits(queue_timeout_s=60))
    seen = [0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            seen[0] = max(seen[0], count_running(f"sleep\0{marker}"))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    with ThreadPoolExecutor(50) as pool:
        results = list(pool.map(host.run, [ExecRequest(["sleep", marker])] * 50))
    total = time.perf_counter() - start
    stop.set()
    sampler.join()
    ok = sum(r.exit_code == 0 for r in results)
    print(f"50 x sleep 0.2, cap 5, queue          total {total:.3f} s  ({ok}/50 ok)  "
          f"max running: process table {seen[0]}, limiter {limiter.peak}")


def rss_kib(field: str) -> int:
    for text in Path("/proc/self/status").read_text().splitlines():
        if text.startswith(field + ":"):
            return int(text.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def flood(name: str, executor: Executor) -> None:
    """Peak RSS growth of this process while a command prints 1 GiB."""
    executor.run(ExecRequest("head -c 1048576 /dev/zero"))  # warm the buffers up
    before = rss_kib("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM) to now
    start = time.perf_counter()
    result = executor.run(ExecRequest(f"head -c {GIB} /dev/zero", timeout_s=120))
    seconds = time.perf_counter() - start
    growth = (rss_kib("VmHWM") - before) / 1024
    print(f"{name:<6} 1 GiB of output: peak RSS growth {growth:6.1f} MiB (cap 1 MiB/stream), "
          f"kept {len(result.stdout)} bytes, truncated={result.truncated}, "
          f"exit {result.exit_code}, {seconds:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    parser.add_argument("--skip-docker", action="store_true")
    parser.add_argument("--skip-bwrap", action="store_true")
    parser.add_argument("--first", type=int, default=12, help="fresh workspaces for first runs")
    parser.add_argument("--first-only", action="store_true", help="only the first runs")
    args = parser.parse_args()
    runs = 50 if args.quick else 200
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "workspace"
        workspace.mkdir()
        bwrap, docker = available(workspace, not args.skip_bwrap,
                                  not args.skip_docker and not args.first_only)
        if args.first_only:
            if bwrap:
                first_runs(Path(tmp), args.first)
            return
        overheads(workspace, runs, bwrap, docker)
        if bwrap:
            filter_start(workspace, max(runs // 10, 5))
            first_runs(Path(tmp), args.first)
        queue_run(workspace)
        flood("host", HostExecutor(workspace=workspace, limiter=SpawnLimiter(5)))
        if bwrap:
            flood("bwrap", BwrapExecutor(workspace=workspace, limiter=SpawnLimiter(5)))
        if docker:
            with DockerExecutor(workspace=workspace, limiter=SpawnLimiter(5)) as warm:
                flood("docker", warm)


def available(workspace: Path, bwrap: bool, docker: bool) -> tuple[bool, bool]:
    """Which sandboxes can be measured here; say why one cannot."""
    if bwrap:
        try:
            BwrapExecutor(workspace=workspace)
        except SandboxUnavailable as exc:
            print(f"bwrap skipped: {exc}")
            bwrap = False
    if docker:
        try:
            DockerExecutor(workspace=workspace).close()
        except SandboxUnavailable as exc:
            print(f"docker skipped: {exc}")
            docker = False
    return bwrap, docker


if __name__ == "__main__":
    main()
