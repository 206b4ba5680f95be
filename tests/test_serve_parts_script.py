"""``scripts/serve-parts.sh`` installs only what is missing, and runs apt-get only then.

A recording ``apt-get`` (a shell script in a temporary PATH) stands in for the real one, so that
no test installs anything; chromium and wrk are present or not by what that PATH holds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "serve-parts.sh"
HAVE_POSTGRES = any(Path("/usr/lib/postgresql").glob("*/bin/initdb"))


def _run(tmp_path: Path, present: list[str]) -> tuple[subprocess.CompletedProcess[str], str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("id", "cat"):
        os.symlink(shutil.which(name) or f"/usr/bin/{name}", bin_dir / name)
    for name in present:
        (bin_dir / name).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / name).chmod(0o755)
    calls = tmp_path / "apt-calls"
    (bin_dir / "apt-get").write_text(f'#!/bin/sh\necho "$*" >> {calls}\n')
    (bin_dir / "apt-get").chmod(0o755)
    done = subprocess.run(["/bin/bash", str(SCRIPT)], env={"PATH": str(bin_dir)},
                          capture_output=True, text=True, check=False)
    return done, calls.read_text() if calls.exists() else ""


@pytest.mark.skipif(not HAVE_POSTGRES or os.getuid() != 0,
                    reason="needs PostgreSQL installed and root (the script's own conditions)")
def test_nothing_missing_runs_no_apt_get(tmp_path: Path) -> None:
    done, calls = _run(tmp_path, ["chromium", "wrk"])
    assert done.returncode == 0, done.stderr
    assert calls == ""
    assert "chromium, postgresql and wrk are present" in done.stderr


@pytest.mark.skipif(not HAVE_POSTGRES or os.getuid() != 0,
                    reason="needs PostgreSQL installed and root (the script's own conditions)")
def test_only_the_missing_program_is_installed(tmp_path: Path) -> None:
    done, calls = _run(tmp_path, ["chromium"])
    assert done.returncode == 0, done.stderr
    assert calls.splitlines() == ["update -qq", "install -y -qq --no-install-recommends wrk"]
