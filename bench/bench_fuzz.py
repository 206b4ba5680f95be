"""The harness's targets, measured.

    python bench/bench_fuzz.py [--examples 2000] [--strings 100000] [--seed 1]

1. ``policy fuzz --examples N`` on the default policy, as a user runs it (a subprocess): wall
   time and exit code. On an engine where an invariant fails, that run stops at the first
   failure to shrink it; the same run with ``--keep-going`` generates all N examples of every
   invariant, which is what a clean run costs.
2. Random byte strings through the checker (UTF-8 with surrogateescape, as ``policy check
   --jsonl`` decodes them): half uniform bytes, half bytes from a shell-flavoured alphabet so
   that the parsers see them. Counts exceptions (there must be none) and the time of each
   check -- wall clock and thread CPU, garbage collector left on -- with median, p99 and max;
   the slowest lines are checked again on a fresh engine to tell a slow input from a pause. A
   check that has not decided after 2 s is interrupted and counted as a hang (some inputs make
   a parser loop without bound; run this under ``ulimit -v``).

Corpora: none; every input is generated (hypothesis strategies, random bytes from ``--seed``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from clawgate.engine import Engine  # noqa: E402
from clawgate.testing.fuzz import warm_up  # noqa: E402
from clawgate.testing.invariants import CheckHung, watchdog  # noqa: E402

HANG_S = 2.0  # a check still running after this is a hang: interrupted and counted
SHELLISH = b"abcxyz019 \t\n'\"`$(){}[]<>|&;*?~!#=\\-/.%^,:@+"


def fuzz_run(examples: int, keep_going: bool) -> tuple[float, int, str]:
    """Wall seconds, exit code and output of ``policy fuzz`` in a fresh interpreter."""
    command = [sys.executable, "-m", "clawgate", "fuzz", "--examples", str(examples)]
    command += ["--keep-going"] if keep_going else []
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    return time.perf_counter() - start, done.returncode, done.stdout


def random_inputs(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for index in range(count):
        size = rng.randrange(0, 257)
        shellish = index % 2 == 1
        raw = bytes(rng.choice(SHELLISH) for _ in range(size)) if shellish else \
            rng.randbytes(size)
        out.append(raw.decode("utf-8", "surrogateescape"))
    return out


def percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def through_checker(lines: list[str]) -> None:
    engine = Engine()
    warm_up(engine)
    wall: list[float] = []
    cpu: list[float] = []
    raised: Counter[str] = Counter()
    hung: list[str] = []
    outcomes: Counter[str] = Counter()
    for line in lines:
        w, c = time.perf_counter_ns(), time.thread_time_ns()
        try:
            with watchdog(HANG_S):
                outcomes[engine.check(line).outcome.label] += 1
        except CheckHung:
            hung.append(line)
        except Exception as exc:  # the target: none
            raised[type(exc).__name__] += 1
        cpu.append((time.thread_time_ns() - c) / 1e6)
        wall.append((time.perf_counter_ns() - w) / 1e6)
    decided = [i for i, line in enumerate(lines) if line not in set(hung)]
    print(f"  every check ({len(lines)}), then the {len(decided)} that decided (no hang):")
    for label, times in (("wall", wall), ("cpu", cpu),
                         ("wall", [wall[i] for i in decided]), ("cpu", [cpu[i] for i in decided])):
        ordered = sorted(times)
        print(f"  {label:<5} median {statistics.median(ordered):7.3f} ms   p99 "
              f"{percentile(ordered, 0.99):7.3f} ms   max {ordered[-1]:7.2f} ms   "
              f"over 50 ms: {sum(t > 50 for t in times)}")
    print(f"  exceptions: {sum(raised.values())} {dict(raised)}   outcomes: {dict(outcomes)}")
    print(f"  hung (no decision within {HANG_S:g} s, interrupted): {len(hung)}")
    for line in hung[:5]:
        print(f"    {line[:70]!r}")
    slowest = sorted(range(len(lines)), key=wall.__getitem__)[-3:]
    for index in reversed(slowest):
        fresh = Engine()
        warm_up(fresh)
        start = time.perf_counter_ns()
        with contextlib.suppress(CheckHung), watchdog(HANG_S):
            fresh.check(lines[index])
        again = (time.perf_counter_ns() - start) / 1e6
        print(f"  slow: {wall[index]:6.2f} ms, again on a fresh engine {again:6.2f} ms: "
              f"{lines[index][:60]!r}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--strings", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-fuzz", action="store_true")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    if not args.skip_fuzz:
        for keep_going in (False, True):
            seconds, code, out = fuzz_run(args.examples, keep_going)
            flag = " --keep-going" if keep_going else ""
            print(f"policy fuzz --examples {args.examples}{flag}: {seconds:.1f} s, exit {code}")
            for line in out.splitlines():
                if not line.startswith("    "):
                    print(f"  {line}")
    if args.strings:
        print(f"{args.strings} random byte strings through the checker (seed {args.seed}):")
        start = time.perf_counter()
        through_checker(random_inputs(args.strings, args.seed))
        print(f"  total {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
