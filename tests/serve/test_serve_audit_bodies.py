"""The audit body of a decision made again (the same line, the same ``Decision``) is the one
scrubbing gives, whether it was kept from the first time or made anew: the same records as
before, on both databases' code paths (SQLite here; PostgreSQL in the postgres tests)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from clawgate.policy.loader import load_policy
from clawgate.serve.chain import Chain
from clawgate.serve.db import audit, connect, migrate
from clawgate.serve.queue import Queue
from clawgate.serve.service import Service

KEY = b"k" * 32
SECRET = "AKIAIOSFODNN7EXAMPLE"  # a fake, credential-shaped string


@pytest.mark.parametrize(("command", "cwd"), [
    ("git status", None),
    ("rm -rf /", None),
    (f"curl -H 'X-Key: {SECRET}' https://example.com", None),
    (f"echo {SECRET} | sh", None),
    ("ls -la", "src"),
])
def test_a_decision_made_again_is_audited_as_the_first(tmp_path: Path, command: str,
                                                       cwd: str | None) -> None:
    (tmp_path / "src").mkdir()
    engine = connect(f"sqlite:///{tmp_path / 's.db'}")
    migrate(engine)
    service = Service(load_policy(), Chain(engine, KEY), Queue(engine, KEY),
                      workspace=str(tmp_path))

    async def twice() -> list[str]:
        first = await service.check(command, cwd, "agent-1", "s1")
        again = await service.check(command, cwd, "agent-1", "s1")
        assert first.decision is again.decision  # remembered: the body may be kept too
        return [first.outcome, again.outcome]

    try:
        outcomes = asyncio.run(twice())
        with engine.connect() as conn:
            rows = conn.execute(sa.select(audit).order_by(audit.c.seq)).all()
        verified = service.chain.verify()
    finally:
        service.close()
        engine.dispose()
    decision = service.engine.check(command, cwd=str(tmp_path / cwd) if cwd else str(tmp_path))
    bodies = [json.loads(r.body) for r in rows]
    expected = [service.scrubber.scrub_value({
        "command": command, "cwd": cwd, "risk": decision.risk.label,
        "reasons": [r.as_dict() for r in decision.reasons], "approval": body["approval"],
        "granted": False}) for body in bodies]  # an ASK opens a request of its own each time
    assert bodies == expected
    assert [r.outcome for r in rows] == outcomes
    assert SECRET not in "".join(r.body for r in rows)
    assert verified["ok"] and verified["records"] == 2
