"""The program catalog's size, and the programs of the everyday corpora it does not know.

    python bench/catalog_coverage.py

Size: programs with a hand-written entry (``catalog.yaml``, aliases apart), and programs known
from data only (``data/options.tsv``), by source. Per everyday corpus: the distinct programs
its lines run (every simple command, nested ones included as the parser splits them), how
many the engine knows otherwise (the hand-written catalog, or the families that judge shells,
wrappers, interpreters and builtins), how many more the data knows, how many stay unknown,
and the most frequent unknown ones.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from clawgate import programs
from clawgate.programs import learned
from clawgate.shell import parse
from clawgate.validators.unknownwords import known
from corpus import available, load

EVERYDAY = ("devcmds", "devcmds_unseen", "devcmds_unseen2", "devcmds_unseen3", "agentcmds")
TOP = 8


def print_size() -> None:
    compiled = Path(programs.__file__).with_name("catalog.json")
    data = json.loads(compiled.read_text(encoding="utf-8"))
    hand = set(data["programs"])
    every = programs.names()
    extra = sorted(learned.names() - every)
    by_source = Counter(learned.spec(n)["from"] for n in extra)  # type: ignore[index]
    print(f"\nprogram catalog: {len(hand)} hand-written entries ({len(every)} names with "
          f"aliases), {len(extra)} more known from data ("
          + ", ".join(f"{k}: {v}" for k, v in sorted(by_source.items()))
          + f"): {len(every) + len(extra)} names")


def _programs(line: str) -> list[str]:
    try:
        parsed = parse(line)
    except Exception:  # a line the parser refuses names no program here
        return []
    return [c.program for c in parsed.commands if c.program]


def print_unknown() -> None:
    print("\n| everyday corpus | programs | known by hand or elsewhere | known from data only "
          "| unknown | top unknown |")
    print("|---|---|---|---|---|---|")
    for name in (n for n in EVERYDAY if available(n)):
        seen = Counter(p for row in load(name) for p in _programs(row["command"]))
        hand = {p for p in seen if known(p)}
        data = {p for p in seen if p not in hand
                and programs.learned_entry(p) is not None}
        unknown = Counter({p: n for p, n in seen.items() if p not in hand and p not in data})
        top = ", ".join(f"{p} ({n})" for p, n in unknown.most_common(TOP))
        print(f"| {name}.jsonl | {len(seen)} | {len(hand)} | {len(data)} | {len(unknown)} | "
              f"{top} |")


def main() -> None:
    print_size()
    print_unknown()


if __name__ == "__main__":
    main()
