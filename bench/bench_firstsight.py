"""First-sight decision latency of several source trees, measured in turn on the same machine.

    python bench/bench_firstsight.py [--runs N] [--rounds N] [--callgrind] SRC [SRC ...]

Each SRC is a ``src`` directory (this checkout's, or an older commit's unpacked with
``git archive COMMIT | tar -x -C /tmp/base``). The trees take turns, ``--runs`` times, each run
a fresh process deciding the latency set (benign, escapes, injections) ``--rounds`` times with
the engine's cache off, as ``bench_decisions.py`` does: median and p99 of all samples, and of
each line's fastest round. On a loaded machine only figures taken in turn compare.

``--callgrind``: instead, instructions per decision under ``valgrind --tool=callgrind``
(one pass minus none, over the set; independent of load). The bashlex deadline's timer signal is
left out there (valgrind is ~50× slower than the deadline assumes).

Corpora: the latency set of ``bench_decisions.py``, ``../shared/corpus/{benign,escapes,
injections}.jsonl`` beside the checkout (or ``$CLAWGATE_CORPUS``); without them this prints one
line and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import FILES, load, require_corpus

_CHILD = r"""
import contextlib, json, sys, time
src, rounds, passes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, src)
from clawgate.engine import Engine
commands = json.load(sys.stdin)
engine = Engine(cache_size=0)
if passes >= 0:  # under callgrind: the warm-up, then `passes` passes
    import clawgate.shell.differential as differential
    differential._deadline = lambda seconds: contextlib.nullcontext()
    for _ in range(passes + 1):
        for command in commands:
            engine.check(command, cwd="/tmp/workspace")
    sys.exit(0)
for command in commands[:50]:
    engine.check(command, cwd="/tmp/workspace")
times = []
for _ in range(rounds):
    for command in commands:
        start = time.perf_counter_ns()
        engine.check(command, cwd="/tmp/workspace")
        times.append((time.perf_counter_ns() - start) / 1000)
json.dump(times, sys.stdout)
"""


def _child(src: str, commands: list[str], rounds: int, passes: int,
           wrap: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    argv = [*(wrap or []), sys.executable, "-c", _CHILD, src, str(rounds), str(passes)]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.run(argv, input=json.dumps(commands), capture_output=True, text=True,
                          check=True, env=env)


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def timed(src: str, commands: list[str], rounds: int) -> str:
    times: list[float] = json.loads(_child(src, commands, rounds, -1).stdout)
    best = [min(times[i :: len(commands)]) for i in range(len(commands))]
    return (f"median {statistics.median(times):6.1f} µs  p99 {_p99(times) / 1000:6.2f} ms  |  "
            f"best round: median {statistics.median(best):6.1f} µs  p99 "
            f"{_p99(best) / 1000:5.2f} ms")


def instructions(src: str, commands: list[str]) -> float:
    counts = []
    for passes in (0, 1):
        with tempfile.TemporaryDirectory() as tmp:
            wrap = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out"]
            done = _child(src, commands, 1, passes, wrap)
            counts.append(int(re.findall(r"Collected : (\d+)", done.stderr)[-1]))
    return (counts[1] - counts[0]) / len(commands)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sources", nargs="+", metavar="SRC")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--callgrind", action="store_true")
    args = parser.parse_args()
    require_corpus("bench_firstsight")
    commands = [row["command"] for name in FILES for row in load(name)]
    width = max(len(s) for s in args.sources)
    if args.callgrind:
        for src in args.sources:
            print(f"{src:<{width}}  {instructions(src, commands):,.0f} instructions per decision")
        return
    print(f"first sight over {len(commands)} lines x {args.rounds} rounds, trees in turn")
    for run in range(args.runs):
        for src in args.sources:
            print(f"run {run + 1}  {src:<{width}}  {timed(src, commands, args.rounds)}",
                  flush=True)


if __name__ == "__main__":
    main()
