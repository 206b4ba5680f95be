"""A program the catalog does not know, handed a known program and its words as operands
(``zzrun rm -rf ~``): it may run them, as ``nice`` or ``xvfb-run`` do, or take them as words
(``./lint completion bash``). The reading of them as a command counts when it is a DENY; a
question that reading would raise does not, so tools whose operands name programs stay out
of the way. The real engine, from a workspace directory."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY
WS = "/tmp/operands-ws/project"
ENGINE = Engine()

CASES = [
    ("zzrun rm -rf ~", DENY, "CG-DEG-001"),
    ("zzrun --quiet=1 rm -rf ~/", DENY, "CG-DEG-001"),
    ("zzrun build rm -rf /", DENY, "CG-CAT-001"),
    ("./tools/run.sh cat ~/.ssh/id_rsa", DENY, "CG-SEC-001"),
    ("zzrun sudo rm -rf /etc", DENY, "CG-DEG-001"),
    ("zzrun rm -rf ~ && echo done", DENY, "CG-DEG-001"),
    # near-misses: a harmless command, or one that would only be a question
    ("zzrun echo hi", ALLOW, None),
    ("zzrun rm -rf build", ALLOW, None),
    ("./golangci-lint completion bash", ALLOW, None),
    ("./hack/install.sh helm", ALLOW, None),
    ("mytool build --release", ALLOW, None),
    # a push among its first words: whoever runs it, the project leaves (CG-DEST-012)
    ("zzrun git push origin main", ASK, "CG-DEST-012"),
    ("zzrun git status", ALLOW, None),
    ("mytool --shell /bin/bash -p 8080", ASK, "CG-ESC-001"),  # the option's value, a question
]


@pytest.mark.parametrize(("line", "outcome", "rule"), CASES)
def test_an_unknown_program_handed_a_command_as_words(
        line: str, outcome: Outcome, rule: str | None) -> None:
    decision = ENGINE.check(line, cwd=WS)
    assert decision.outcome is outcome, decision
    if rule is not None:
        assert rule in {r.rule_id for r in decision.reasons}
