"""Time of the checker on pathological and random lines: the bounds tests/test_bounds.py used
to assert with a clock (< 1 s of CPU a line), measured here instead.

    python bench/bench_bounds.py [--rounds 5] [--random 300] [--seed 1]

For each pathological line (a megabyte of one word, ten thousand nested ``$(``, twenty
thousand pipes, ...) the thread CPU time and the wall time of a check on an engine without a
cache, over ``--rounds`` rounds: median and p99 (the largest of few rounds). Then the same over
``--random`` random strings (printable text, shell punctuation, bytes decoded as
``policy check --jsonl`` does). Target: every line under 1 s of CPU. The tests bound the same
lines by counting the work (Python calls), which a loaded machine does not change; each check
also runs under the engine's own budget (``clawgate/bounds.py``), past which it is DENY.

Corpora: none; the lines are written here and generated from ``--seed``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from clawgate.engine import Engine

PATHOLOGICAL = {
    "1 MB word": "echo " + "a" * 1_000_000,
    "10k nested $( )": "echo $(" * 10_000 + "x" + ")" * 10_000,
    "10k open $(": "echo $(" * 10_000,
    "20k pipes": "ls | " * 20_000 + "ls",
    "5k open quotes": 'echo "' * 5_000,
    "50k &&": "a && " * 50_000 + "b",
    "10k braces": "{" * 10_000,
    "1 MiB then !": "x" * (1 << 20) + "!",
    "100 kB of sed -e": "sed " + " ".join(f"-e 's/a{i}/b/'" for i in range(7_200)),
    "sed, 2,000 newlines": "sed '" + "\n" * 2_000 + "p' notes.txt",
    "22 doublings of $x": "x=a; " + "x=$x$x; " * 22 + "echo $x",
    "400 words of a 60 kB $x": f"x={'a' * 60_000}; echo " + "$x " * 400,
}
SHELLISH = "ab $(){}[]<>|&;'\"`\\#!*?~=\n\t-/.0"


def timed(engine: Engine, line: str) -> tuple[float, float]:
    """(thread CPU ms, wall ms) of one check."""
    cpu, wall = time.thread_time(), time.perf_counter()
    engine.check(line)
    return (time.thread_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def row(name: str, samples: list[tuple[float, float]]) -> str:
    cpu = [c for c, _ in samples]
    wall = [w for _, w in samples]
    return (f"| {name} | {statistics.median(cpu):.1f} | {p99(cpu):.1f} | "
            f"{statistics.median(wall):.1f} | {p99(wall):.1f} |")


def random_lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for n in range(count):
        size = rng.randrange(200)
        if n % 3 == 0:
            lines.append("".join(chr(rng.randrange(32, 0x3000)) for _ in range(size)))
        elif n % 3 == 1:
            lines.append("".join(rng.choice(SHELLISH) for _ in range(size)))
        else:
            lines.append(rng.randbytes(size).decode("utf-8", "surrogateescape"))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--random", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    engine = Engine(cache_size=0)
    engine.check("echo `ls` $(cat x) {a,b} # warm-up: imports are not a line's time")
    print("| line | CPU median ms | CPU p99 ms | wall median ms | wall p99 ms |")
    print("|---|---|---|---|---|")
    worst = 0.0
    for name, line in PATHOLOGICAL.items():
        samples = [timed(engine, line) for _ in range(args.rounds)]
        worst = max([worst, *(c for c, _ in samples)])
        print(row(name, samples))
    samples = [timed(engine, line) for line in random_lines(args.random, args.seed)]
    worst = max([worst, *(c for c, _ in samples)])
    print(row(f"{args.random} random strings", samples))
    print(f"slowest check: {worst:.1f} ms of CPU (target: under 1000 ms)")


if __name__ == "__main__":
    main()
