"""CG-DEG-001's exceptions beyond the workspace (``validators/outsideentries.py``): entries of a
temporary directory a pattern chooses are the temporary directory's; a cache in the user's
home is asked about, not denied. Attacks of the same shape beside each."""

from __future__ import annotations

from pathlib import Path

import pytest
from vtables import ASK, DENY, ENGINE, assert_allowed, assert_caught

from clawgate.validators.outsideentries import catch_all

# (The suite keeps the guard's state below /tmp: a find from /tmp asks for it, CG-FS-005, so
# the find rows start from /var/tmp.)
TEMP_ENTRIES = [
    "rm -rf /tmp/ci-build-*",
    "rm -f /tmp/*.log",
    "rm -rf /var/tmp/build-[0-9]*",
    "find /var/tmp -name 'ci-build-*' -mtime +1 -delete",
    "find /var/tmp -name 'core.*' -delete",
    "find /var/tmp -maxdepth 1 -name 'tmp*.json' -exec rm -f {} +",
]

# Every entry of the temporary directory, or the directory itself: every process's files.
TEMP_WHOLE = [
    "rm -rf /tmp/*",
    "rm -rf /tmp/.*",
    "rm -rf /tmp/?*",
    "rm -rf /tmp/[a-z]*",
    "find /tmp -delete",
    "find /tmp -name '*' -delete",
    "find /tmp -name 'tm?' -delete",  # the start point's own name
    "find /tmp ! -name 'x*' -delete",  # acts on what the test does not match
]

HOME_CACHES = [
    "rm -rf ~/.cache/pip",
    "rm -rf ~/.cache/pre-commit",
    "rm -rf ~/.m2/repository/com/example",
    "rm -rf ~/.gradle/caches",
    "rm -rf ~/.cargo/registry/cache",
    "find ~/.cache/pip -type f -delete",
]

# Home, the cache directory as a whole, and what sits beside the caches.
HOME_NOT_CACHES = [
    "rm -rf ~/.cache/*",
    "rm -rf ~/.cache",
    "rm -rf ~/.m2",
    "rm -rf ~/.cargo",
    "rm -rf ~/.gradle",
    "rm -rf ~/go",
    "rm -rf ~/.cachex/pip",
    "find ~ -name '*.pyc' -delete",
]


@pytest.mark.parametrize("line", TEMP_ENTRIES)
def test_entries_a_pattern_chooses_in_a_temporary_directory_pass(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize("line", TEMP_WHOLE + HOME_NOT_CACHES)
def test_every_entry_or_the_directory_is_denied(line: str) -> None:
    assert_caught(line, DENY, "CG-DEG-001")


@pytest.mark.parametrize("line", HOME_CACHES)
def test_a_cache_in_home_is_asked(line: str) -> None:
    assert_caught(line, ASK, "CG-DEG-001")


@pytest.mark.parametrize(("pattern", "every"), [
    ("*", True), (".*", True), ("?*", True), ("[a-z]*", True), ("*.*", True),
    ("pytest-*", False), ("*.log", False), ("core.*", False), ("[0-9]x*", False),
])
def test_catch_all_patterns(pattern: str, every: bool) -> None:
    assert catch_all(pattern) is every


# A directory above the workspace takes the workspace with it, a temporary one too (the suite's
# workspace for these rows is a temporary directory's child).
@pytest.mark.parametrize("line", ["rm -rf ..", "rm -rf ../", "rm -rf \"$PWD/..\"",
                                  "find .. -delete", "rm -rf ../*"])
def test_a_directory_above_a_temporary_workspace_is_denied(tmp_path: Path, line: str) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    found = ENGINE.check(line, cwd=str(workspace))
    assert found.outcome is DENY, (line, found.reasons)
    assert "CG-DEG-001" in {r.rule_id for r in found.reasons}


@pytest.mark.parametrize("line", ["rm -rf ../other-build", "find .. -name '*.o' -delete",
                                  "rm -rf ../x-*"])
def test_a_sibling_of_a_temporary_workspace_is_its_own(tmp_path: Path, line: str) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    assert ENGINE.check(line, cwd=str(workspace)).outcome is not DENY, line
