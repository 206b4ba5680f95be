"""``policy fuzz`` across seeds and hypothesis versions: the invariants hold for any of them, not
only for the locked version's derandomised run.

    python bench/bench_fuzz_matrix.py [--examples 2000] [--seeds 1-20] [--versions V,V,...]
                                      [--jobs 1]

Each run is ``policy fuzz --examples N`` as a user runs it (a subprocess, the default policy):
once per seed (``--seed S``) with the installed hypothesis, and once per listed hypothesis
version (derandomised, no seed), that version installed from the package registry into a cache
directory (``pip install --no-deps --target``) and put first on ``PYTHONPATH``. It prints one
row per run (exit code, seconds, the first failing invariant's line) and the count of runs that
failed; the exit code is 1 when any did.

Corpora: none; every input is generated.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CACHE = Path(tempfile.gettempdir()) / "clawgate-hypothesis-versions"


def policy_command() -> list[str]:
    script = Path(sys.executable).with_name("policy")
    return [str(script)] if script.exists() else [sys.executable, "-m", "clawgate"]


def seeds(text: str) -> list[int]:
    found: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        found.extend(range(int(low), int(high or low) + 1))
    return found


def installed(version: str) -> Path:
    """A directory holding hypothesis ``version`` alone (its dependencies are the venv's)."""
    target = CACHE / version
    if not (target / "hypothesis").is_dir():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                        "--target", str(target), f"hypothesis=={version}"], check=True)
    return target


def run(label: str, extra: list[str], examples: int, jobs: int,
        pythonpath: Path | None) -> bool:
    env = {**os.environ, "CLAWGATE_STATE_HOME": tempfile.mkdtemp(prefix="clawgate-matrix-")}
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(pythonpath),
                                                          env.get("PYTHONPATH"))))
    start = time.perf_counter()
    done = subprocess.run([*policy_command(), "fuzz", "--examples", str(examples),
                           "--jobs", str(jobs), *extra], env=env, capture_output=True,
                          text=True, check=False)
    seconds = time.perf_counter() - start
    failed = next((line for line in done.stdout.splitlines() if " FAIL " in line), "")
    print(f"{label:<28} exit {done.returncode}  {seconds:6.0f} s  {failed[:100]}", flush=True)
    if done.returncode not in (0, 4):
        print(done.stderr[-2000:], file=sys.stderr)
    return done.returncode == 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--seeds", default="1-20")
    parser.add_argument("--versions", default="",
                        help="hypothesis versions, comma-separated (each derandomised)")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    import hypothesis

    runs, failures = 0, 0
    for seed in seeds(args.seeds) if args.seeds else []:
        runs += 1
        failures += not run(f"seed {seed} (hypothesis {hypothesis.__version__})",
                            ["--seed", str(seed)], args.examples, args.jobs, None)
    for version in filter(None, args.versions.split(",")):
        runs += 1
        failures += not run(f"hypothesis {version}", [], args.examples, args.jobs,
                            installed(version))
    print(f"{runs} runs of {args.examples} examples per invariant, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
