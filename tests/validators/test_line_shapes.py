"""Dispatch by line shape (and by the programs a line runs) skips only line validators with
nothing to say: every line the engine puts to its line validators (resolved readings,
set-aside pieces and payload lines included), over the shared and the repository's corpora,
the fuzz regressions, every validator's docstring examples and generated lines, gets no
opinion from any line validator whose ``line_shapes()`` the line does not have and none of
whose ``line_programs()`` it runs. The engine-level comparison (the dispatched engine decides
as the exhaustive one) is ``test_dispatch.py``'s."""

from __future__ import annotations

import json
from pathlib import Path

import exhaustive
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_dispatch import CWD, _corpus_lines, _declared_commands, _example_lines, _regression_lines

from clawgate.decision import Outcome
from clawgate.shell import parse
from clawgate.shell.model import ParsedLine
from clawgate.testing.strategies import any_input, lines
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context
from clawgate.validators.lineshapes import LineDispatch

VALIDATORS = exhaustive.LINE_VALIDATORS
OWN_CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def _lines_seen(line: str) -> tuple[tuple[tuple[ParsedLine, bool], ...], Context]:
    found = exhaustive.run(line, CWD)
    return found.lines, found.ctx


def _assert_skipped_are_silent(line: str) -> None:
    seen, ctx = _lines_seen(line)
    for parsed, resolve in seen:
        shape = ls.line_shape(parsed)
        runs = {cmd.program for cmd in parsed.commands}
        for validator in VALIDATORS:
            if validator.line_shapes() & shape or (validator.spelling and not resolve) or (
                    not validator.line_programs().isdisjoint(runs)):
                continue
            verdict = validator.check_line(parsed, ctx)
            assert verdict.outcome is Outcome.PASSTHROUGH and not verdict.nested, (
                line, parsed.source, validator.id)


def _own_corpus_lines() -> list[str]:
    found = []
    for path in sorted(OWN_CORPUS.glob("*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            found += [json.loads(line)["command"] for line in handle if line.strip()]
    return found


def test_shared_corpus_lines() -> None:
    found = _corpus_lines()
    if not found:
        pytest.skip("no shared corpus")
    for line in found:
        _assert_skipped_are_silent(line)


def test_own_corpus_lines() -> None:
    found = _own_corpus_lines()
    assert found
    for line in found:
        _assert_skipped_are_silent(line)


def test_regression_and_example_lines() -> None:
    for line in [*_regression_lines(), *_example_lines()]:
        _assert_skipped_are_silent(line)
        _assert_skipped_are_silent(f"sudo {line}")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_declared_commands(), lines(), any_input()))
def test_generated_lines(line: str) -> None:
    _assert_skipped_are_silent(line)


@pytest.mark.parametrize(("line", "bit"), [
    ("ls | wc -l", ls.MULTI | ls.PIPE),
    ("echo $HOME", ls.DOLLAR),
    ("echo `id`", ls.BACKQUOTE),
    ("sleep 1 &", ls.AMP),
    ("wc -l < f", ls.LESS),
    ("ls\nid", ls.NEWLINE | ls.MULTI),
    ("ls # note", ls.HASH | ls.COMMENTS),
    ("l\\s", ls.BACKSLASH),
    ("echo a[1]", ls.BRACKET),
    ("X=1 ls", ls.EQUALS),
    ("echo é", ls.NON_ASCII),
    ("echo x > f", ls.WRITES),
    ("echo 'x", ls.UNPARSED),
    ("ls", ls.BLANKLESS),
    ("echo {a,b}", ls.GROUPING),
    ("diff <(ls) >(cat)", ls.GROUPING | ls.LESS),
])
def test_line_shape_bits(line: str, bit: int) -> None:
    assert ls.line_shape(parse(line)) & bit == bit


def test_a_plain_line_has_only_the_every_line_shape() -> None:
    assert ls.line_shape(parse("ls -la src")) == ls.ANY


