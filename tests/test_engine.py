"""The engine's contract: strictest wins, fail closed, recursion bounded, autonomy applied."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawgate.decision import Outcome, Risk, Verdict
from clawgate.engine import MAX_NESTING, Engine
from clawgate.policy.settings import Autonomy, EngineSettings
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator


class Exploding(Validator):
    """Raises on every command (for the fail-closed test)."""

    id = "CG-TEST-001"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        raise RuntimeError("boom")


class AskOnCurl(Validator):
    """ASK on curl (a stand-in opinion for combination tests)."""

    id = "CG-TEST-002"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        return Verdict.ask(self.id, "curl") if cmd.program == "curl" else Verdict.passthrough()


class DenyOnRm(Validator):
    """DENY on rm."""

    id = "CG-TEST-003"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        return Verdict.deny(self.id, "rm") if cmd.program == "rm" else Verdict.passthrough()


class UnwrapSudo(Validator):
    """Checks what sudo runs, recursively."""

    id = "CG-TEST-004"

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program == "sudo" and len(cmd.words) > 1:
            return Verdict.unwrap(SimpleCommand(" ".join(cmd.argv[1:]), cmd.words[1:]))
        if cmd.program == "sh" and len(cmd.words) > 2 and cmd.words[1].value == "-c":
            return Verdict.unwrap(cmd.words[2].shown)
        return Verdict.passthrough()


def test_a_crashing_validator_is_a_deny_naming_it() -> None:
    decision = Engine(validators=[Exploding()]).check("ls")
    assert decision.outcome is Outcome.DENY
    assert decision.reasons[0].rule_id == "CG-TEST-001"
    assert "failing closed" in decision.reasons[0].message


@pytest.mark.parametrize(("line", "expected"), [
    ("ls", Outcome.ALLOW),
    ("curl x", Outcome.ASK),
    ("ls && curl x", Outcome.ASK),
    ("curl x; rm y", Outcome.DENY),
    ("echo $(rm y)", Outcome.DENY),
    ("sudo rm y", Outcome.DENY),
    ("sudo sudo sh -c 'ls; rm y'", Outcome.DENY),
    ("sudo ls", Outcome.ALLOW),
])
def test_strictest_over_every_simple_command(line: str, expected: Outcome) -> None:
    engine = Engine(EngineSettings(autonomy=Autonomy.FULL),
                    validators=[AskOnCurl(), DenyOnRm(), UnwrapSudo()])
    assert engine.check(line).outcome is expected


def test_unwrapping_is_bounded() -> None:
    engine = Engine(validators=[UnwrapSudo()])
    deep = engine.check("sudo " * (MAX_NESTING + 2) + "ls")
    assert deep.outcome is Outcome.DENY
    assert deep.reasons[0].rule_id == "CG-ENGINE-002"
    within = engine.check("sudo " * MAX_NESTING + "ls")
    assert within.outcome is not Outcome.DENY  # ASK: sudo itself is high risk
    assert all(r.rule_id != "CG-ENGINE-002" for r in within.reasons)


def test_every_reason_names_its_simple_command() -> None:
    engine = Engine(validators=[DenyOnRm()])
    (reason,) = engine.check("ls; rm -f x").reasons
    assert reason.command == "rm -f x"


@pytest.mark.parametrize(("settings", "risk", "expected"), [
    (EngineSettings(autonomy=Autonomy.READONLY), "cat f", Outcome.ALLOW),
    (EngineSettings(autonomy=Autonomy.READONLY), "make", Outcome.DENY),
    (EngineSettings(autonomy=Autonomy.READONLY), "curl x", Outcome.DENY),
    (EngineSettings(), "cat f", Outcome.ALLOW),
    (EngineSettings(), "make", Outcome.ALLOW),
    (EngineSettings(), "curl x", Outcome.ASK),
    (EngineSettings(require_approval_for_medium_risk=True), "make", Outcome.ASK),
    (EngineSettings(autonomy=Autonomy.FULL), "curl x", Outcome.ALLOW),
    (EngineSettings(autonomy=Autonomy.FULL, block_high_risk_commands=True), "curl x",
     Outcome.DENY),
])
def test_autonomy(settings: EngineSettings, risk: str, expected: Outcome) -> None:
    assert Engine(settings, validators=[]).check(risk).outcome is expected


def test_autonomy_never_lifts_a_deny() -> None:
    engine = Engine(EngineSettings(autonomy=Autonomy.FULL), validators=[DenyOnRm()])
    assert engine.check("rm x").outcome is Outcome.DENY


def test_risk_is_the_highest_of_the_line() -> None:
    assert Engine(validators=[]).check("ls | curl x").risk is Risk.HIGH


def test_the_cache_is_bounded_and_keyed_by_cwd() -> None:
    engine = Engine(validators=[], cache_size=2)
    for line in ("a", "b", "c"):
        engine.check(line, cwd="/tmp")
    assert len(engine._cache) == 2
    assert engine.check("a", cwd="/tmp") == engine.check("a", cwd="/tmp")
    engine.check("a", cwd="/")
    assert any(key[:2] == ("a", "/") for key in engine._cache)


def test_trace_lists_each_simple_command_and_the_winner() -> None:
    engine = Engine(validators=[DenyOnRm()])
    trace = engine.check("ls; rm x").trace
    assert [t.command for t in trace if t.rule_id == "risk"] == ["ls", "rm x"]
    assert trace[-1].rule_id == "final" and trace[-1].outcome is Outcome.DENY


def test_a_deleted_working_directory_still_gets_a_decision(
        tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    from pathlib import Path

    gone = Path(str(tmp_path)) / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    decision = Engine().check("touch x")
    assert decision.outcome in (Outcome.ALLOW, Outcome.ASK)
    assert not os.path.exists(gone)


def test_the_cache_knows_which_home_a_decision_was_made_under(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = Engine()
    monkeypatch.setenv("HOME", str(tmp_path))
    assert engine.check("touch ~/notes.txt", cwd=str(tmp_path)).outcome is Outcome.ALLOW
    monkeypatch.setenv("HOME", "/root")
    assert engine.check("touch ~/notes.txt", cwd=str(tmp_path)).outcome is Outcome.ASK


def test_checks_from_many_threads_at_once() -> None:
    # Guard.acall and the MCP proxy check from worker threads: each thread parses with its own
    # tree-sitter parser, and the shared bounded cache is evicted under them
    import threading

    engine = Engine(cache_size=8)
    lines = [f"grep -n 'x{i}' src/*.py | sort && echo $(date) # {i}" for i in range(40)]
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(5):
                for line in lines:
                    assert engine.check(line).outcome is Outcome.ALLOW
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors


@pytest.mark.parametrize("line", ["cd / && rm -rf x", "abcd x", "pushd /tmp", "popd", "ls",
                                  "echo cd", "x=cd; $x /", "pushd_x", "ls; popd -n", ""])
def test_the_cd_first_look_is_the_word_search(line: str) -> None:
    from clawgate.engine import _MAY_MOVE, _may_move

    assert _may_move(line) is (_MAY_MOVE.search(line) is not None)


@pytest.mark.parametrize("replaced", [False, True])
def test_a_contexts_environment_is_read_as_set_now(
        replaced: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # Read from os.environ's encoded mapping, or through os.environ.get where it was replaced
    from clawgate.engine import _CONTEXT_ENV, _environment

    monkeypatch.setenv("CDPATH", "/srv")
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    if replaced:
        monkeypatch.setattr(os, "environ", dict(os.environ))
    found = _environment()
    assert found[_CONTEXT_ENV.index("XDG_STATE_HOME")] is None
    decoded = [v.decode() if isinstance(v, bytes) else v for v in found]
    assert decoded == [os.environ.get(name) for name in _CONTEXT_ENV]
    assert decoded[0] == "/srv"
