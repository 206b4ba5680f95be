"""The sandbox markers: a missing engine skips a ``docker`` test, or fails it when required."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def run_marked_test(require: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DOCKER_HOST="tcp://127.0.0.1:9", CLAWGATE_REQUIRE_DOCKER=require)
    target = f"{HERE / 'test_exec_cli.py'}::test_run_in_docker"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:randomly",
                           target], capture_output=True, text=True, env=env, timeout=120,
                          check=False, cwd=HERE.parent.parent)


@pytest.mark.parametrize(("require", "exit_code", "words"), [
    ("0", 0, "1 skipped"),
    ("1", 1, "CLAWGATE_REQUIRE_DOCKER=1 but docker is unavailable"),
])
def test_missing_engine_skips_or_fails(require: str, exit_code: int, words: str) -> None:
    done = run_marked_test(require)
    assert done.returncode == exit_code, done.stdout + done.stderr
    assert words in done.stdout
