"""bench/ says where its corpora come from and skips cleanly without them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_without_the_corpus_the_detection_bench_skips_in_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "CLAWGATE_CORPUS": str(tmp_path / "nowhere")}
    done = subprocess.run([sys.executable, str(BENCH / "bench_decisions.py")], env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.count("\n") == 1
    assert done.stdout.startswith("bench_decisions: skipped: no corpus at ")


@pytest.mark.parametrize("script", sorted(p.name for p in BENCH.glob("bench_*.py")))
def test_every_bench_says_where_its_corpora_come_from(script: str) -> None:
    text = (BENCH / script).read_text()
    docstring = text.split('"""')[1]
    assert "Corpora:" in docstring
