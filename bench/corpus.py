"""The labelled corpora: the shared ones (``../shared/corpus/*.jsonl`` or ``$CLAWGATE_CORPUS``)
and this repository's own (``tests/corpus/*.jsonl``: real reported bypasses, each line with its
source).

The shared ones are not part of this repository: ``shared/`` sits beside the checkout on the
project's machines (its README describes each file: benign commands, sandbox escapes,
injections, everyday CI commands, each line a JSON object with ``command`` and ``label``).
Without them a benchmark that needs them says so in one line and exits 0 (``require_corpus``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

FILES = ("benign", "escapes", "injections")  # the latency set, as measured since the start
DEVCMDS = ("devcmds", "devcmds_beyond")  # everyday commands from CI files, and the consequential
# reported bypasses; attack kinds, nine sets (tests/corpus/README.md)
OWN = ("bypasses", "kinds_heldout", "kinds_heldout2", "kinds_heldout3", "kinds_heldout4",
       "kinds_heldout5", "kinds_heldout6", "kinds_heldout7", "kinds_heldout8",
       "kinds_heldout9")
# everyday CI commands of projects none of the shared files draws on (tests/corpus/README.md)
UNSEEN = ("devcmds_unseen", "devcmds_unseen2", "devcmds_unseen3", "agentcmds", "ecosystems",
          "ecosystems_heldout", "everyday_heldout2", "everyday_heldout3",
          "everyday_heldout4", "everyday_heldout5", "everyday_heldout6",
          "everyday_heldout7", "everyday_heldout8", "everyday_heldout9", "everyday_scripts",
          "everyday_scripts2")


def corpus_dir() -> Path:
    given = os.environ.get("CLAWGATE_CORPUS")
    if given:
        return Path(given)
    return Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def missing(names: tuple[str, ...] = FILES) -> list[str]:
    """The corpus files that are not there."""
    return [n for n in names if not (corpus_dir() / f"{n}.jsonl").is_file()]


def require_corpus(bench: str, names: tuple[str, ...] = FILES) -> None:
    """Exit 0 with one line when the corpora ``bench`` needs are not there."""
    absent = missing(names)
    if absent:
        print(f"{bench}: skipped: no corpus at {corpus_dir()} ({', '.join(absent)}.jsonl "
              "missing; set CLAWGATE_CORPUS to the directory holding them)")
        sys.exit(0)


def own_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "tests" / "corpus"


def load(name: str) -> list[dict[str, str]]:
    base = own_dir() if name in OWN + UNSEEN else corpus_dir()
    path = base / f"{name}.jsonl"
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def available(name: str) -> bool:
    base = own_dir() if name in OWN + UNSEEN else corpus_dir()
    return (base / f"{name}.jsonl").is_file()
