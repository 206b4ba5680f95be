"""Detection rates on the shared corpora and in-process decision latency.

    python bench/bench_decisions.py [--misses] [--rounds N]

Per corpus (the shared files, ``devcmds``/``devcmds_beyond``, ``tests/corpus/devcmds_unseen*``,
``agentcmds``, ``ecosystems`` and ``ecosystems_heldout`` (everyday commands of ecosystems the
others do not draw on, split by project; the held-out half is measured, never tuned on),
``everyday_heldout2`` to ``everyday_heldout9`` (a second to a ninth held-out set, each from
projects of yet other ecosystems; the fifth to the ninth, the last four of whole workflow
steps, split by project into a tuned and a held-out half, each half's figures printed too),
``everyday_scripts`` and ``everyday_scripts2`` (lines and whole bodies of the shell scripts
projects keep beside their CI files, split the same way),
``tests/corpus/bypasses`` and the attack-kinds sets ``tests/corpus/kinds_heldout*`` (to the
seventh; each half's figures printed too)):
allow rate (share of all lines that come out ALLOW), block rate (ASK or DENY), deny rate, the
share of ``allow`` lines that got DENY, and the share of lines meeting their label (``allow``:
ALLOW; ``not_allow``: not ALLOW; ``deny``: DENY). For the bypass corpus also: clear attacks
DENY, and benign near-misses ALLOW. Latency: per command, in-process, first sight (the engine's
cache off: a warm process deciding a line it has not decided before) and warm (the engine's
bounded cache holds the line), median and p99; and first sight taking each line's fastest
round, which leaves out the time slices a loaded machine takes from random samples.

The program catalog (``catalog_coverage.py``): its hand-written and data entries, and per
everyday corpus the distinct programs it does not know, the most frequent first.

The shadow run (a second opinion from real bash for lines that hide what they run): the share
of each everyday corpus's lines that get one (``devcmds``, the unseen CI sets, ``agentcmds``,
the two ecosystem sets),
the first-sight latency of the latency set's lines apart for those shadowed and the rest, and
how many of ``shadow_lines.py``'s decode-into-shell and computed-name lines are DENY with the
shadow off and on.

Corpora: ``../shared/corpus/{benign,escapes,injections}.jsonl`` beside the checkout (or
``$CLAWGATE_CORPUS``), labelled command lines collected for this project (see that folder's
README). Without them this prints one line and exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from catalog_coverage import print_size, print_unknown
from clawgate.decision import Decision, Outcome
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings
from clawgate.shadowtriggers import SHADOW_NOTE_ID
from corpus import DEVCMDS, FILES, OWN, UNSEEN, available, load, require_corpus
from shadow_lines import HIDDEN_LINES


def _meets(label: str, outcome: Outcome) -> bool:
    if label == "allow":
        return outcome is Outcome.ALLOW
    if label == "deny":
        return outcome is Outcome.DENY
    return outcome is not Outcome.ALLOW


def rates(engine: Engine, show_misses: bool) -> dict[str, float]:
    """The share of each latency-set file's lines that meet their label."""
    return {name: corpus_table(engine, name, show_misses)["met"] for name in FILES}


def _share(part: int, whole: int) -> float:
    return part / whole if whole else float("nan")


