"""The dynamic loader run as a program: its --preload, --audit and --library-path are judged
as LD_PRELOAD, LD_AUDIT and LD_LIBRARY_PATH (CG-ENV-006 hands the command to CG-ENV-001)."""

from __future__ import annotations

import pytest
from vtables import decide

from clawgate.decision import Outcome
from clawgate.validators.loader import LOADER


@pytest.mark.parametrize(("line", "expected"), [
    ("/lib64/ld-linux-x86-64.so.2 --preload /tmp/x.so /bin/ls", Outcome.DENY),
    ("/lib/ld-linux-aarch64.so.1 --audit=/tmp/a.so /usr/bin/id", Outcome.DENY),
    ("ld.so --argv0 ls --preload ./x.so /bin/ls", Outcome.DENY),
    ("/lib64/ld-linux-x86-64.so.2 --list /bin/ls", Outcome.ALLOW),
    ("/lib64/ld-linux-x86-64.so.2 --library-path ./build/lib ./build/bin/tests", Outcome.ALLOW),
])
def test_loader_options_judged_as_variables(line: str, expected: Outcome) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, rules
    assert ("CG-ENV-001" in rules) is (expected is Outcome.DENY)


@pytest.mark.parametrize(("name", "loader"), [
    ("ld.so", True), ("ld-linux.so.2", True), ("ld-linux-x86-64.so.2", True),
    ("ld-musl-x86_64.so.1", True), ("ldd", False), ("ld", False), ("ld.gold", False),
])
def test_loader_names(name: str, loader: bool) -> None:
    assert (LOADER.match(name) is not None) is loader
