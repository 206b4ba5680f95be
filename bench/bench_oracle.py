"""Bash as the judge, on many lines: does bash ever run a program the engine did not judge?

    python bench/bench_oracle.py [--lines 200000] [--seed 1] [--jobs 1] [--bound 2]
                                 [--json PATH] [--summarize PATH] [--recheck PATH]

Half the lines are corpus lines under mutations (``oracle_lines.py``: comments, continuations,
re-quoting, here-documents, arithmetic, subscripts, functions, traps, ``case``, process
substitution, unusual whitespace and control characters), half are drawn from the hypothesis
grammar (``clawgate.testing.strategies``), reproducibly from ``--seed``. Each line is decided
by the engine on the default policy, noting every simple command it judged, and run by real
bash in the oracle's sandbox (``clawgate.testing.bashoracle``: every program a recorder stub,
no network). A program bash ran that no judged command stands for (same program, same known
words) is a disagreement.

Printed: the lines run, the disagreements, and each family of them -- a disagreement shrunk
to its minimal form (statements, then words, then characters dropped while it still
disagrees about the same program), grouped by the minimal form's shape -- with the engine's
outcomes (a disagreement on a line the engine DENYs or ASKs is a misreading that costs a
refusal or a question, not an unjudged run).

Excluded, with the count: lines holding a NUL (``bash -c`` cannot be handed one) or the
recorder's separators U+001E/U+001F (an argv holding one is not told apart from two).

Corpora: ``../shared/corpus/*.jsonl``, ``tests/corpus/*.jsonl`` and ``shadow_lines.py`` as the
carriers of the mutations; the rest is generated.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

import oracle_lines  # noqa: E402
from clawgate.engine import Engine  # noqa: E402
from clawgate.testing.bashoracle import Oracle, OracleError  # noqa: E402
from clawgate.testing.unjudged import Judge, missing  # noqa: E402

CHUNK = 2000  # generated lines per seeded draw: the same lines whatever --jobs is
SHRINK_TRIES = 300  # candidate lines per shrink
# A line the engine DENYs costs a refusal, not a run: shrunk once per key, briefly.
SHRINK_TRIES_DENIED = 40
SHRINKS_PER_KEY = 2  # disagreements shrunk per (family, missing programs, outcome)
SHRINKS_PER_JOB = 400
EXCLUDED = {"\0": "a NUL", "\x1e": "a record separator", "\x1f": "a field separator"}


@dataclass
class Found:
    family: str  # the mutation's, or "generated"
    line: str
    missing: list[list[str]]
    outcome: str
    rules: list[str] = field(default_factory=list)  # the decision's first rule ids
    minimal: str = ""
    minimal_outcome: str = ""
    minimal_missing: list[list[str]] = field(default_factory=list)


@dataclass
class Tally:
    lines: int = 0
    timed_out: int = 0
    oracle_errors: int = 0
    crashes: list[str] = field(default_factory=list)  # "line -> exception", kept going
    excluded: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    found: list[Found] = field(default_factory=list)
    seconds: float = 0.0


class Bench:
    """One job: an engine noting what it judges, and one oracle sandbox."""

    def __init__(self, bound_s: float) -> None:
        self.judge = Judge(Engine.from_files().settings)
        self.oracle = Oracle(bound_s=bound_s)
        self.tally = Tally()
        self._shrunk: dict[tuple[str, ...], tuple[str, str, list[list[str]]]] = {}
        self._keys: Counter[tuple[str, ...]] = Counter()
        self.rules: list[str] = []

    def compare(self, line: str) -> tuple[str, list[list[str]]] | None:
        """The engine's outcome and the argvs bash ran unjudged; None if bash could not run
        it."""
        decision, seen = self.judge.judged(line)
        self.rules = list(dict.fromkeys(r.rule_id for r in decision.reasons))[:3]
        try:
            run = self.oracle.run(line)
        except OracleError:
            self.tally.oracle_errors += 1
            return None
        self.tally.timed_out += run.timed_out
        return decision.outcome.name, [list(a) for a in missing(run, seen)]

    def one(self, family: str, line: str, journal: TextIO | None = None) -> None:
        for char, why in EXCLUDED.items():
            if char in line:
                self.tally.excluded[why] += 1
                return
        compared = self.compare(line)
        if compared is None:
            return
        self.tally.lines += 1
        outcome, unjudged = compared
        self.tally.outcomes[outcome] += 1
        if unjudged:
            found = self._shrink(Found(family, line, unjudged, outcome, self.rules))
            self.tally.found.append(found)
            if journal is not None:  # a long run's findings survive its interruption
                journal.write(json.dumps(found.__dict__) + "\n")
                journal.flush()

    def _shrink(self, found: Found) -> Found:
        programs = {a[0] for a in found.missing}
        denied = found.outcome == "DENY"
        # a line the engine DENYs: one shrink per family and outcome
        key = (found.family, found.outcome, *([] if denied else sorted(programs)))
        self._keys[key] += 1
        if key in self._shrunk and (self._keys[key] > (1 if denied else SHRINKS_PER_KEY)
                                    or len(self._shrunk) >= SHRINKS_PER_JOB):
            found.minimal, found.minimal_outcome, found.minimal_missing = self._shrunk[key]
            return found

        def still(candidate: str) -> tuple[str, list[list[str]]] | None:
            compared = self.compare(candidate)
            if compared and any(a[0] in programs for a in compared[1]):
                return compared
            return None

        minimal, (outcome, unjudged) = shrink(found.line, (found.outcome, found.missing),
                                              still, SHRINK_TRIES_DENIED if denied
                                              else SHRINK_TRIES)
        found.minimal, found.minimal_outcome, found.minimal_missing = minimal, outcome, unjudged
        self._shrunk.setdefault(key, (minimal, outcome, unjudged))
        return found


Compared = tuple[str, list[list[str]]]


def shrink(line: str, compared: Compared, still: Callable[[str], Compared | None],
           budget: int = SHRINK_TRIES) -> tuple[str, Compared]:
    """Greedy delta debugging: drop statements, then words, then characters (short lines),
    while ``still`` says the candidate disagrees."""
    tries = 0
    for pieces in (_statements, _words, _chars):
        progress = True
        while progress and tries < budget:
            progress = False
            parts = pieces(line)
            for index in range(len(parts)):
                candidate = "".join(parts[:index] + parts[index + 1:]).strip(" ")
                if not candidate or candidate == line or "\0" in candidate:
                    continue
                tries += 1
                again = still(candidate)
                if again is not None:
                    line, compared, progress = candidate, again, True
                    break
                if tries >= budget:
                    break
    return line, compared


def _statements(line: str) -> list[str]:
    """Pieces each ending with its separator (dropping one drops a statement)."""
    return [p for p in re.split(r"(?<=\n|;|&|\|)", line) if p]


def _words(line: str) -> list[str]:
    return [p for p in re.split(r"(?<=\s)(?=\S)", line) if p]


def _chars(line: str) -> list[str]:
    return list(line) if len(line) <= 60 else []


def shape(line: str) -> str:
    """A minimal form's family: its words' letters and digits made one letter."""
    return re.sub(r"[A-Za-z0-9_.,:@%+=/-]+", "w", line)


Task = tuple[int, list[tuple[str, str]], list[tuple[int, int]], int, float, str | None]


def work(task: Task) -> Tally:
    index, items, chunks, seed, bound_s, journal_path = task
    started = time.perf_counter()
    bench = Bench(bound_s)
    total = len(items) + sum(size for _, size in chunks)
    journal = open(f"{journal_path}.job{index}", "w") if journal_path else None  # noqa: SIM115
    try:
        for done, (family, line) in enumerate(_lines(items, chunks, seed), 1):
            try:
                bench.one(family, line, journal)
            except Exception as exc:  # a long run records the line and goes on
                crash = f"{line!r} -> {type(exc).__name__}: {exc}"
                bench.tally.crashes.append(crash)
                print(f"[job {index}] crashed on {crash}", file=sys.stderr, flush=True)
                if journal is not None:
                    journal.write(json.dumps({"crash": crash}) + "\n")
                bench.oracle.close()  # a fresh sandbox for the lines after it
                bench.oracle = Oracle(bound_s=bound_s)
            if done % 1000 == 0:
                rate = done / (time.perf_counter() - started)
                print(f"[job {index}] {done}/{total} lines, {len(bench.tally.found)} "
                      f"disagreements, {rate:.0f} lines/s", file=sys.stderr, flush=True)
                if journal is not None:
                    journal.write(json.dumps({"tally": _counts(bench.tally, started)}) + "\n")
    finally:
        bench.oracle.close()
        if journal is not None:
            journal.write(json.dumps({"tally": _counts(bench.tally, started)}) + "\n")
            journal.close()
    bench.tally.seconds = time.perf_counter() - started
    return bench.tally


def _lines(items: list[tuple[str, str]], chunks: list[tuple[int, int]], seed: int
           ) -> Iterator[tuple[str, str]]:
    """The job's mutated lines, then its generated ones, each chunk drawn when it is reached."""
    yield from items
    for chunk, size in chunks:
        for line in oracle_lines.generated(size, seed * 100_003 + chunk):
            yield "generated", line


