"""Dispatch by program changes no decision: the engine that asks only the validators whose
declared ``programs`` match decides exactly as the one that asks every validator, over the
shared corpora, the fuzz regressions and generated commands."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawgate.decision import Decision
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings
from clawgate.records import replace
from clawgate.testing.strategies import (
    DANGEROUS,
    PROGRAMS,
    TRICKY_LINES,
    any_input,
    lines,
    words,
)
from clawgate.validators import Validator, load_all
from clawgate.validators.dispatch import Dispatch

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
REGRESSIONS = Path(__file__).resolve().parents[1] / "testing" / "regressions.jsonl"
CWD = "/tmp/workspace"


def _command_validators() -> list[Validator]:
    return [v for v in load_all().instances() if isinstance(v, Validator)]


def _declared() -> list[str]:
    """Every declared program, and versioned forms of each (``python3.11`` for ``python``)."""
    names = {p for v in _command_validators() for p in (v.programs or ())}
    return sorted(names | {f"{n}3.11" for n in names} | {f"{n}2" for n in names})


def _corpus_lines() -> list[str]:
    found = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            found += [json.loads(line)["command"] for line in handle if line.strip()]
    return found


def _regression_lines() -> list[str]:
    found: list[str] = []
    with REGRESSIONS.open(encoding="utf-8") as handle:
        for raw in handle:
            arguments: dict[str, Any] = json.loads(raw)["arguments"]
            found += [v for v in arguments.values() if isinstance(v, str)]
            if {"line", "extra", "sep"} <= arguments.keys():
                found.append(arguments["line"] + arguments["sep"] + arguments["extra"])
    return found


def _example_lines() -> list[str]:
    """The examples in every validator's docstring (``Bad: ...``, ``Harmless: ...``), the
    harness's dangerous argvs and tricky lines: each family's own cases."""
    snippets = [s for cls in load_all().classes()
                for s in re.findall(r"``(.+?)``", cls.__doc__ or "", re.S)]
    return [*snippets, *(shlex.join(argv) for argv in DANGEROUS), *TRICKY_LINES]


def _shape(decision: Decision) -> tuple[object, ...]:
    return (decision.outcome, decision.risk, decision.misparsing,
            tuple(r.rule_id for r in decision.reasons), decision.reasons, decision.trace)


def _pairs() -> list[tuple[Engine, Engine]]:
    """Pairs with the shadow run off: dispatch is about the static reading, and a shadow run
    that the machine's load times out would differ between the two for no fault of theirs."""
    plain = replace(EngineSettings(), shadow=False)
    layered = replace(Engine.from_files().settings, shadow=False)
    return [(Engine(plain, cache_size=0), Engine(plain, cache_size=0, exhaustive=True)),
            (Engine(layered), Engine(layered, cache_size=0, exhaustive=True))]


PAIRS = _pairs()


def _assert_same(line: str) -> None:
    for dispatched, exhaustive in PAIRS:
        assert _shape(dispatched.check(line, cwd=CWD)) == _shape(
            exhaustive.check(line, cwd=CWD)), line


def test_corpus_lines_decide_the_same() -> None:
    lines_ = _corpus_lines()
    if not lines_:
        pytest.skip(f"no shared corpus at {CORPUS}")
    for line in lines_:
        _assert_same(line)


def test_regression_lines_decide_the_same() -> None:
    for line in _regression_lines():
        _assert_same(line)


def test_validator_examples_decide_the_same() -> None:
    for line in _example_lines():
        _assert_same(line)
        _assert_same(f"sudo {line}")


@st.composite
def _declared_commands(draw: st.DrawFn) -> str:
    """A declared (or common) program with grammar words, sometimes behind a wrapper."""
    program = draw(st.sampled_from([*_declared(), *PROGRAMS]))
    prefix = draw(st.sampled_from(["", "sudo ", "env A=1 ", "timeout 5 ", "bash -c '",
                                   "echo x | ", "/usr/bin/"]))
    line = prefix + " ".join([program, *draw(st.lists(words(), max_size=4))])
    return line + "'" if prefix == "bash -c '" else line


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_declared_commands(), lines(), any_input()))
def test_generated_commands_decide_the_same(line: str) -> None:
    _assert_same(line)


def test_exhaustive_dispatch_asks_everyone() -> None:
    validators = _command_validators()
    assert Dispatch(validators, exhaustive=True).for_program("ls") == tuple(validators)


def test_dispatch_keeps_registration_order_and_matches_stems() -> None:
    validators = _command_validators()
    chosen = Dispatch(validators).for_program("python3.11")
    assert [v for v in validators if v in chosen] == list(chosen)
    assert any(v.id == "CG-INTERP-001" for v in chosen)  # declared for "python"
    assert all(v.programs is None for v in Dispatch(validators).for_program(None))
    assert not any(v.id == "CG-DEST-001" for v in Dispatch(validators).for_program("ls"))
