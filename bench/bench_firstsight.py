"""First-sight decision latency of several source trees, measured in turn on the same machine.

    python bench/bench_firstsight.py [--runs N] [--rounds N] [--peer FILE[:FUNC]] [--callgrind]
                                     [--slowest N] [--parts] [--match REGEX] SRC [SRC ...]

Each SRC is a ``src`` directory (this checkout's, or an older commit's unpacked with
``git archive COMMIT | tar -x -C /tmp/base``). The trees take turns, ``--runs`` times, each run
a fresh process deciding the latency set (benign, escapes, injections) ``--rounds`` times with
the engine's cache off, as ``bench_decisions.py`` does: median and p99 of all samples, of each
line's fastest round, and of the lines no shadow run was made for (the shadow run is bash in a
sandbox; ``bench_decisions.py`` times its lines apart). On a loaded machine only figures taken
in turn compare.

``--peer FILE[:FUNC]``: another checker's entry point, a function of one command string in a
Python file that is not part of this repository (e.g. Claw Code Agent's
``src/bash_security.py``, whose ``check_shell_security``, the default FUNC, runs its validators
and its destructive-command patterns). The process that timed a tree then times the peer on
the same lines, warm-up and rounds; the row gives clawgate's median as a multiple of the
peer's.

``--callgrind``: instead, instructions per decision under ``valgrind --tool=callgrind``: one
pass over the set after a warm-up pass, counted only inside the ``functools.reduce`` that runs
it (independent of load; start-up and warm-up left out, in one process, so two runs of a tree
agree within about 0.2 %; the difference of two processes' counts, as measured before,
carried whatever their start-ups did differently).
The bashlex deadline's timer signal is left out there (valgrind is ~50× slower than the
deadline assumes).

``--slowest N``: instead, the N slowest lines with no shadow run (each line's least CPU time of
the process over ``--rounds`` rounds: a loaded machine disturbs it least) and, for each, where
that time goes: the parse, the same-line resolution, the policy step and each validator, the
eight costliest (one more decision, timed part by part; the parts' timers add a little).

``--parts``: instead, where the time of the median band (lines ranked 40-60 %) and of the
slowest 2 % goes, part by part: parse, same-line constants, context, validators and their
dispatch, risk tier, policy step, combination, the engine's own steps
(``firstsight_parts.py``).

``--match REGEX``: only the lines of the set that the pattern finds (``re.search``), e.g. the
here-document, function-definition, ``jjs``/``tclsh`` and ``sleep(5)`` lines that set the p99
(``--match '<<|\\(\\) \\{|^(jjs|tclsh)\\b|sleep\\(5\\)'``: 44 lines), to count or list them apart.

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
from firstsight_parts import parts as parts_of

_CHILD = r"""
import contextlib, importlib.util, json, sys, time
src, rounds, passes, peer = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, src)
from clawgate.engine import Engine
commands = json.load(sys.stdin)
engine = Engine(cache_size=0)
if passes >= 0:  # under callgrind: the warm-up, then `passes` passes counted
    import functools, gc
    import clawgate.shell.differential as differential
    differential._deadline = lambda seconds: contextlib.nullcontext()
    for command in commands:
        engine.check(command, cwd="/tmp/workspace")
    gc.collect()
    for _ in range(passes):  # callgrind counts only inside functools.reduce
        functools.reduce(lambda n, c: (engine.check(c, cwd="/tmp/workspace"), n)[1],
                         commands, 0)
    sys.exit(0)
shadowed = set()
def ours(command):
    decision = engine.check(command, cwd="/tmp/workspace")
    if any(t.rule_id == "CG-SHADOW-002" for t in decision.trace):  # a shadow run's note
        shadowed.add(command)
def timed(check):
    for command in commands[:50]:
        check(command)
    times = []
    for _ in range(rounds):
        for command in commands:
            start = time.perf_counter_ns()
            check(command)
            times.append((time.perf_counter_ns() - start) / 1000)
    return times
