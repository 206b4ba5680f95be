"""The service's decision threads: a decision past its limit is given up (the request answered
without it), one agent's stuck decisions hold only its own share of the threads, and a slot
freed lets the agent's next decision run. Decisions here block on events the test releases:
nothing is timed."""

from __future__ import annotations

import asyncio
import threading

import pytest

from clawgate.serve.deciders import Deciders, TooSlow

HANG_S = 120.0


def stuck(release: threading.Event, started: threading.Event | None = None) -> str:
    if started is not None:
        started.set()
    release.wait(HANG_S)
    return "finished"


def test_a_decision_past_its_limit_is_given_up() -> None:
    deciders = Deciders(workers=2, per_agent=2, limit_s=0.2)
    release = threading.Event()

    async def scenario() -> None:
        with pytest.raises(TooSlow, match=r"took longer than 0\.2 s"):
            await deciders.run("a", lambda: stuck(release))

    try:
        asyncio.run(scenario())
    finally:
        release.set()
        deciders.close()


def test_one_agents_stuck_decisions_leave_the_others_theirs() -> None:
    deciders = Deciders(workers=8, per_agent=4, limit_s=HANG_S)
    release, release_fifth, fifth_started = threading.Event(), threading.Event(), \
        threading.Event()

    async def scenario() -> tuple[str, bool, list[str], str]:
        held = [asyncio.create_task(deciders.run("greedy", lambda: stuck(release)))
                for _ in range(4)]
        await asyncio.sleep(0)  # the four take the agent's four slots
        fifth = asyncio.create_task(deciders.run(
            "greedy", lambda: stuck(release_fifth, fifth_started)))
        other = await deciders.run("other", lambda: "other answered")
        fifth_was_waiting = not fifth_started.is_set() and not fifth.done()
        release.set()
        done = await asyncio.gather(*held)
        await asyncio.to_thread(fifth_started.wait, HANG_S)  # a freed slot let it run
        release_fifth.set()
        return other, fifth_was_waiting, done, await fifth

    try:
        answered = asyncio.run(scenario())
    finally:
        release.set()
        release_fifth.set()
        deciders.close()
    assert answered == ("other answered", True, ["finished"] * 4, "finished")


def test_a_failing_decision_fails_its_request() -> None:
    deciders = Deciders(workers=1, per_agent=1, limit_s=HANG_S)

    def broken() -> str:
        raise ValueError("the checker broke")

    async def scenario() -> str:
        with pytest.raises(ValueError, match="the checker broke"):
            await deciders.run("a", broken)
        return await deciders.run("a", lambda: "next")  # its slot was given back

    try:
        assert asyncio.run(scenario()) == "next"
    finally:
        deciders.close()
