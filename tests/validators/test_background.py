"""CG-DEST-010: a job left in the background asks; one the line waits for or ends does not."""

from __future__ import annotations

import pytest
from vtables import ASK, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.shell import parse
from clawgate.validators.base import Context
from clawgate.validators.disruptive import BackgroundJob


@pytest.mark.parametrize("line", [
    "node integration/server.js &",
    "./server --port 8080 &",
    "./server & ./other & kill $pid",  # $pid names no job of this line
    "./a & PID=$!; ./b & kill $PID",  # ./b is left running
    "./a & ./b & kill $!",  # $! is ./b: ./a is left running
    "./server & wait 123",  # some other process
    "./server & trap 'kill 0123' EXIT",
    "bash -c './server &'",  # a line inside a line
    "(./server &); kill $!",  # a job of the subshell: $! outside names none
    "(./server &); wait",
    "./server & wait | cat",  # wait in a pipeline runs in a subshell
    "./server & (trap 'kill $(jobs -p)' EXIT)",
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
    assert unsafe.check("./server --port 8080 &").outcome is Outcome.ALLOW