found = {"clawgate": timed(ours)}
found["shadowed"] = [c in shadowed for c in commands]
if peer:
    path, _, name = peer.partition(":")
    spec = importlib.util.spec_from_file_location("peer_checker", path)
    module = sys.modules["peer_checker"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found["peer"] = timed(getattr(module, name or "check_shell_security"))
json.dump(found, sys.stdout)
"""


_STAGES = r"""
import collections, json, sys, time
src, rounds, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, src)
import clawgate.engine as engine_module
commands = json.load(sys.stdin)
engine = engine_module.Engine(cache_size=0)
clock = time.thread_time_ns
shadowed = set()
for command in commands:
    if any(t.rule_id == "CG-SHADOW-002" for t in engine.check(command, cwd="/tmp/workspace").trace):
        shadowed.add(command)
best = {}
for _ in range(rounds):
    for command in commands:
        if command not in shadowed:
            start = clock()
            engine.check(command, cwd="/tmp/workspace")
            spent = clock() - start
            best[command] = min(best.get(command, spent), spent)
cost = collections.Counter()
def timed(name, check):
    def run(*args):
        start = clock()
        try:
            return check(*args)
        finally:
            cost[name] += clock() - start
    return run
engine._raw_checks = [(v, timed(v.id, c)) for v, c in engine._raw_checks]
if hasattr(engine, "_line_dispatch"):  # line validators chosen by the line's shape
    choose_lines = engine._line_dispatch.checks
    engine._line_dispatch.checks = lambda parsed, resolve: [
        (v, timed(v.id, c)) for v, c in choose_lines(parsed, resolve)]
else:  # an older tree: every line validator for every line
    engine._line_checks_all = [(v, timed(v.id, c)) for v, c in engine._line_checks_all]
    engine._resolved_checks = [(v, timed(v.id, c)) for v, c in engine._resolved_checks]
for name in ("parse", "resolution", "respelled"):
    setattr(engine_module, name, timed(name, getattr(engine_module, name)))
engine._with_policy = timed("policy", engine._with_policy)
choose = engine._dispatch.for_command
engine._dispatch.for_command = lambda cmd, *ctx: [(v, timed(v.id, c)) for v, c in choose(cmd, *ctx)]
rows = []
for command in sorted(best, key=best.get, reverse=True)[:count]:
    cost.clear()
    engine.check(command, cwd="/tmp/workspace")
    rows.append([command, best[command] / 1000,
                 [[k, v / 1000] for k, v in cost.most_common(8)]])
