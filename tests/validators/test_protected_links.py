"""A protected path reached through a symlink in the workspace is the protected path: ``ln -s
.git g`` asks (every later write through ``g`` would reach ``.git``), and a write through a
link made earlier (``echo … > g/config``, ``> h/pre-commit``) is judged where it lands. Real
directories and links; the engine resolves them as the command would."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / "src").mkdir()
    os.symlink(".git", ws / "g")
    os.symlink(".git/hooks", ws / "h")
    os.symlink("src", ws / "s")
    return ws


@pytest.mark.parametrize(("line", "expected"), [
    ("ln -s .git g2", Outcome.ASK),
    ("ln -s .git/hooks h2", Outcome.ASK),
    ("echo x > h/pre-commit", Outcome.ASK),
    ("printf '[core]\\n\\tfsmonitor=./p.sh' > g/config", Outcome.DENY),
    ("cp evil g/config", Outcome.ASK),
    ("tee g/hooks/post-checkout < p", Outcome.ASK),
    ("sed -i s/a/b/ g/config", Outcome.ASK),
    ("echo x > ./g/../g/config", Outcome.ASK),
])
def test_a_protected_path_through_a_link_is_protected(workspace: Path, line: str,
                                                      expected: Outcome) -> None:
    found = Engine().check(line, cwd=str(workspace))
    assert found.outcome is expected, found.reasons
    assert "CG-PROT-001" in {r.rule_id for r in found.reasons}


@pytest.mark.parametrize("line", ["echo x > s/a.py", "cat g/config", "ln -s src lib",
                                  "ln -s /usr/share/dict words"])
def test_links_elsewhere_pass(workspace: Path, line: str) -> None:
    found = Engine().check(line, cwd=str(workspace))
    assert "CG-PROT-001" not in {r.rule_id for r in found.reasons}
