"""A long-lived process loads the whole check path once; a timing can forget what was seen."""

from __future__ import annotations

import sys

from clawgate import lazyre
from clawgate.engine import Engine
from clawgate.preload import preload
from clawgate.shell import _recent, differential


def test_preload_imports_the_check_path_and_compiles_every_pattern() -> None:
    count = preload()
    assert count == len(lazyre._MADE) > 100
    assert all("search" in vars(made) for made in lazyre._MADE)
    for name in ("clawgate.validators.unknownwords", "clawgate.shell.hoist",
                 "clawgate.shell.shadow.runner", "clawgate.programs"):
        assert name in sys.modules


def test_a_compiled_stand_in_answers_as_the_pattern_does() -> None:
    pattern = lazyre.lazy_pattern(r"r(m)+")
    lazyre.compile_all()
    found = pattern.search("xrmm")
    assert found is not None and found.group(0) == "rmm"


def test_forget_drops_remembered_decisions_and_readings() -> None:
    engine = Engine()
    line = "echo $(ls) | grep x"
    first = engine.check(line)
    assert engine.check(line) is first  # remembered
    assert differential._remembered.cache_info().currsize > 0
    assert _recent.cache_info().currsize > 0
    engine.forget()
    assert differential._remembered.cache_info().currsize == 0
    assert _recent.cache_info().currsize == 0
    again = engine.check(line)
    assert again is not first and again.outcome is first.outcome