ordered = sorted(best.values())
json.dump({"lines": len(ordered), "median": ordered[len(ordered) // 2] / 1000,
           "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] / 1000,
           "rows": rows}, sys.stdout)
"""


def slowest(src: str, commands: list[str], rounds: int, count: int) -> list[str]:
    """The ``count`` slowest lines with no shadow run, each with its costliest parts."""
    argv = [sys.executable, "-c", _STAGES, src, str(rounds), str(count)]
    done = subprocess.run(argv, input=json.dumps(commands), capture_output=True, text=True,
                          env={**os.environ, "PYTHONHASHSEED": "0"}, check=False)
    if done.returncode:
        sys.exit(f"{src}: the measuring process failed:\n{done.stderr}")
    found = json.loads(done.stdout)
    rows = [f"{src}: {found['lines']} lines with no shadow run, CPU time, each line's least: "
            f"median {found['median']:.1f} µs, p99 {found['p99'] / 1000:.2f} ms"]
    for command, least, parts in found["rows"]:
        rows.append(f"  {least:7.0f} µs  {command[:90]!r}")
        rows.append("           " + ", ".join(f"{name} {spent:.0f}" for name, spent in parts))
    return rows


def _child(src: str, commands: list[str], rounds: int, passes: int,
           wrap: list[str] | None = None, peer: str = "") -> subprocess.CompletedProcess[str]:
    argv = [*(wrap or []), sys.executable, "-c", _CHILD, src, str(rounds), str(passes), peer]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(argv, input=json.dumps(commands), capture_output=True, text=True,
                          env=env, check=False)
    if done.returncode:
        sys.exit(f"{src}: the measuring process failed:\n{done.stderr}")
    return done


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def _figures(times: list[float], lines: int) -> str:
    best = [min(times[i::lines]) for i in range(lines)]
    return (f"median {statistics.median(times):6.1f} µs  p99 {_p99(times) / 1000:6.2f} ms  |  "
            f"best round: median {statistics.median(best):6.1f} µs  p99 "
            f"{_p99(best) / 1000:5.2f} ms")


def timed(src: str, commands: list[str], rounds: int, peer: str = "") -> list[str]:
    """The run's rows: the tree's figures, then the peer's when one is given."""
    found = json.loads(_child(src, commands, rounds, -1, peer=peer).stdout)
    ours: list[float] = found["clawgate"]
    marks = found["shadowed"] * rounds
    static = [t for t, hit in zip(ours, marks, strict=True) if not hit]
    lines = len(static) // rounds
    rows = [f"{_figures(ours, len(commands))}  |  not shadowed ({lines} lines): "
            f"{_figures(static, lines)}"]
    if peer:
        theirs: list[float] = found["peer"]
        ratio = statistics.median(ours) / statistics.median(theirs)
        rows.append(f"peer {Path(peer.partition(':')[0]).name}, same process: "
                    f"{_figures(theirs, len(commands))}  |  clawgate's median {ratio:4.2f}x")
    return rows


def instructions(src: str, commands: list[str]) -> float:
    """Instructions per decision of one pass after the warm-up, counted only inside the
    ``functools.reduce`` that runs it (start-up and warm-up left out, in one process: two runs
    of a tree agree within about 0.2 %)."""
    with tempfile.TemporaryDirectory() as tmp:
        wrap = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
                "--toggle-collect=functools_reduce", f"--callgrind-out-file={tmp}/out"]
        done = _child(src, commands, 1, 1, wrap)
    counted = int(re.findall(r"Collected : (\d+)", done.stderr)[-1])
    if not counted:
        sys.exit("callgrind counted nothing: this Python's libpython has no functools_reduce "
                 "symbol to toggle on")
    return counted / len(commands)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sources", nargs="+", metavar="SRC")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--slowest", type=int, default=0, metavar="N",
                        help="the N slowest lines with no shadow run, and where their time goes")
    parser.add_argument("--parts", action="store_true",
                        help="where the time of a median and of a p99 line goes, part by part")
    parser.add_argument("--peer", default="", metavar="FILE[:FUNC]",
                        help="time another checker's function in the same processes")
    parser.add_argument("--match", default="", metavar="REGEX",
                        help="only the lines of the set the pattern finds (re.search)")
    args = parser.parse_args()
    require_corpus("bench_firstsight")
    commands = [row["command"] for name in FILES for row in load(name)]
    if args.match:
        commands = [c for c in commands if re.search(args.match, c)]
        if not commands:
            sys.exit(f"--match {args.match!r}: no line of the set matches")
    width = max(len(s) for s in args.sources)
    if args.slowest:
        for src in args.sources:
            print("\n".join(slowest(src, commands, args.rounds, args.slowest)), flush=True)
        return
    if args.parts:
        for src in args.sources:
            print("\n".join(parts_of(src, commands, args.rounds)), flush=True)
        return
    if args.callgrind:
        for src in args.sources:
            print(f"{src:<{width}}  {instructions(src, commands):,.0f} instructions per decision")
        return
    print(f"first sight over {len(commands)} lines x {args.rounds} rounds, trees in turn")
    for run in range(args.runs):
        for src in args.sources:
            rows = timed(src, commands, args.rounds, args.peer)
            print(f"run {run + 1}  {src:<{width}}  {rows[0]}", flush=True)
            for row in rows[1:]:
                print(f"       {'':<{width}}  {row}", flush=True)


if __name__ == "__main__":
    main()
