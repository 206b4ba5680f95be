"""The resident decider: wall time per call as an agent's hook feels it, against a bare start
of the same interpreter, measured in one interleaved run.

    python bench/bench_daemon.py [--runs N] [--warm-only]

Rows: ``python -c pass`` (the reference), ``policy check "git status"`` and ``policy hook
claude-code`` (one Bash call) with the decider warm, the hook as ``policy hook install`` writes
it (this Python, ``-P`` and the package's ``__main__.py``) with the decider warm, the same with
``--no-daemon`` (in process, as without a decider), and a cold call (no decider yet: it
decides in process and starts one). Each round runs every row once, in turn, so load on the
machine falls on all rows alike; the figures are the median, p99 and fastest wall times, the
ratio of the medians and p99s to the reference, and the median CPU time (user + system) of
the calling process, which load disturbs far less than wall time (the decider's own share is
not in it). The decider runs under a private state directory and is stopped (by its pid) at
the end.

Corpora: none (one fixed command line and one fixed hook input).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HOOK_INPUT = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "bench",
              "tool_input": {"command": "git status"}}


def policy_command() -> list[str]:
    script = Path(sys.executable).with_name("policy")
    return [str(script)] if script.exists() else [sys.executable, "-m", "clawgate"]


def run_once(argv: list[str], env: dict[str, str], stdin: bytes) -> tuple[float, float]:
    """(wall ms, CPU ms of the process and what it waited for) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, input=stdin, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def installed_hook() -> list[str]:
    """The hook's program as ``policy hook install`` writes it."""
    from clawgate.integrations.install import program_words

    return program_words()


def decider_pid(env: dict[str, str]) -> int | None:
    done = subprocess.run([*policy_command(), "daemon", "status", "--json"], env=env,
                          capture_output=True, text=True, check=False)
    pid = json.loads(done.stdout or "{}").get("pid")
    return pid if isinstance(pid, int) else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--warm-only", action="store_true",
                        help="Only the reference and the rows with the decider warm (quicker "
                        "A/B runs in turn).")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="clawgate-bench-daemon-"))
    workspace = home / "ws"
    workspace.mkdir()
    env = {**os.environ, "CLAWGATE_STATE_HOME": str(home / "state")}
    env.pop("CLAWGATE_NO_DAEMON", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed wheel ships compiled bytecode
    hook = json.dumps({**HOOK_INPUT, "cwd": str(workspace)}).encode()
    policy = policy_command()
    rows: dict[str, tuple[list[str], bytes]] = {
        "python -c pass (reference)": ([sys.executable, "-c", "pass"], b""),
        'check "git status", decider warm': ([*policy, "check", "git status"], b""),
        'check "git status", in process': ([*policy, "check", "--no-daemon", "git status"], b""),
        "hook claude-code, decider warm": ([*policy, "hook", "claude-code"], hook),
        "hook as installed, decider warm": ([*installed_hook(), "hook", "claude-code"], hook),
        "hook claude-code, in process": ([*policy, "hook", "claude-code", "--no-daemon"], hook),
    }
    if args.warm_only:
        rows = {name: row for name, row in rows.items() if "in process" not in name}
    subprocess.run([*policy, "daemon", "start"], env=env, check=True,
                   stderr=subprocess.DEVNULL)
    load_before = f"{os.getloadavg()[0]:.2f}"
    times: dict[str, list[float]] = {name: [] for name in rows}
    cpu: dict[str, list[float]] = {name: [] for name in rows}
    try:
        for argv, stdin in rows.values():  # warm-up: bytecode, page cache
            run_once(argv, env, stdin)
        for _ in range(args.runs):
            for name, (argv, stdin) in rows.items():
                wall, used = run_once(argv, env, stdin)
                times[name].append(wall)
                cpu[name].append(used)
        if not args.warm_only:
            name = "hook claude-code, cold (no decider)"
            times[name], cpu[name] = cold(policy, hook, home, args.runs // 4)
    finally:
        pid = decider_pid(env)
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
    print(f"load average before and after: {load_before} / {os.getloadavg()[0]:.2f}")
    report(times, cpu)
    shutil.rmtree(home, ignore_errors=True)


def cold(policy: list[str], hook: bytes, home: Path, runs: int
         ) -> tuple[list[float], list[float]]:
    """A hook call that finds no decider: each under a fresh state directory; the decider it
    starts is stopped before the next."""
    found, used = [], []
    for number in range(max(runs, 3)):
        env = {**os.environ, "CLAWGATE_STATE_HOME": str(home / f"cold{number}")}
        env.pop("CLAWGATE_NO_DAEMON", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        wall, cpu = run_once([*policy, "hook", "claude-code"], env, hook)
        found.append(wall)
        used.append(cpu)
        for _ in range(600):  # until the started decider listens, then stop it
            pid = decider_pid(env)
            if pid is not None:
                os.kill(pid, signal.SIGTERM)
                break
            time.sleep(0.05)
    return found, used


def report(times: dict[str, list[float]], cpu: dict[str, list[float]]) -> None:
    base = times["python -c pass (reference)"]
    base_cpu = statistics.median(cpu["python -c pass (reference)"])
    for name, found in times.items():
        found.sort()
        median, p99 = statistics.median(found), p99_of(found)
        used = statistics.median(cpu[name])
        print(f"{name:<38} median {median:7.1f} ms ({median / statistics.median(base):4.2f}x)"
              f"   p99 {p99:7.1f} ms ({p99 / p99_of(sorted(base)):4.2f}x)"
              f"   fastest {found[0]:6.1f} ms   cpu {used:6.1f} ms ({used / base_cpu:4.2f}x)")


def p99_of(times: list[float]) -> float:
    return times[min(len(times) - 1, int(len(times) * 0.99))]


if __name__ == "__main__":
    main()