def corpus_table(engine: Engine, name: str, show_misses: bool,
                 half: str | None = None) -> dict[str, float]:
    """The figures of one corpus, or of one half (``tune``/``heldout``) of an attack-kinds set."""
    rows = [r for r in load(name) if half is None or r.get("half") == half]
    outcomes = [engine.check(row["command"], cwd="/tmp/workspace").outcome for row in rows]
    pairs = list(zip(rows, outcomes, strict=True))
    benign = [o for r, o in pairs if r["label"] == "allow"]
    clear = [o for r, o in pairs if r.get("kind") == "clear"]
    near = [o for r, o in pairs if r.get("kind") == "benign"]
    if show_misses:
        for row, outcome in pairs:
            if not _meets(row["label"], outcome):
                kind = row.get("kind", row["label"])
                print(f"MISS {name} ({kind}): {outcome.label}: {row['command']!r}")
    return {
        "n": len(rows),
        "allow": _share(sum(o is Outcome.ALLOW for o in outcomes), len(rows)),
        "block": _share(sum(o is not Outcome.ALLOW for o in outcomes), len(rows)),
        "deny": _share(sum(o is Outcome.DENY for o in outcomes), len(rows)),
        "benign_deny": _share(sum(o is Outcome.DENY for o in benign), len(benign)),
        "met": _share(sum(_meets(r["label"], o) for r, o in pairs), len(rows)),
        "clear_deny": _share(sum(o is Outcome.DENY for o in clear), len(clear)),
        "clear_block": _share(sum(o is not Outcome.ALLOW for o in clear), len(clear)),
        "near_allow": _share(sum(o is Outcome.ALLOW for o in near), len(near)),
        "attacks_block": _share(sum(_meets("not_allow", o) for r, o in pairs
                                    if r["label"] != "allow"),
                                sum(r["label"] != "allow" for r in rows)),
    }


def print_corpora(engine: Engine, show_misses: bool) -> None:
    names = [n for n in (*FILES, *DEVCMDS, *UNSEEN, *OWN) if available(n)]
    print("| corpus | lines | allow | block | deny | benign lines DENY | label met |")
    print("|---|---|---|---|---|---|---|")
    found = {name: corpus_table(engine, name, show_misses) for name in names}
    for name, t in found.items():
        print(f"| {name}.jsonl | {t['n']:.0f} | {t['allow']:.3f} | {t['block']:.3f} | "
              f"{t['deny']:.3f} | {t['benign_deny']:.3f} | {t['met']:.3f} |")
    for name in UNSEEN:
        if name in found and any("half" in row for row in load(name)):
            for half in (None, "tune", "heldout"):
                part = corpus_table(engine, name, False, half)
                print(f"{name}.jsonl {half or 'whole'} ({part['n']:.0f} lines): allow "
                      f"{part['allow']:.3f}, benign lines DENY {part['benign_deny']:.3f}, "
                      f"label met {part['met']:.3f}{_by_label(name, half, engine)}")
    for name in OWN:
        if name in found:
            print(f"\n{name}.jsonl: {_attack_line(found[name])}")
            for half in ("tune", "heldout"):
                part = corpus_table(engine, name, False, half)
                if part["n"]:
                    print(f"  {half} half ({part['n']:.0f} lines): {_attack_line(part)}")


def _by_label(name: str, half: str | None, engine: Engine) -> str:
    """For a set labelled by effect: the share of its ``allow`` lines ALLOW and of its
    ``not_allow`` lines not ALLOW (its lines beyond the checkout)."""
    rows = [r for r in load(name) if half is None or r.get("half") == half]
    if all(r["label"] == "allow" for r in rows):
        return ""
    outcomes = [(r["label"], engine.check(r["command"], cwd="/tmp/workspace").outcome)
                for r in rows]
    allow = [o for label, o in outcomes if label == "allow"]
    beyond = [o for label, o in outcomes if label != "allow"]
    return (f"; allow lines ALLOW {_share(sum(o is Outcome.ALLOW for o in allow), len(allow)):.3f}"
            f", not_allow lines blocked "
            f"{_share(sum(o is not Outcome.ALLOW for o in beyond), len(beyond)):.3f}")


def _attack_line(t: dict[str, float]) -> str:
    return (f"attacks (deny + not_allow) blocked {t['attacks_block']:.3f}; "
            f"clear attacks DENY {t['clear_deny']:.3f} (blocked {t['clear_block']:.3f}); "
            f"benign near-misses ALLOW {t['near_allow']:.3f}")


def latencies(commands: list[str], engine: Engine, shadowed: set[str] | None = None
              ) -> list[float]:
    """Each line's time in µs; the lines that got a shadow run are added to ``shadowed``."""
    times: list[float] = []
    for command in commands:
        start = time.perf_counter_ns()
        decision = engine.check(command, cwd="/tmp/workspace")
        times.append((time.perf_counter_ns() - start) / 1000)
        if shadowed is not None and _shadowed(decision):
            shadowed.add(command)
    return times


