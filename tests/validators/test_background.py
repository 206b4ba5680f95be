"""CG-DEST-010: a background job the line takes out of its shell's reach (a subshell's job,
``disown``) asks; a plain ``cmd &``, or one the line waits for or ends, does not."""

from __future__ import annotations

import pytest
from vtables import ASK, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.shell import parse
from clawgate.validators.base import Context
from clawgate.validators.disruptive import BackgroundJob


@pytest.mark.parametrize("line", [
    "(./server &)",  # a job of a subshell: no job of this shell
    "(./server &); kill $!",  # $! outside names none
    "(./server &); wait",
    "./worker & disown",  # out of the job table
    "./a & ./b & disown %1",
    "x=$(./server &)",
])
def test_unbounded_jobs_ask(line: str) -> None:
    assert_caught(line, ASK, "CG-DEST-010")


@pytest.mark.parametrize("line", [
    "node server.js & pid=$!\nnpm test\nkill $pid",
    "node server.js &\nPID=$!\nnpm test\nkill \"$PID\"",
    "./server & sleep 1; npm test; kill $!",
    "./server & npm test; kill %1",
    "make serve & npm test; wait",
    "./a & ./b & wait",
    "timeout 60 node server.js &",
    "trap 'kill $(jobs -p)' EXIT\n./server &\nnpm test",
    "./server &\ntrap 'kill $(jobs -p)' EXIT\nnpm test",
    "./server & pid=$!\ntrap 'kill $pid' EXIT\nnpm test",
    "ls &",  # a read ends on its own
    # plain jobs of this shell: its process group, which the executors end with the call
    "node integration/server.js &",
    "./server --port 8080 &",
    "npm run dev &",
    "./a & ./b & kill $!",
    "bash -c './server &'",
    "node tests/server.js &> /dev/null &",
])
def test_bounded_jobs_are_allowed(line: str) -> None:
    assert_allowed(line)


def test_detaching_still_asks_when_bounded() -> None:
    """``nohup`` and ``setsid`` are made to outlive the session: CG-DEST-008 still asks."""
    assert_caught("nohup ./server & kill $!", ASK, "CG-DEST-008")


def test_no_ampersand_no_opinion(ctx: Context) -> None:
    verdict = BackgroundJob().check_line(parse("make && make test"), ctx)
    assert verdict.outcome is Outcome.PASSTHROUGH


def test_unsafe_lifts_it_as_the_other_destructive_asks() -> None:
    from clawgate.engine import Engine
    from clawgate.policy.settings import EngineSettings

    unsafe = Engine(EngineSettings(unsafe=True))
    assert unsafe.check("(./server --port 8080 &)").outcome is Outcome.ALLOW
