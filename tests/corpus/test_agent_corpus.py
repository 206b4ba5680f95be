"""The agent-command corpus is well formed (every line a command, the label ``allow``, a source
in a public repository at a commit, an agent framework), and the extractor's label rules leave
out what goes beyond the checkout (tests/corpus/README.md). Its figures are the bench's."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROWS = [json.loads(line) for line in
        (Path(__file__).parent / "agentcmds.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from extract_agent_commands import CAP, beyond  # noqa: E402


def test_every_line_is_well_formed() -> None:
    assert 200 <= len(ROWS) <= 400
    for row in ROWS:
        assert set(row) == {"command", "label", "source", "origin"}, row
        assert row["command"].strip() and row["label"] == "allow"
        assert re.match(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}:\S", row["source"]), row
        assert row["origin"] in {"mini-swe-agent", "swe-agent", "openhands"}


def test_commands_are_unique_and_sources_capped() -> None:
    assert len({row["command"] for row in ROWS}) == len(ROWS)
    per_repository = Counter(row["source"].split("@")[0] for row in ROWS)
    assert max(per_repository.values()) <= CAP


def test_no_line_names_the_agents_container_root() -> None:
    for row in ROWS:
        assert not re.search(r"(?<![\w.-])/(testbed|workspace)\b", row["command"]), row


@pytest.mark.parametrize("line", [
    "pip install -e .", "curl -s https://example.org", "git push origin main",
    "rm -rf reproduce_dir", "rm a.py b -rf", "cat > /tmp/x.py <<'EOF'\nprint(1)\nEOF",
    "echo x >> .git/hooks/pre-commit", "python -c 'import subprocess'", "cat ../notes.txt",
    "sudo ls", "env", "cat ~/.bashrc", "/opt/conda/bin/python -m pytest",
])
def test_the_rules_leave_out_lines_beyond_the_checkout(line: str) -> None:
    assert beyond(line)


@pytest.mark.parametrize("line", [
    "python reproduce.py", "grep -rn 'def foo' src/", "rm -rf build dist", "rm reproduce.py",
    "sed -i 's/a/b/' pkg/mod.py", "git diff", "/usr/bin/python3 -m pytest -q 2>/dev/null",
])
def test_the_rules_keep_everyday_lines(line: str) -> None:
    assert not beyond(line)
