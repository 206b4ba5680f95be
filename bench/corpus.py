"""The shared labelled corpora: ``../shared/corpus/*.jsonl`` or ``$CLAWGATE_CORPUS``."""

from __future__ import annotations

import json
import os
from pathlib import Path

FILES = ("benign", "escapes", "injections")


def corpus_dir() -> Path:
    given = os.environ.get("CLAWGATE_CORPUS")
    if given:
        return Path(given)
    return Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def load(name: str) -> list[dict[str, str]]:
    path = corpus_dir() / f"{name}.jsonl"
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
