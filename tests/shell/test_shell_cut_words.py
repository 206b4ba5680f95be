"""tree-sitter-bash cuts a word after a bare ``$`` when a name repeats in it
(``/x/$A/y/$A/z`` became ``/x/$A/y/$`` and ``A/z``), so the checks saw two words where bash
runs one: ``cat /proc/$PPID/task/$PPID/environ`` read the guard's environment unseen. Argument
nodes with nothing between them are joined into the one word bash reads."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell import parse_one


@pytest.mark.parametrize(("line", "words"), [
    ("cat /x/$A/y/$A/z", ["cat", "/x/$A/y/$A/z"]),
    ("rm -rf /$X/$X/", ["rm", "-rf", "/$X/$X/"]),
    ("cat /proc/$PPID/task/$PPID/environ", ["cat", "/proc/$PPID/task/$PPID/environ"]),
    ("cp $A/x/$A/y dest", ["cp", "$A/x/$A/y", "dest"]),
    ("echo a b", ["echo", "a", "b"]),
])
def test_a_word_is_one_word(line: str, words: list[str]) -> None:
    parsed = parse_one(line)
    assert [w.text for w in parsed.words] == words
    assert all(w.value is None for w in parsed.words if "$" in w.text)


@pytest.mark.parametrize(("line", "expected"), [
    ("cat /proc/$PPID/task/$PPID/environ", Outcome.DENY),
    ("rm -rf /$X/$X/", Outcome.DENY),
    ("cat $D/x/$D/.env", Outcome.ASK),
    ("cat ~/.ssh/id_$K", Outcome.ASK),
])
def test_what_hid_behind_the_cut_is_judged(line: str, expected: Outcome) -> None:
    assert Engine().check(line, cwd="/home/dev/project").outcome is expected
