"""The resident decider: wall time per call as an agent's hook feels it, against a bare start
of the same interpreter, measured in one interleaved run.

    python bench/bench_daemon.py [--runs N]

Rows: ``python -c pass`` (the reference), ``policy check "git status"`` and ``policy hook
claude-code`` (one Bash call) with the decider warm, the same with ``--no-daemon`` (in process,
as without a decider), and a cold call (no decider yet: it decides in process and starts one).
Each round runs every row once, in turn, so load on the machine falls on all rows alike; the
figures are the median, p99 and fastest wall times and the ratio of the medians and p99s to the
reference. The decider runs under a private state directory and is stopped (by its pid) at the
end.

Corpora: none (one fixed command line and one fixed hook input).
"""

from __future__ import annotations

import argparse
import json
import os
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


def run_once(argv: list[str], env: dict[str, str], stdin: bytes) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, input=stdin, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def decider_pid(env: dict[str, str]) -> int | None:
    done = subprocess.run([*policy_command(), "daemon", "status", "--json"], env=env,
                          capture_output=True, text=True, check=False)
    pid = json.loads(done.stdout or "{}").get("pid")
    return pid if isinstance(pid, int) else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
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
        "hook claude-code, in process": ([*policy, "hook", "claude-code", "--no-daemon"], hook),
    }
    subprocess.run([*policy, "daemon", "start"], env=env, check=True,
                   stderr=subprocess.DEVNULL)
    times: dict[str, list[float]] = {name: [] for name in rows}
    try:
        for argv, stdin in rows.values():  # warm-up: bytecode, page cache
            run_once(argv, env, stdin)
        for _ in range(args.runs):
            for name, (argv, stdin) in rows.items():
                times[name].append(run_once(argv, env, stdin))
        times["hook claude-code, cold (no decider)"] = cold(policy, hook, home, args.runs // 4)
    finally:
        pid = decider_pid(env)
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
    report(times)
    shutil.rmtree(home, ignore_errors=True)


def cold(policy: list[str], hook: bytes, home: Path, runs: int) -> list[float]:
    """A hook call that finds no decider: each under a fresh state directory; the decider it
    starts is stopped before the next."""
    found = []
    for number in range(max(runs, 3)):
        env = {**os.environ, "CLAWGATE_STATE_HOME": str(home / f"cold{number}")}
        env.pop("CLAWGATE_NO_DAEMON", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        found.append(run_once([*policy, "hook", "claude-code"], env, hook))
        for _ in range(600):  # until the started decider listens, then stop it
            pid = decider_pid(env)
            if pid is not None:
                os.kill(pid, signal.SIGTERM)
                break
            time.sleep(0.05)
    return found


def report(times: dict[str, list[float]]) -> None:
    base = times["python -c pass (reference)"]
    for name, found in times.items():
        found.sort()
        median, p99 = statistics.median(found), p99_of(found)
        print(f"{name:<38} median {median:7.1f} ms ({median / statistics.median(base):4.1f}x)"
              f"   p99 {p99:7.1f} ms ({p99 / p99_of(sorted(base)):4.1f}x)"
              f"   fastest {found[0]:6.1f} ms")


def p99_of(times: list[float]) -> float:
    return times[min(len(times) - 1, int(len(times) * 0.99))]


if __name__ == "__main__":
    main()