def _counts(tally: Tally, started: float) -> dict[str, object]:
    return {"lines": tally.lines, "timed_out": tally.timed_out,
            "oracle_errors": tally.oracle_errors, "excluded": dict(tally.excluded),
            "outcomes": dict(tally.outcomes), "seconds": time.perf_counter() - started}


def from_journals(prefix: str) -> Tally:
    """A run's tally from its journals (``--json PATH`` writes ``PATH.jobN`` as it goes): what
    an interrupted run had done."""
    out = Tally()
    for path in sorted(Path(prefix).parent.glob(Path(prefix).name + ".job*")):
        last: dict[str, Any] = {}
        for row in path.read_text().splitlines():
            record = json.loads(row)
            if "tally" in record:
                last = record["tally"]
            elif "crash" in record:
                out.crashes.append(record["crash"])
            else:
                out.found.append(Found(**record))
        out.lines += last.get("lines", 0)
        out.timed_out += last.get("timed_out", 0)
        out.oracle_errors += last.get("oracle_errors", 0)
        out.excluded += Counter(last.get("excluded", {}))
        out.outcomes += Counter(last.get("outcomes", {}))
        out.seconds = max(out.seconds, last.get("seconds", 0.0))
    return out


def recheck(prefix: str, bound_s: float) -> tuple[int, Tally]:
    """The disagreements a run recorded (journals ``PATH.jobN``), each line run again on the
    tree as it is now: how many lines were rechecked, and those that still disagree."""
    bench = Bench(bound_s)
    lines = list(dict.fromkeys((f.family, f.line) for f in from_journals(prefix).found))
    try:
        for family, line in lines:
            bench.one(family, line)
    finally:
        bench.oracle.close()
    return len(lines), bench.tally


