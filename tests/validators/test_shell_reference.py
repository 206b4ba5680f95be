"""``SHELL_REFERENCE`` looks for its necessary substrings ("sh", "bin/") before it scans: the
same answer, at the same place, as the pattern alone, on a table and on generated text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clawgate.validators.programs import _SHELL_REFERENCE, SHELL_REFERENCE


def _span(found: object) -> tuple[int, int] | None:
    span = getattr(found, "span", None)
    return None if span is None else span()


def _assert_same(text: str) -> None:
    assert _span(SHELL_REFERENCE.search(text)) == _span(_SHELL_REFERENCE.search(text)), text


@pytest.mark.parametrize(("text", "found"), [
    ("bash -c 'id'", True),
    ("/bin/sh -c id", True),
    ("exec /usr/bin/zsh", True),
    ("/usr/local/bin/rc", True),
    ("/bin/nu", True),
    ("--rsh=ssh -p 22", False),
    ("x=sh -c", True),
    ("make build", False),
    ("ls -la src", False),
    ("cat notes.txt | wc -l", False),
    ("push origin main", False),
])
def test_table(text: str, found: bool) -> None:
    _assert_same(text)
    assert (SHELL_REFERENCE.search(text) is not None) is found


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["sh", "bin/", "/", "ba", "z", "rc", "nu", " ", "-c", "=", ";",
                                 "x", "usr", "a", "|", "`", "fish", "ash", "\n"]),
                max_size=12).map("".join))
def test_generated(text: str) -> None:
    _assert_same(text)
