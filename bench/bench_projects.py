"""A project's setup and test suite on the host, then under ``policy run`` (the default sandbox).

    python bench/bench_projects.py PROJECT_DIR --setup CMD --test CMD
        [--runs N] [--timeout S] [--policy FILE]... [--scratch DIR] [--tail N] [--keep]

PROJECT_DIR is copied twice into a scratch directory (``--scratch``, default a new temporary
directory) so that both runs start from the same clean tree. The host run is ``sh -c CMD`` in
one copy, its toolchain caches (pip, npm, cargo, go, ...) pointed at an empty directory of its
own; the sandboxed run is ``policy run -- CMD`` in the other copy with the layered default
policy and its default executor (``auto``: bubblewrap with the system-call filter and the egress
proxy), its caches in the sandbox's own per-workspace cache under an empty ``XDG_CACHE_HOME``
and its audit log under an empty ``CLAWGATE_STATE_HOME``. Both start cold: every dependency is
downloaded in both runs. The setup runs first, then the test command (each its own
``policy run``), in the same copy.

Printed: per phase, the wall time and exit code each way and the ratio sandbox / host, the
last ``--tail`` lines of each test run's output (where a suite says how many tests passed),
and the connections the sandboxed run made through the egress proxy by host name (from its
audit log). ``--runs N`` repeats the pair N times, fresh copies each time, and prints the
median. A policy's ``executor.max_timeout_s`` bounds ``--timeout`` (default 300 s):
``--policy`` adds a manifest (one that raises ``max_timeout_s`` for a long suite).

Corpora: none. The project is whatever directory is named (nothing is fetched by this
script); the network the commands reach is theirs (through the proxy under the sandbox).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from clawgate.executors.toolchains import cache_env

SRC = Path(__file__).resolve().parent.parent / "src"
POLICY_MAIN = "import sys; from clawgate.cli import main; sys.exit(main(sys.argv[1:]))"


@dataclass(frozen=True)
class Outcome:
    seconds: float
    exit_code: int
    output: str


def run_host(command: str, cwd: Path, caches: Path, timeout: float) -> Outcome:
    """``sh -c command`` in ``cwd``, the toolchains' caches under ``caches``."""
    env = {**os.environ, **cache_env(os.fspath(caches))}
    env.pop("CARGO_HOME")  # the host's own cargo stays where rustup put it; its registry is empty
    return _timed(["sh", "-c", command], cwd, env, timeout)


def run_sandbox(command: str, cwd: Path, scratch: Path, policies: list[str],
                timeout: float) -> Outcome:
    """``policy run --timeout T -- command`` in ``cwd``, with a state and cache home of its own."""
    env = {**os.environ, "CLAWGATE_STATE_HOME": os.fspath(scratch / "state"),
           "XDG_CACHE_HOME": os.fspath(scratch / "cache"),
           "PYTHONPATH": os.pathsep.join(filter(None, [os.fspath(SRC),
                                                      os.environ.get("PYTHONPATH")]))}
    flags = [arg for policy in policies for arg in ("--policy", policy)]
    argv = [sys.executable, "-c", POLICY_MAIN, "run", *flags, "--timeout", f"{timeout:g}",
            "--", command]
    return _timed(argv, cwd, env, timeout + 60)


def _timed(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Outcome:
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, check=False,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or b""
        return Outcome(time.perf_counter() - start, 124, out.decode(errors="replace"))
    return Outcome(time.perf_counter() - start, done.returncode,
                   done.stdout.decode(errors="replace"))


def fresh_copy(project: Path, scratch: Path, name: str) -> Path:
    target = scratch / name / project.name
    shutil.copytree(project, target, symlinks=True)
    return target


def connections(state: Path) -> collections.Counter[str]:
    """host:port -> decision counts of the egress proxy's audit lines under ``state``."""
    seen: collections.Counter[str] = collections.Counter()
    for log in state.glob("audit/*.jsonl"):
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            record = json.loads(line)
            if record.get("tool") == "network":
                args = record["args"]
                seen[f"{args['host']}:{args['port']} {record['decision']['outcome']}"] += 1
    return seen


def one_pair(args: argparse.Namespace, scratch: Path) -> dict[str, tuple[Outcome, Outcome]]:
    """Setup then test on the host, then setup then test in the sandbox."""
    project = Path(args.project).resolve()
    host_dir = fresh_copy(project, scratch, "host")
    sandbox_dir = fresh_copy(project, scratch, "sandbox")
    phases = {"setup": args.setup, "test": args.test}
    host = {name: run_host(cmd, host_dir, scratch / "host-cache", args.timeout)
            for name, cmd in phases.items() if cmd}
    boxed = {name: run_sandbox(cmd, sandbox_dir, scratch, args.policy, args.timeout)
             for name, cmd in phases.items() if cmd}
    return {name: (host[name], boxed[name]) for name in host}


def report(pairs: list[dict[str, tuple[Outcome, Outcome]]], tail: int,
           grep: str | None) -> None:
    print(f"{'phase':<8} {'host s':>9} {'exit':>5} {'sandbox s':>10} {'exit':>5} {'ratio':>7}")
    total_host, total_box = [], []
    for name in pairs[0]:
        host = statistics.median(p[name][0].seconds for p in pairs)
        boxed = statistics.median(p[name][1].seconds for p in pairs)
        codes = (pairs[-1][name][0].exit_code, pairs[-1][name][1].exit_code)
        print(f"{name:<8} {host:9.1f} {codes[0]:5d} {boxed:10.1f} {codes[1]:5d} "
              f"{boxed / host:7.2f}")
        total_host.append(host)
        total_box.append(boxed)
    print(f"{'total':<8} {sum(total_host):9.1f} {'':5} {sum(total_box):10.1f} {'':5} "
          f"{sum(total_box) / sum(total_host):7.2f}")
    last = pairs[-1]
    for name, (host_run, box_run) in last.items():
        if host_run.exit_code or box_run.exit_code or name == "test":
            for label, outcome in (("host", host_run), ("sandbox", box_run)):
                print(f"--- {name} on the {label}: exit {outcome.exit_code}, last lines")
                lines = outcome.output.rstrip().splitlines()
                print("\n".join(lines[-tail:] if tail else []))
                if grep and name == "test":
                    print("\n".join(f"[{grep}] {x}" for x in lines if grep in x))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", help="the project's directory (copied, never changed)")
    parser.add_argument("--setup", default="", help="the setup command (installs)")
    parser.add_argument("--test", required=True, help="the test command")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0, help="per phase, seconds")
    parser.add_argument("--policy", action="append", default=[], help="a manifest for policy run")
    parser.add_argument("--scratch", default=None, help="where the copies go (default: a temp dir)")
    parser.add_argument("--tail", type=int, default=4, help="output lines shown per test run")
    parser.add_argument("--grep", default=None,
                        help="also show the test output's lines that contain this text "
                        "(a suite's summary: 'passed', 'test result')")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-projects-", dir=args.scratch))
    pairs = []
    try:
        for index in range(args.runs):
            scratch = base / f"run{index}"
            scratch.mkdir()
            pairs.append(one_pair(args, scratch))
            if index == args.runs - 1:
                report(pairs, args.tail, args.grep)
                print("--- the sandbox's connections through the egress proxy")
                for key, count in sorted(connections(scratch / "state").items()):
                    print(f"{count:5d}  {key}")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
        else:
            print(f"kept {base}", file=sys.stderr)
    host_ok = all(p[0].exit_code == 0 for p in pairs[-1].values())
    return 0 if host_ok and all(p[1].exit_code == 0 for p in pairs[-1].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
