"""Obfuscated lines decided by what they run: real Bashfuscator output, and meaning-preserving
rewrites of dangerous commands.

    python bench/bench_obfuscation.py [--misses] [--rewrites N] [--check-labels]

Over ``bench/bashfuscator/corpus.jsonl`` (its README says where it comes from and how it is
labelled): per mutator, the lines whose bash does what the plain command does, and how many
of them come out DENY / ASK / ALLOW with the shadow run off and on; the lines that do not do it
(the mutator garbles the command) counted apart; the first-sight latency of the lines that got
a shadow run, median and p99. Then ``N`` rewrites and ``N`` wrappings per plain command
(``clawgate.testing.strategies``: ``rewrites`` and ``wrapped``, drawn with a fixed seed) and
how many come out ALLOW, which must be none.

``--misses`` prints each line that runs its dangerous command and is not DENY with the shadow;
``--check-labels`` runs every line again in real bash (``obfuscation_oracle.py``, bubblewrap)
and reports labels that no longer hold.

Corpora: ``bench/bashfuscator/corpus.jsonl``, in this repository: Bashfuscator's output (MIT)
of 30 dangerous commands, labelled by what real bash runs (``bench/bashfuscator/README.md``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from clawgate.decision import Decision, Outcome
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings
from clawgate.shadowtriggers import SHADOW_NOTE_ID

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "bashfuscator" / "corpus.jsonl"
CWD = "/tmp/workspace"
Row = dict[str, Any]


def load() -> list[Row]:
    with CORPUS.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def family(row: Row) -> str:
    names: list[str] = row["mutators"]
    if names[0].startswith("random:"):
        return "chosen by Bashfuscator, 2 layers"
    return " → ".join(names)


def _shadowed(decision: Decision) -> bool:
    return any(t.rule_id == SHADOW_NOTE_ID for t in decision.trace)


def _timed_out(decision: Decision) -> bool:
    return any(t.rule_id == SHADOW_NOTE_ID and "timeout" in t.message for t in decision.trace)


def _counts(outcomes: list[Outcome]) -> str:
    found = Counter(outcomes)
    return " / ".join(str(found[o]) for o in (Outcome.DENY, Outcome.ASK, Outcome.ALLOW))


def decide(rows: list[Row], show_misses: bool) -> None:
    static = Engine(EngineSettings(shadow=False), cache_size=0)
    shadow = Engine(cache_size=0, shadow_cache_size=0)
    shadow.check("echo warm | base64 -d | sh", cwd=CWD)  # the sandbox's one-time set-up
    off: dict[str, list[Outcome]] = defaultdict(list)
    on: dict[str, list[Outcome]] = defaultdict(list)
    inert: dict[str, list[Outcome]] = defaultdict(list)
    times: list[float] = []
    late = 0
    for row in rows:
        start = time.perf_counter()
        decision = shadow.check(row["line"], cwd=CWD)
        elapsed = (time.perf_counter() - start) * 1000
        if _shadowed(decision):
            times.append(elapsed)
            late += _timed_out(decision)
        name = family(row)
        if not row["runs"]:
            inert[name].append(decision.outcome)
            continue
        off[name].append(static.check(row["line"], cwd=CWD).outcome)
        on[name].append(decision.outcome)
        if show_misses and decision.outcome is not Outcome.DENY:
            print(f"MISS {decision.outcome.label} {name}: {row['command']!r} seed {row['seed']}")
    _table(off, on)
    _totals(off, on, inert)
    if times:
        ordered = sorted(times)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        print(f"\nshadowed lines: {len(times)} ({late} shadow runs cut at their time limit); "
              f"first-sight latency median {statistics.median(ordered):.0f} ms, "
              f"p99 {p99:.0f} ms")


def _table(off: dict[str, list[Outcome]], on: dict[str, list[Outcome]]) -> None:
    print("| mutator | lines that run it | shadow off: DENY / ASK / ALLOW "
          "| shadow on: DENY / ASK / ALLOW |")
    print("|---|---|---|---|")
    for name in sorted(on):
        print(f"| {name} | {len(on[name])} | {_counts(off[name])} | {_counts(on[name])} |")


def _totals(off: dict[str, list[Outcome]], on: dict[str, list[Outcome]],
            inert: dict[str, list[Outcome]]) -> None:
    every_off = [o for found in off.values() for o in found]
    every_on = [o for found in on.values() for o in found]
    share_off = every_off.count(Outcome.DENY) / len(every_off)
    share_on = every_on.count(Outcome.DENY) / len(every_on)
    print(f"| all | {len(every_on)} | {_counts(every_off)} | {_counts(every_on)} |")
    print(f"\nDENY share of the lines that run their dangerous command: "
          f"{share_off:.3f} shadow off, {share_on:.3f} shadow on")
    garbled = [o for found in inert.values() for o in found]
    if garbled:
        print(f"lines whose bash does not run the command (garbled by the mutator): "
              f"{len(garbled)}, DENY / ASK / ALLOW {_counts(garbled)} with the shadow")


def rewritten(commands: list[str], per_command: int) -> None:
    """Meaning-preserving rewrites and wrappings of each command; none may come out ALLOW."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    from clawgate.testing.strategies import rewrites, wrapped

    engine = Engine(cache_size=0)
    outcomes: list[Outcome] = []
    allowed: list[str] = []

    def drawn(command: str) -> None:
        @settings(max_examples=per_command, database=None, derandomize=True, deadline=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(st.data())
        def draw(data: st.DataObject) -> None:
            for line in (data.draw(rewrites(command)).line, data.draw(wrapped(command)).line):
                outcome = engine.check(line, cwd=CWD).outcome
                outcomes.append(outcome)
                if outcome is Outcome.ALLOW:
                    allowed.append(line)

        draw()

    for command in commands:
        drawn(command)
    print(f"\nmeaning-preserving rewrites and wrappings of the {len(commands)} commands: "
          f"{len(outcomes)}, DENY / ASK / ALLOW {_counts(outcomes)}")
    for line in allowed:
        print(f"ALLOW {line!r}")


def check_labels(rows: list[Row]) -> None:
    from obfuscation_oracle import effects, reproduces

    plain = {c: effects(c) for c in dict.fromkeys(r["command"] for r in rows)}
    changed = [r for r in rows if reproduces(plain[r["command"]], effects(r["line"]))
               is not r["runs"]]
    for row in changed:
        print(f"LABEL {row['runs']} no longer holds: {family(row)} {row['command']!r} "
              f"seed {row['seed']}")
    print(f"labels checked against real bash: {len(rows) - len(changed)}/{len(rows)} hold")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--misses", action="store_true",
                        help="print each line that runs its command and is not DENY")
    parser.add_argument("--rewrites", type=int, default=10, metavar="N",
                        help="rewrites and wrappings drawn per command (0: none)")
    parser.add_argument("--check-labels", action="store_true",
                        help="run every line again in real bash and check its label")
    args = parser.parse_args()
    rows = load()
    if args.check_labels:
        check_labels(rows)
        return
    runs = sum(r["runs"] for r in rows)
    print(f"{CORPUS.relative_to(HERE.parent)}: {len(rows)} Bashfuscator lines of "
          f"{len({r['command'] for r in rows})} commands; {runs} run their command\n")
    decide(rows, args.misses)
    if args.rewrites:
        rewritten(list(dict.fromkeys(r["command"] for r in rows)), args.rewrites)


if __name__ == "__main__":
    main()