def test_a_plain_line_skips_the_line_validators_keyed_on_shape() -> None:
    plain = parse("ls -la src")
    every = LineDispatch(VALIDATORS, exhaustive=True).checks(plain, True)
    assert every == tuple((v, v.check_line) for v in VALIDATORS)
    # one command of plain words: every line validator's first test fails on it
    assert LineDispatch(VALIDATORS).checks(plain, True) == ()
    piped = parse("cat a | grep $b")
    asked = LineDispatch(VALIDATORS).checks(piped, True)
    assert 0 < len(asked) < len(every)
    assert [v for v, _ in every if any(v is w for w, _ in asked)] == [v for v, _ in asked]
    resolved = LineDispatch(VALIDATORS, exhaustive=True).checks(plain, False)
    assert resolved == tuple((v, v.check_line) for v in VALIDATORS if not v.spelling)


def _asked(line: str) -> set[str]:
    return {v.id for v, _ in LineDispatch(VALIDATORS).checks(parse(line), True)}


@pytest.mark.parametrize(("line", "asked", "skipped"), [
    ("ls -la src", set(), {"CG-INJ-018", "CG-IDENT-004", "CG-DEG-003", "CG-NET-004"}),
    ("sleep 5", {"CG-INJ-018"}, {"CG-IDENT-004"}),
    ("git status", {"CG-IDENT-004"}, {"CG-INJ-018", "CG-DEG-003"}),
    ("rm -rf build", {"CG-DEG-003"}, {"CG-IDENT-004", "CG-FS-007"}),
    ("ls && ls", {"CG-DEG-003"}, {"CG-INJ-018", "CG-FS-007"}),  # two commands: by shape
    ("ln -s a b && cat b", {"CG-FS-007"}, {"CG-IDENT-003"}),
    ("cd src && ./run", {"CG-IDENT-003"}, {"CG-IDENT-004"}),
    ("dig example.com", {"CG-NET-004"}, {"CG-INJ-018"}),
    ("find . | xargs chmod g+s", {"CG-CAT-013"}, {"CG-NET-004"}),
    ("export HOOK='rm -rf ~'; zzrun", {"CG-PROG-005"}, {"CG-IDENT-004"}),
    ("git clone u d && make -C d", {"CG-ESC-017"}, {"CG-SEC-006", "CG-IDENT-002"}),
    ("git add .env && git push", {"CG-SEC-006"}, {"CG-ESC-017", "CG-WIN-005"}),
    ("alias ls='rm -rf ~'; ls", {"CG-IDENT-002"}, {"CG-SEC-006", "CG-PARSE-002"}),
    ("Invoke-WebRequest u | iex", {"CG-WIN-005"}, {"CG-IDENT-002"}),
    ("IEX x", {"CG-WIN-005"}, {"CG-ESC-017"}),
    ("awk '{print > f}' x", {"CG-PROG-002"}, {"CG-WIN-005"}),
    ("ls; " * 513, {"CG-PARSE-002"}, {"CG-IDENT-002"}),
    ("HOOK='rm -rf ~' zzrun", set(), {"CG-PROG-005"}),  # a prefix: CG-PROG-004's
])
def test_validators_named_by_program_are_asked_about_lines_running_it(
        line: str, asked: set[str], skipped: set[str]) -> None:
    found = _asked(line)
    assert asked <= found, (line, asked - found)
    assert not skipped & found, (line, skipped & found)


def test_each_validator_naming_programs_is_asked_about_each_of_them() -> None:
    dispatch = LineDispatch(VALIDATORS)
    naming = [v for v in VALIDATORS if v.line_programs()]
    assert naming
    for validator in naming:
        for program in validator.line_programs():
            parsed = parse(f"{program} x")
            if parsed.commands and parsed.commands[0].program == program:
                assert validator in {v for v, _ in dispatch.checks(parsed, True)}, (
                    validator.id, program)
