"""The stand-in readings of a line whose program a variable of the environment names."""

from __future__ import annotations

import pytest

from clawgate.shell import parse
from clawgate.shell.standins import NO_READINGS, STAND_INS, UNKNOWN_PROGRAM, stand_in_readings


@pytest.mark.parametrize(("line", "indexes", "first", "alone"), [
    ("$CC --version", {0}, "ssh --version", "ssh --version"),
    ('"$CC" --version', {0}, "ssh --version", "ssh --version"),
    ('"${CC}" -v', {0}, "ssh -v", "ssh -v"),
    ("ls && $CC --version | head -1", {1}, "ls && ssh --version | head -1", "ssh --version"),
    ("$CC a; $CC b", {0, 1}, "ssh a; ssh b", "ssh a\nssh b"),
    ("NODE_OPTIONS=x $NODE_OPTIONS jest", {0}, "NODE_OPTIONS=x ssh jest",
     "NODE_OPTIONS=x ssh jest"),
    ("é=1 true; $CC é", {1}, "é=1 true; ssh é", "ssh é"),  # offsets in bytes
])
def test_readings_put_each_stand_in_where_the_name_is(line: str, indexes: set[int],
                                                      first: str, alone: str) -> None:
    found, readings, alone_readings, _ = stand_in_readings(parse(line))
    assert found == indexes
    assert (readings[0], alone_readings[0]) == (first, alone)
    assert len(readings) == len(alone_readings) >= len(STAND_INS)
    assert any(UNKNOWN_PROGRAM in r for r in readings)


def test_an_unquoted_name_may_be_unset() -> None:
    assert stand_in_readings(parse("$X rm -rf ~"))[1][-1] == " rm -rf ~"  # the last
    assert len(stand_in_readings(parse('"$X" rm -rf ~'))[1]) == len(STAND_INS)


@pytest.mark.parametrize("line", [
    "ls -la",
    "$(pick) --version",
    "`pick` --version",
    "${!x}",
    '"$@"',
    "$1 x",
    "${a[0]} x",
    "${X:-cc} x",
    "${X#a} x",
    "$D/tool x",
    '"$D"/tool x',
    "$X$Y x",
    "lib$X x",
    "$A x; $B y",
    "$CC x; $(pick)",
    "X=cc $Y; $X x",
    "read X; $X x",
    "mapfile X < f; $X x",
    "for X in a; do $X; done",
    "getopts ab X; $X",
    "declare -n X=Y; $X x",
    "(( X = 1 )); $X x",
    ": ${X:=cc}; $X x",
    "exec {X}>f; $X x",
    "source f; $X x",
    ". ./f; $X x",
    "eval a; $X x",
    "alias a=b; $X x",
    "command read X; $X x",
    "$_ x",
    "f() { :; }; $X x",
    "curl () { :; }; $X x",
    "function f { :; }; $X x",
    "IFS=:; $X x",
    "hash -p ./x ssh; $X x",
    "$REPLY x",
    "$PWD x",
])
def test_no_readings(line: str) -> None:
    assert stand_in_readings(parse(line)) == NO_READINGS


@pytest.mark.parametrize("line", ["X=cc; $X x", "export X=cc; $X x"])
def test_a_name_the_line_surely_sets_is_read_with_its_value_alone(line: str) -> None:
    assert stand_in_readings(parse(line))[3] == ("cc",)
