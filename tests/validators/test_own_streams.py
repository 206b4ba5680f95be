"""A command's own streams (``/dev/stderr``, ``/dev/fd/1``, ``/proc/self/fd/2``) are what the
shell connects them to when the command runs. Where the checker's own descriptors lead (a pipe,
a terminal, a log file outside the workspace) says nothing about the command: the decision is
the same whatever the checker's standard error is. Links in the workspace are still followed."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from clawgate import fsfacts
from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.validators.paths import own_stream


@pytest.fixture
def checker_streams_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker's descriptors lead outside any workspace, as a pipe or a terminal does."""
    real: Callable[[str], str] = fsfacts.realpath

    def leads(path: str) -> str:
        if path.startswith(("/dev/std", "/dev/fd/", "/proc/self/fd/")):
            return "/dev/pts/7"
        return real(path)

    monkeypatch.setattr(fsfacts, "realpath", leads)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    os.symlink("/etc/motd", ws / "notes.txt")
    os.symlink("/usr/local/bin", ws / "bin")
    return ws


@pytest.mark.parametrize(("line", "expected"), [
    # the command's own streams, whatever the checker's lead to
    ("echo hi | tee /dev/stderr | grep -c hi", Outcome.ALLOW),
    ("make 2>&1 | tee /dev/stdout > build.log", Outcome.ALLOW),
    ("git status --porcelain | tee /dev/fd/2", Outcome.ALLOW),
    ("f() {\n  tee /dev/stderr | wc -l\n}\ngit diff | f", Outcome.ALLOW),
    ("cp report.txt /dev/stdout", Outcome.ALLOW),
    # near-misses of the same shape: links and paths that do lead out are still followed
    ("echo x | tee notes.txt", Outcome.ASK),
    ("tee bin/tool < build/tool", Outcome.ASK),
    ("echo x | tee /dev/sda", Outcome.DENY),
    ("echo x | tee /proc/1/fd/1", Outcome.DENY),
])
def test_own_streams_are_not_followed(checker_streams_elsewhere: None, workspace: Path,
                                      line: str, expected: Outcome) -> None:
    assert Engine().check(line, cwd=str(workspace)).outcome is expected


@pytest.mark.parametrize(("path", "expected"), [
    ("/dev/stderr", True), ("/dev/stdout", True), ("/dev/fd/3", True),
    ("/proc/self/fd/2", True), ("/dev/null", True),
    ("/proc/1/fd/2", False), ("/dev/sda", False), ("/dev/stderr.log", False),
    ("/tmp/dev/stderr", False),
])
def test_own_stream(path: str, expected: bool) -> None:
    assert own_stream(path) is expected