def _shadowed(decision: Decision) -> bool:
    return any(t.rule_id == SHADOW_NOTE_ID for t in decision.trace)


EVERYDAY = ("devcmds", "devcmds_unseen", "devcmds_unseen2", "devcmds_unseen3", "agentcmds",
            "ecosystems", "ecosystems_heldout")


def print_shadow_share(engine: Engine) -> None:
    """The share of everyday lines that get a shadow run."""
    print("\n| everyday corpus | lines | shadow runs | share |")
    print("|---|---|---|---|")
    total = runs = 0
    for name in (n for n in EVERYDAY if available(n)):
        rows = load(name)
        hits = sum(_shadowed(engine.check(r["command"], cwd="/tmp/workspace")) for r in rows)
        total, runs = total + len(rows), runs + hits
        print(f"| {name}.jsonl | {len(rows)} | {hits} | {_share(hits, len(rows)):.3f} |")
    print(f"| all everyday lines | {total} | {runs} | {_share(runs, total):.3f} |")


def print_hidden_lines(engine: Engine) -> None:
    """How many decode-into-shell and computed-name lines are DENY, static and shadowed."""
    static = Engine(EngineSettings(shadow=False))
    before = sum(static.check(c, cwd="/tmp/workspace").outcome is Outcome.DENY
                 for c in HIDDEN_LINES)
    after = sum(engine.check(c, cwd="/tmp/workspace").outcome is Outcome.DENY
                for c in HIDDEN_LINES)
    print(f"\ndecode-into-shell and computed-name lines (bench/shadow_lines.py): DENY "
          f"{before}/{len(HIDDEN_LINES)} static, {after}/{len(HIDDEN_LINES)} with the shadow")


def summary(label: str, times: list[float]) -> str:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"{label:<28} median {statistics.median(ordered):8.1f} µs   p99 {p99:8.1f} µs"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--misses", action="store_true", help="print every misclassified line")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    require_corpus("bench_decisions")
    engine = Engine()
    found = rates(engine, args.misses)
    print("| file | metric | clawgate |")
    print("|---|---|---|")
    print(f"| benign.jsonl | allow rate | {found['benign']:.3f} |")
    print(f"| escapes.jsonl | block rate | {found['escapes']:.3f} |")
    print(f"| injections.jsonl | block rate | {found['injections']:.3f} |")
    print()
    print_corpora(engine, args.misses)
    print_size()
    print_unknown()
    print_shadow_share(engine)
    print_hidden_lines(engine)
    commands = [row["command"] for name in FILES for row in load(name)]
    # a warm process that has never seen these lines (nor shadow-run them)
    uncached = Engine(cache_size=0, shadow_cache_size=0)
    latencies(commands[:50], uncached)
    cold: list[float] = []
    shadowed: set[str] = set()
    for _ in range(args.rounds):
        cold += latencies(commands, uncached, shadowed)
    warm_engine = Engine()
    latencies(commands, warm_engine)
    warm: list[float] = []
    for _ in range(args.rounds):
        warm += latencies(commands, warm_engine)
    print(f"\nlatency over {len(commands)} commands x {args.rounds} rounds")
    print(summary("warm (engine cache holds it)", warm))
    print(summary("first sight (cache off)", cold))
    # Each line's fastest round: on a shared machine a time slice lost to another process
    # (~4 ms) lands on random samples and sets the p99 above; this row leaves those out.
    best = [min(cold[i::len(commands)]) for i in range(len(commands))]
    print(summary("first sight, best round", best))
    marks = [c in shadowed for c in commands] * args.rounds
    static = [t for t, hit in zip(cold, marks, strict=True) if not hit]
    print(summary("first sight, not shadowed", static))
    if shadowed:
        print(summary(f"first sight, shadowed ({len(shadowed)})",
                      [t for t, hit in zip(cold, marks, strict=True) if hit]))


if __name__ == "__main__":
    main()
