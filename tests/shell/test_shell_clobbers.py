"""``clobbered``: a loop's variable is set by the loop, whatever the line assigns it before; a
line without a loop word names no loop variable."""

from __future__ import annotations

import pytest

from clawgate.shell import parse
from clawgate.shell.clobbers import DYNAMIC, clobbered


@pytest.mark.parametrize(("line", "names"), [
    ("d=build; for d in /; do rm -rf $d; done", {"d"}),
    ("x=1; select x in a b; do echo $x; done", {"x"}),
    ("for f in *.py; do for g in $f; do echo $g; done; done", {"f", "g"}),
    ("d=build; rm -rf $d", set()),
    ("echo format selection", set()),
])
def test_loop_variables(line: str, names: set[str]) -> None:
    found = clobbered(parse(line)) - DYNAMIC
    assert names <= found, (line, found)
    if not names:
        assert not {"d", "x", "f", "g"} & found, (line, found)
