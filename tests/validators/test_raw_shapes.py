"""Raw validators asked only about texts that are not printable ASCII skip nothing they would
speak on: each whose ``reads_plain_text()`` is False is silent on every text of printable ASCII
characters alone (the corpora, the fuzz regressions, every validator's docstring examples and
generated texts), and the engine still asks it about any other text."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dispatch import CWD, _corpus_lines, _example_lines, _regression_lines

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.validators import RawValidator, load_all

VALIDATORS = [v for v in load_all().instances() if isinstance(v, RawValidator)]
SKIPPING = [v for v in VALIDATORS if not v.reads_plain_text()]
PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " "


def _assert_silent_on_plain(text: str) -> None:
    if not (text.isascii() and text.isprintable()):
        return
    ctx = Engine(cache_size=0)._context(CWD)
    for validator in SKIPPING:
        verdict = validator.check_text(text, ctx)
        assert verdict.outcome is Outcome.PASSTHROUGH and not verdict.nested, (text,
                                                                              validator.id)


def test_the_hygiene_checks_skip_plain_text() -> None:
    assert {v.id for v in SKIPPING} == {"CG-HYG-001", "CG-HYG-002", "CG-HYG-003", "CG-HYG-008"}


def test_corpus_regression_and_example_lines() -> None:
    found = [*_corpus_lines(), *_regression_lines(), *_example_lines()]
    assert found
    for line in found:
        _assert_silent_on_plain(line)


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(st.text(alphabet=PRINTABLE, max_size=80))
def test_generated_plain_texts(text: str) -> None:
    _assert_silent_on_plain(text)


@pytest.mark.parametrize(("line", "rule"), [
    ("echo a\x07b", "CG-HYG-001"),
    ("echo safe\rrm -rf ~", "CG-HYG-002"),
    ("rm\u00a0-rf /", "CG-HYG-003"),
    ("cat /et\\\nc/passwd", "CG-HYG-008"),
])
def test_any_other_text_is_still_asked(line: str, rule: str) -> None:
    decision = Engine(cache_size=0).check(line, cwd=CWD)
    assert rule in {r.rule_id for r in decision.reasons}
