"""Real bash as the judge of what a line runs, for tests: ``clawgate.testing.bashoracle`` (the
sandbox, every program a recorder stub) and ``clawgate.testing.unjudged`` (what the engine did
not judge), under the names the tests use."""

from __future__ import annotations

from clawgate.testing.bashoracle import Oracle, OracleError, Run, available, ran
from clawgate.testing.unjudged import Judge, judged, matches, missing, unjudged

__all__ = ["Judge", "Oracle", "OracleError", "Run", "available", "judged", "matches", "missing",
           "ran", "unjudged"]
