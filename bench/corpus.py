"""The labelled corpora: the shared ones (``../shared/corpus/*.jsonl`` or ``$CLAWGATE_CORPUS``)
and this repository's own (``tests/corpus/*.jsonl``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

FILES = ("benign", "escapes", "injections")  # the latency set, as measured since the start
DEVCMDS = ("devcmds", "devcmds_beyond")  # everyday commands from CI files, and the consequential
OWN = ("bypasses",)  # real reported bypasses of agent command checks (tests/corpus/README.md)


def corpus_dir() -> Path:
    given = os.environ.get("CLAWGATE_CORPUS")
    if given:
        return Path(given)
    return Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def own_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "tests" / "corpus"


def load(name: str) -> list[dict[str, str]]:
    base = own_dir() if name in OWN else corpus_dir()
    path = base / f"{name}.jsonl"
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def available(name: str) -> bool:
    base = own_dir() if name in OWN else corpus_dir()
    return (base / f"{name}.jsonl").is_file()
