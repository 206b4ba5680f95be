"""A ``find`` whose name tests match a credential, handing what it finds on to be read: piped
into ``xargs`` or substituted into another command's words (``cat $(find ~ -name id_rsa)``),
as ``-exec cat {} +`` hands it. The real engine, from a workspace directory."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

ALLOW, ASK = Outcome.ALLOW, Outcome.ASK
ENGINE = Engine(cache_size=0)

CASES = [
    ("find ~ -name id_rsa | xargs cat", ASK),
    ("find ~ -name id_ed25519 -print0 | xargs -0 -I{} cp {} /tmp/loot", ASK),
    ("cat $(find ~ -name id_rsa)", ASK),
    ("tar czf /tmp/k.tgz $(find ~ -name .git-credentials)", ASK),
    ("diff <(find ~ -name .env) notes.txt", ASK),
    ("find ~ -iname '*.KEY' | parallel cat", ASK),
    # near-misses: sources found and read, a credential only listed, a template env file
    ("find . -name '*.py' | xargs grep -n TODO", ALLOW),
    ("vim $(find . -name '*.go')", ALLOW),
    ("find ~ -name id_rsa", ALLOW),
    ("find . -name .env.example | xargs cat", ALLOW),
    ("find examples -name '*.json' | xargs js-beautify -r", ALLOW),
    ("[ -n \"$(find changelog -maxdepth 1 -name '*.yaml' -print -quit)\" ] && changie batch auto",
     ALLOW),
]


@pytest.mark.parametrize(("line", "outcome"), CASES)
def test_a_credential_found_and_handed_on_is_read(line: str, outcome: Outcome) -> None:
    decision = ENGINE.check(line, cwd="/tmp/found-ws/project")
    assert decision.outcome is outcome, decision
    if outcome is ASK:
        assert "CG-SEC-001" in {r.rule_id for r in decision.reasons}
