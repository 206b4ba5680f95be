"""``bench_firstsight.py --parts``: where the first-sight time of a median line and of a p99
line goes, part by part.

In a fresh process (cache off), each line of the latency set with no shadow run is decided
``rounds`` times and ranked by its least CPU time; then the lines ranked 40-60 % (the median
band) and the slowest 2 % (the p99 lines) are decided ``rounds`` times more, in set order, with
a clock around each part of a decision: the parse, the same-line constants (resolution,
respelled commands, stand-in readings, directory moves), the working directory's context (its
filesystem facts re-checked), the raw-text, line and command validators and their dispatch,
the risk tier, the policy step, the text set aside, the combination; what is left is the
engine's own steps (budget, facts recorded, the loops, verdicts and trace entries). Each
part's time, CPU time of the thread (a loaded machine disturbs it least), excludes the parts it
calls. Each clock is a system call (~0.5 µs) and adds to every part, the engine's own steps
most: the shares are the figures, not the sums.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

_PARTS = r"""
import collections, json, sys, time
src, rounds = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, src)
import clawgate.engine as em
commands = json.load(sys.stdin)
engine = em.Engine(cache_size=0)
cpu = clock = time.thread_time_ns  # CPU time: a loaded machine disturbs it least
plain = [c for c in commands if not any(
    t.rule_id == "CG-SHADOW-002" for t in engine.check(c, cwd="/tmp/workspace").trace)]
best = {}
for _ in range(rounds):
    for command in plain:
        start = cpu()
        engine.check(command, cwd="/tmp/workspace")
        spent = cpu() - start
        best[command] = min(best.get(command, spent), spent)
ranked = sorted(plain, key=best.get)
engine_check_outcome = engine.check(plain[0], cwd="/tmp/workspace").outcome
cost, calls, stack = collections.Counter(), collections.Counter(), []
def timed(name, check):
    def run(*args, **named):
        start = clock()
        stack.append(0)
        try:
            return check(*args, **named)
        finally:
            spent = clock() - start
            cost[name] += spent - stack.pop()
            calls[name] += 1
            if stack:
                stack[-1] += spent
    return run
for name, part in (("parse", "parse"), ("resolution", "same-line constants"),
                   ("respelled", "same-line constants"),
                   ("stand_in_readings", "same-line constants"),
                   ("_moved", "same-line constants"), ("risk_of", "risk tier")):
    if hasattr(em, name):
        setattr(em, name, timed(part, getattr(em, name)))
engine._raw_checks = [(v, timed("raw validators", c)) for v, c in engine._raw_checks]
engine._raw_plain = [(v, timed("raw validators", c)) for v, c in engine._raw_plain]
lines = engine._line_dispatch.checks
engine._line_dispatch.checks = timed("line dispatch", lambda parsed, resolve: [
    (v, timed("line validators", c)) for v, c in lines(parsed, resolve)])
choose = engine._dispatch.for_command
engine._dispatch.for_command = timed("command dispatch", lambda cmd, *ctx: [
    (v, timed("command validators", c)) for v, c in choose(cmd, *ctx)])
for name, part in (("_with_policy", "policy step"), ("_combine", "combination"),
                   ("_context", "context (its facts re-checked)"),
                   ("_set_aside", "text set aside"), ("_stand_ins", "stand-in readings judged")):
    setattr(engine, name, timed(part, getattr(engine, name)))
sample = engine.check(plain[0], cwd="/tmp/workspace")
assert sample.outcome is engine_check_outcome, "the instrumented engine decides otherwise"
found = {}
for label, low, high in (("median band (lines ranked 40-60 %)", 0.4, 0.6),
                         ("p99 lines (the slowest 2 %)", 0.98, 1.0)):
    group = ranked[int(len(ranked) * low):int(len(ranked) * high)]
    cost.clear()
    calls.clear()
    total = 0
    for _ in range(rounds):
        for command in plain:
            if command in group:
                start = clock()
                stack.append(0)
                engine.check(command, cwd="/tmp/workspace")
                spent = clock() - start
                cost["the engine's own steps"] += spent - stack.pop()
                total += spent
    found[label] = [len(group), total, [[k, v, calls[k]] for k, v in cost.most_common()]]
json.dump({"lines": len(ranked), "best": [best[c] for c in ranked], "groups": found},
          sys.stdout)
"""


def parts(src: str, commands: list[str], rounds: int) -> list[str]:
    """The rows of ``--parts`` for the tree ``src``."""
    argv = [sys.executable, "-c", _PARTS, src, str(rounds)]
    done = subprocess.run(argv, input=json.dumps(commands), capture_output=True, text=True,
                          env={**os.environ, "PYTHONHASHSEED": "0"}, check=False)
    if done.returncode:
        sys.exit(f"{src}: the measuring process failed:\n{done.stderr}")
    found = json.loads(done.stdout)
    best = found["best"]
    rows = [f"{src}: {found['lines']} lines with no shadow run, CPU time, each line's least: "
            f"median {best[len(best) // 2] / 1000:.1f} µs, p99 "
            f"{best[min(len(best) - 1, int(len(best) * 0.99))] / 1000:.1f} µs"]
    for label, (count, total, shares) in found["groups"].items():
        decisions = count * rounds
        rows.append(f"  {label}: {count} lines, {total / decisions / 1000:.1f} µs a decision "
                    "with the clocks")
        for name, spent, made in shares:
            rows.append(f"    {spent / total * 100:5.1f} %  {spent / decisions / 1000:7.1f} µs"
                        f"  {made / decisions:6.1f} calls  {name}")
    return rows