def plan(total: int, seed: int, jobs: int, bound_s: float, journal: str | None = None
         ) -> list[Task]:
    """Half the lines mutated corpus lines, half generated in seeded chunks of ``CHUNK``:
    the same lines whatever ``jobs`` is."""
    mutated = oracle_lines.sample_mutations(total // 2, seed)
    left = total - len(mutated)
    chunks = [(k, min(CHUNK, left - k * CHUNK)) for k in range(-(-left // CHUNK))]
    return [(j, mutated[j::jobs], chunks[j::jobs], seed, bound_s, journal)
            for j in range(jobs)]


def merge(tallies: list[Tally]) -> Tally:
    out = Tally()
    for t in tallies:
        out.lines += t.lines
        out.timed_out += t.timed_out
        out.oracle_errors += t.oracle_errors
        out.crashes += t.crashes
        out.excluded += t.excluded
        out.outcomes += t.outcomes
        out.found += t.found
        out.seconds = max(out.seconds, t.seconds)
    return out


def report(tally: Tally, wall_s: float, argv: list[str]) -> None:
    print(f"command: python bench/bench_oracle.py {' '.join(argv)}")
    print(f"lines run: {tally.lines} in {wall_s:.0f} s wall "
          f"({tally.lines / max(wall_s, 1e-9):.0f} lines/s); engine outcomes: "
          + ", ".join(f"{k} {v}" for k, v in sorted(tally.outcomes.items())))
    print(f"still running at the bound (killed, compared on what they ran): {tally.timed_out}; "
          f"oracle errors: {tally.oracle_errors}; excluded: "
          + (", ".join(f"{v} holding {k}" for k, v in tally.excluded.items()) or "none"))
    print(f"lines the bench itself failed on (recorded, run went on): {len(tally.crashes)}")
    for crash in tally.crashes[:10]:
        print(f"  {crash[:300]}")
    severe = sum(f.outcome == "ALLOW" for f in tally.found)
    print(f"disagreements: {len(tally.found)} (on lines the engine ALLOWs: {severe})")
    groups: dict[str, list[Found]] = defaultdict(list)
    for found in tally.found:
        groups[shape(found.minimal)].append(found)
    for number, (_, members) in enumerate(sorted(groups.items(),
                                                 key=lambda g: (-len(g[1]), g[0])), 1):
        first = members[0]
        outcomes = Counter(f.outcome + (f" ({', '.join(f.rules)})" if f.rules else "")
                           for f in members)
        families = Counter(f.family for f in members)
        print(f"\nfamily {number}: {len(members)} lines; engine on them: "
              + ", ".join(f"{k} {v}" for k, v in outcomes.most_common(4)))
        print(f"  minimal form: {first.minimal!r} -> engine {first.minimal_outcome}, "
              f"unjudged {first.minimal_missing[:3]}")
        print(f"  e.g. {first.line[:200]!r}")
        print("  from: " + ", ".join(f"{k} {v}" for k, v in families.most_common(6)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--bound", type=float, default=2.0, help="seconds per line in bash")
    parser.add_argument("--json", type=Path, help="write every disagreement here (and, as "
                        "they are found, to PATH.jobN, one JSON object a line)")
    parser.add_argument("--summarize", metavar="PATH", help="print the summary of the run "
                        "whose journals are PATH.jobN (one that was interrupted), run nothing")
    parser.add_argument("--recheck", metavar="PATH", help="run again, on this tree, every "
                        "line on which the run with journals PATH.jobN disagreed; print those "
                        "that still do")
    args = parser.parse_args(argv)
    if args.recheck:
        start = time.perf_counter()
        count, tally = recheck(args.recheck, args.bound)
        print(f"rechecked: {count} distinct lines that disagreed in {args.recheck}.job*")
        report(tally, time.perf_counter() - start, ["--recheck", args.recheck])
        return 0
    if args.summarize:
        tally = from_journals(args.summarize)
        report(tally, tally.seconds, ["--summarize", args.summarize])
        return 0
    scratch = tempfile.mkdtemp(prefix="clawgate-bench-oracle-")
    os.environ.setdefault("CLAWGATE_STATE_HOME", os.path.join(scratch, "state"))
    os.environ.setdefault("XDG_CACHE_HOME", os.path.join(scratch, "cache"))  # shadow stubs
    start = time.perf_counter()
    tasks = plan(args.lines, args.seed, args.jobs, args.bound,
                 str(args.json) if args.json else None)
    if args.jobs == 1:
        tallies = [work(tasks[0])]
    else:
        with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn")) as pool:
            tallies = list(pool.map(work, tasks))
    tally = merge(tallies)
    report(tally, time.perf_counter() - start, sys.argv[1:] if argv is None else argv)
    if args.json:
        args.json.write_text(json.dumps([f.__dict__ for f in tally.found], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
