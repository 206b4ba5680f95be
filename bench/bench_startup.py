"""CLI start-up: ``policy check "git status"`` against a bare interpreter start.

    python bench/bench_startup.py [--runs N]

Runs each command N times (after warm-up runs that also fill the bytecode cache, as an
installed wheel has) and prints the median, p99 and fastest wall time, and the median CPU time
(user + system) of the child: on a loaded machine the fastest run and the CPU time are the
figures the load disturbs least. ``policy`` is the console script
next to this interpreter when installed (then the installed package is measured), else
``python -m clawgate`` with this checkout's ``src`` on the path. ``policy --version`` shows what
a subcommand that goes through click (the group, no policy loaded) costs to start.

Corpora: none (one fixed command line).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(argv: list[str], runs: int, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """Sorted wall times and sorted CPU times (user + system, of the child), in ms."""
    for _ in range(3):
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
    walls, cpus = [], []
    for _ in range(runs):
        start = time.perf_counter()
        child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(child.pid, 0)
        walls.append((time.perf_counter() - start) * 1000)
        cpus.append((usage.ru_utime + usage.ru_stime) * 1000)
        child.returncode = 0  # reaped by wait4
    return sorted(walls), sorted(cpus)


def resolved_python3() -> str:
    """The interpreter ``python3`` on PATH runs, past version-manager shims (pyenv's shim is a
    shell script that would add its own start-up to the baseline)."""
    found = shutil.which("python3") or "python3"
    done = subprocess.run([found, "-c", "import sys; print(sys.executable)"],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip() or found


def policy_command() -> list[str]:
    script = Path(sys.executable).with_name("policy")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "clawgate"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed wheel ships compiled bytecode
    if len(policy_command()) > 1:  # no console script: this checkout's sources
        env["PYTHONPATH"] = str(ROOT / "src")
    else:  # the installed package, as its users run it
        env.pop("PYTHONPATH", None)
    system = resolved_python3()
    rows = {
        "python3 -c pass (PATH)": [system, "-c", "pass"],
        "this interpreter -c pass": [sys.executable, "-c", "pass"],
        'policy check "git status"': [*policy_command(), "check", "git status"],
        "policy --version (click)": [*policy_command(), "--version"],
    }
    found = {name: timed(argv, args.runs, env) for name, argv in rows.items()}
    for name, (walls, cpus) in found.items():
        print(f"{name:<28} median {statistics.median(walls):6.1f} ms   p99 {_p99(walls):6.1f} ms"
              f"   fastest {walls[0]:6.1f} ms   CPU median {statistics.median(cpus):6.1f} ms")
    check = found['policy check "git status"']
    for base in ("python3 -c pass (PATH)", "this interpreter -c pass"):
        wall = statistics.median(check[0]) / statistics.median(found[base][0])
        cpu = statistics.median(check[1]) / statistics.median(found[base][1])
        print(f"ratio to {base}: {wall:.2f}x (CPU {cpu:.2f}x)")


def _p99(times: list[float]) -> float:
    return times[min(len(times) - 1, int(len(times) * 0.99))]


if __name__ == "__main__":
    main()
