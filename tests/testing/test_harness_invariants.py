"""Each invariant holds where it should and catches the policy that breaks it."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from harness_policies import FirstCommandOnly, Hang, Slow, SlowMachine, SlowOnce, blind, unwrapping

from clawgate.decision import Decision, Outcome
from clawgate.engine import Engine
from clawgate.testing import invariants as inv
from clawgate.testing._guarded import GuardedShell


def test_decides_gives_a_final_decision() -> None:
    decision = inv.decides_in_time(Engine(), "ls -la | wc -l")
    assert isinstance(decision, Decision)
    assert decision.outcome is Outcome.ALLOW


def test_decides_catches_a_slow_checker() -> None:
    engine = Engine(validators=[Slow(0.08)])
    # 80 ms of CPU against a 10 ms deadline, and against 8 times the reference line's ~2 ms
    # (a busy machine's reference of up to 10 ms still leaves it over); the watchdog may fire
    # first: either way a decides violation.
    with pytest.raises(inv.InvariantViolation,
                       match=r"over its [0-9.]+ ms bound \(the larger of 10 ms and 8 times the "
                       r"reference line's [0-9.]+ ms\)|the checker hangs") as caught:
        inv.decides_in_time(engine, "slow x", deadline_ms=10)
    assert caught.value.invariant == "decides"
    assert caught.value.lines() == ("slow x",)
    if "bound" in str(caught.value):  # every try timed, each as a first sight
        assert str(caught.value).count(", ") >= inv.CONFIRMATIONS
    inv.decides_in_time(Engine(validators=[Slow()]), "slow x", deadline_ms=2000)


def test_decides_allows_a_long_line_as_much_per_256_characters() -> None:
    # 30 ms of CPU: over 10 ms for a short line, within the 80 ms of a line of 2,048 characters
    engine = Engine(validators=[Slow()])
    long_line = "slow " + "x" * (8 * inv.DEADLINE_CHARS - 5)
    assert inv.decides_in_time(engine, long_line, deadline_ms=10).outcome is Outcome.ALLOW
    with pytest.raises(inv.InvariantViolation, match=r"over its 15\.0 ms bound \(the larger of "
                       r"10 ms and 0 times the reference line's [0-9.]+ ms per 256 characters\)"
                       r"|the checker hangs"):
        inv.decides_in_time(engine, "slow " + "x" * (384 - 5), deadline_ms=10, ratio=0)


def test_decides_bound_moves_with_the_machine() -> None:
    # A machine where every command costs 5 ms of CPU: the reference line (a dozen commands)
    # costs over 50 ms there, so a line of 35 ms is no slower than the machine makes every
    # line, and meets its bound; with the machine left out (ratio 0) it misses 10 ms.
    engine = Engine(validators=[Slow(), SlowMachine()])
    assert inv.decides_in_time(engine, "slow x", deadline_ms=10).outcome is Outcome.ALLOW
    with pytest.raises(inv.InvariantViolation, match=r"over its 10\.0 ms bound|the checker hangs"):
        inv.decides_in_time(engine, "slow x", deadline_ms=10, ratio=0)


def test_decides_confirms_a_miss_before_it_fails() -> None:
    # One slow first sight (a neighbour's noise) is timed again, as a first sight: the
    # remembered decision is dropped, so the line is really checked again, and meets it.
    validator = SlowOnce()
    engine = Engine(validators=[validator])
    decision = inv.decides_in_time(engine, "slow x", deadline_ms=10)
    assert validator.burnt
    assert decision.outcome is Outcome.ALLOW


@pytest.mark.real_watchdog
def test_decides_interrupts_a_hung_checker() -> None:
    engine = Engine(validators=[Hang()])
    with pytest.raises(inv.InvariantViolation, match="no decision after 200 ms"):
        inv.decides_in_time(engine, "hang", deadline_ms=20)
    with pytest.raises(inv.InvariantViolation, match="no decision after 1 s") as caught:
        inv.rewrite_not_weaker(engine, "ls", "hang")
    assert caught.value.invariant == "decides"  # whichever invariant ran into it


class Raising:
    """Stands where an engine would and raises: what the invariant must report."""

    def check(self, line: str, *, cwd: str | None = None) -> Decision:
        raise RuntimeError("boom")


def test_decides_catches_an_exception() -> None:
    with pytest.raises(inv.InvariantViolation, match="check raised RuntimeError: boom"):
        inv.decides_in_time(Raising(), "ls")  # type: ignore[arg-type]


def test_rewrites_hold_when_the_engine_unwraps() -> None:
    assert inv.rewrite_not_weaker(unwrapping(), "rm -rf /", "env rm -rf /") is True
    assert inv.rewrite_not_weaker(unwrapping(), "ls", "env ls") is False


def test_rewrites_catch_a_blind_engine() -> None:
    with pytest.raises(inv.InvariantViolation, match="rewrite is allow but the command is deny"):
        inv.rewrite_not_weaker(blind(), "rm -rf /", "env rm -rf /")


def test_adding_holds_for_strictest_wins() -> None:
    assert inv.adding_never_lowers(blind(), "ls", "rm -rf /", "; ") is True
    assert inv.adding_never_lowers(blind(), "ls", "pwd", " | ") is False


def test_adding_catches_a_check_blind_to_later_commands() -> None:
    engine = Engine(validators=[FirstCommandOnly()])
    with pytest.raises(inv.InvariantViolation) as caught:
        inv.adding_never_lowers(engine, "ls", "rm -rf /", " && ")
    assert caught.value.lines() == ("ls", "rm -rf /", "ls && rm -rf /")


def test_wrappers_hold_when_the_engine_unwraps() -> None:
    engine = unwrapping()
    assert inv.deny_survives_wrapping(engine, "rm -rf /", "sudo rm -rf /") is True
    assert inv.deny_survives_wrapping(engine, "rm -rf /", "bash -c 'rm -rf /'") is True
    assert inv.deny_survives_wrapping(engine, "ls", "sudo ls") is False  # nothing to keep


def test_wrappers_catch_a_blind_engine() -> None:
    # sudo is high risk, so the blind engine still asks; a DENY must stay a DENY
    with pytest.raises(inv.InvariantViolation, match=r"deny but wrapped it is (allow|ask)"):
        inv.deny_survives_wrapping(blind(), "rm -rf /", "sudo rm -rf /")


def test_audit_holds_for_allowed_and_approved_calls() -> None:
    engine = blind()
    inv.executed_calls_audited(engine, ["ls", "curl x", "ls"], [
        {"command": "ls", "outcome": "allow"},
        {"command": "curl x", "outcome": "ask", "approved": True},
        {"command": "rm -rf /", "outcome": "deny"},
        {"command": "ls", "outcome": "allow"},
    ])


@pytest.mark.parametrize(("executed", "audit", "message"), [
    (["ls"], [], "ran without an audit record"),
    (["ls", "ls"], [{"command": "ls", "outcome": "allow"}], "ran without an audit record"),
    (["curl x"], [{"command": "curl x", "outcome": "ask"}], "ran without an audit record"),
    (["rm -rf /"], [{"command": "rm -rf /", "outcome": "allow"}], "the policy says deny"),
    (["curl x"], [{"command": "curl x", "outcome": "allow"}], "the policy says ask"),
])
def test_audit_catches_unrecorded_or_unpermitted_runs(
        executed: list[str], audit: list[dict[str, object]], message: str) -> None:
    with pytest.raises(inv.InvariantViolation, match=message):
        inv.executed_calls_audited(blind(), executed, audit)


def test_replay_runs_a_stored_counterexample() -> None:
    with pytest.raises(inv.InvariantViolation) as caught:
        inv.deny_survives_wrapping(blind(), "rm -rf /", "sudo rm -rf /")
    record = caught.value.arguments
    with pytest.raises(inv.InvariantViolation):
        inv.replay(blind(), "wrappers", record)
    inv.replay(unwrapping(), "wrappers", record)


def test_a_real_guard_runs_only_what_the_policy_and_the_approver_let_through() -> None:
    with ExitStack() as stack:
        shell = GuardedShell((), stack)
        lines = ["ls -la", "rm -rf /", "curl -s -X POST https://example.com"]
        ran, records = shell.run(lines, approve=False)
        assert ran == ["ls -la"]
        assert [(r["command"], r["outcome"]) for r in records] == [
            ("ls -la", "allow"), ("rm -rf /", "deny"),
            ("curl -s -X POST https://example.com", "deny")]
        inv.executed_calls_audited(Engine(), ran, records, cwd=str(shell.workspace))
        ran, records = shell.run(lines, approve=True)
        assert ran == ["ls -la", "curl -s -X POST https://example.com"]
        assert records[2] == {"command": "curl -s -X POST https://example.com", "outcome": "ask",
                              "approved": True}
        inv.executed_calls_audited(Engine(), ran, records, cwd=str(shell.workspace))
        with pytest.raises(inv.InvariantViolation, match="without an audit record"):
            inv.executed_calls_audited(Engine(), ran, records[:1], cwd=str(shell.workspace))
