"""What $(mktemp …) prints, as shell/mktemp.py reads GNU mktemp."""

from __future__ import annotations

import pytest

from clawgate.shell.mktemp import fresh_path
from clawgate.shell.substitute import evaluate


@pytest.mark.parametrize(("argv", "expected"), [
    ("mktemp", "/tmp/tmp.XXXXXXXXXX"),
    ("mktemp -d", "/tmp/tmp.XXXXXXXXXX"),
    ("mktemp -q --directory", "/tmp/tmp.XXXXXXXXXX"),
    ("mktemp -t ci.XXXXXX", "/tmp/ci.XXXXXX"),
    ("mktemp --tmpdir ci.XXXXXX", "/tmp/ci.XXXXXX"),
    ("mktemp -p build out.XXXX", "build/out.XXXX"),
    ("mktemp --tmpdir=/var/tmp x.XXX", "/var/tmp/x.XXX"),
    ("mktemp -p build", "build/tmp.XXXXXXXXXX"),
    ("mktemp out.XXXX", "out.XXXX"),  # no -t, -p: the current directory
    ("mktemp /srv/cache/x.XXXXXX", "/srv/cache/x.XXXXXX"),
    ("mktemp --suffix=.json r.XXXX", "r.XXXX.json"),
    ("mktemp fooXXX.txt", "fooXXX.txt"),
    ("mktemp out.XX", None),  # too few X: mktemp refuses
    ("mktemp a.XXX b.XXX", None),
    ("mktemp --weird x.XXX", None),
    ("mktemp -p", None),
])
def test_fresh_path(argv: str, expected: str | None) -> None:
    assert fresh_path(argv.split()) == expected


def test_a_substitution_of_mktemp_is_computed() -> None:
    assert evaluate("mktemp -d") == "/tmp/tmp.XXXXXXXXXX"
    assert evaluate("mktemp | cat") == "/tmp/tmp.XXXXXXXXXX"
    assert evaluate('mktemp "$D/x.XXX"') is None  # a template only known at run time
