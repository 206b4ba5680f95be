"""Warm decisions (the engine's cache holds the line) of several source trees, in turn.

    python bench/bench_cache.py [--runs N] [--rounds N] SRC [SRC ...]

Each SRC is a ``src`` directory (this checkout's, or an older commit's unpacked with
``git archive COMMIT | tar -x -C /tmp/base``). The trees take turns, ``--runs`` times, each run
a fresh process that decides the latency set (benign, escapes, injections) once, then again
``--rounds`` times from its cache, in two working directories: ``/tmp/workspace`` (absent) and
a git repository made for the run (a commit, an ignore file, a Makefile, a ``package.json``),
where a remembered decision re-checks the filesystem facts it read. It prints per tree and
directory the median and p99 of a warm check, its CPU time (user + system, the figure a loaded
machine disturbs least), the share of remembered decisions that read a filesystem fact, and
the CPU time as a multiple of the first tree's.

Corpora: the latency set of ``bench_decisions.py``; without it this prints one line and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLACES = ("/tmp/workspace", "repository")


def _repository(where: str) -> str:
    def write(name: str, text: str) -> None:
        Path(where, name).parent.mkdir(parents=True, exist_ok=True)
        Path(where, name).write_text(text)

    write("README.md", "x\n")
    write(".gitignore", "build/\n")
    write("Makefile", "clean:\n\trm -rf build\n")
    write("package.json", '{"dependencies": {"left-pad": "1.3.0"}}\n')
    write("src/main.py", "print(1)\n")
    for argv in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", "-C", where, *argv], check=True, capture_output=True)
    return where


def child(src: str, rounds: int) -> None:
    sys.path.insert(0, src)
    sys.path.insert(0, str(HERE))
    from clawgate.engine import Engine
    from corpus import FILES, load

    commands = [row["command"] for name in FILES for row in load(name)]
    out = {}
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as scratch:
        for place in PLACES:
            cwd = _repository(scratch) if place == "repository" else place
            engine = Engine()
            for command in commands:
                engine.check(command, cwd=cwd)
            times: list[float] = []
            cpu = time.process_time()
            for _ in range(rounds):
                for command in commands:
                    start = time.perf_counter_ns()
                    engine.check(command, cwd=cwd)
                    times.append((time.perf_counter_ns() - start) / 1000)
            cpu = (time.process_time() - cpu) / len(times) * 1e6
            cache = getattr(engine, "_cache", {})
            read = sum(1 for v in cache.values() if isinstance(v, tuple) and v[1] is not None)
            times.sort()
            out[place] = {"median": statistics.median(times),
                          "p99": times[int(len(times) * 0.99)], "cpu": cpu,
                          "facts": read / max(len(cache), 1)}
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sources", nargs="+", metavar="SRC")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.sources[0], args.rounds)
        return
    sys.path.insert(0, str(HERE))
    from corpus import FILES, available

    if not all(available(name) for name in FILES):
        print("bench_cache: the shared corpus is not here; nothing measured")
        return
    found: dict[str, dict[str, list[dict[str, float]]]] = {}
    for _ in range(args.runs):
        for src in args.sources:
            done = subprocess.run([sys.executable, __file__, "--child", "--rounds",
                                   str(args.rounds), os.path.abspath(src)], check=True,
                                  capture_output=True, text=True, cwd="/")
            for place, figures in json.loads(done.stdout).items():
                found.setdefault(src, {}).setdefault(place, []).append(figures)
    print(f"warm checks: {args.runs} runs in turn x {args.rounds} rounds; load "
          f"{os.getloadavg()[0]:.1f}")
    first = args.sources[0]
    for place in PLACES:
        base = statistics.median(f["cpu"] for f in found[first][place])
        for src in args.sources:
            rows = found[src][place]
            cpu = statistics.median(f["cpu"] for f in rows)
            print(f"{place:15} {src:40} median {statistics.median(f['median'] for f in rows):6.1f}"
                  f" µs  p99 {statistics.median(f['p99'] for f in rows):7.1f} µs  CPU "
                  f"{cpu:6.1f} µs ({cpu / base:.2f}x)  reading facts "
                  f"{statistics.median(f['facts'] for f in rows):.3f}")


if __name__ == "__main__":
    main()
