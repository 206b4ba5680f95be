"""Parameter operators on a known value, worked out as bash works them out (paramops.py), and
the expansions left unknown because their result is not certain."""

from __future__ import annotations

import pytest

from clawgate.shell.expand import expand
from clawgate.shell.paramops import SHELL_OPTIONS, operate

ENV = {"IFS": " \t\n", "x": "/etc/shaXdow", "v": "v1.2.3", "p": "a-b-c", "u": "Straße",
       "e": "", "s": "refs/tags/v1.0", "1": "/etc/sXhadow", "a[0]": "cXat"}


@pytest.mark.parametrize(("text", "value"), [
    ("${x/X/}", "/etc/shadow"),
    ("${x//X}", "/etc/shadow"),
    ("${x/X}", "/etc/shadow"),
    ("${x/#X/}", "/etc/shaXdow"),  # anchored at the start: no match there
    ("${x/#\\/etc/}", "/shaXdow"),
    ("${x/%dow/ow}", "/etc/shaXow"),
    ("${p//-/_}", "a_b_c"),
    ("${p/-/_}", "a_b-c"),
    ("${p//[-b]/}", "ac"),
    ("${p//[!a-]/x}", "a-x-x"),
    ("${p//?/.}", "....."),
    ("${v#v}", "1.2.3"),
    ("${v#*.}", "2.3"),
    ("${v##*.}", "3"),
    ("${v%.*}", "v1.2"),
    ("${v%%.*}", "v1"),
    ("${s#refs/tags/}", "v1.0"),
    ("${s//\\//-}", "refs-tags-v1.0"),
    ("${s//'/'/-}", "refs-tags-v1.0"),
    ("${x//[[:upper:]]/}", "/etc/shadow"),
    ("${x^^}", "/ETC/SHAXDOW"),
    ("${x,,}", "/etc/shaxdow"),
    ("${v^}", "V1.2.3"),
    ("${x~~}", "/ETC/SHAxDOW"),
    ("${x@U}", "/ETC/SHAXDOW"),
    ("${x:0:4}", "/etc"),
    ("${x:5}", "shaXdow"),
    ("${x: -3}", "dow"),
    ("${x:1:-4}", "etc/sha"),
    ("${#x}", "12"),
    ("${1//X/}", "/etc/shadow"),
    ("${a[0]//X/}", "cat"),
    ("${e/#/pre}", "pre"),
    ("${v/%/-rc}", "v1.2.3-rc"),
    ("\"${p//-/ }\"", "a b c"),
])
def test_operators_are_worked_out(text: str, value: str) -> None:
    assert expand(text, ENV, split=False) == [value]


@pytest.mark.parametrize("text", [
    "${x//X/$y}",  # an expansion in the replacement
    "${x//$P/}",  # in the pattern
    "${x//X/&}",  # bash 5.2 puts the match in for an unquoted &
    "${x//+(X)/}",  # an extended glob
    "${x//*/a}",  # a pattern matching the empty text: edge cases of bash's own
    "${x//X/~}",  # a tilde in the replacement is the home directory
    "${u^^}",  # case outside ASCII: the locale decides
    "${u//[a-z]/}",  # a range on text outside ASCII
    "${x//[[:punct:]]/}",  # a class not read here
    "\"${x//'X'/}\"",  # single quotes inside a double-quoted expansion
    "${x@P}",  # prompt expansion runs substitutions
    "${x@E}",
    "${x:-a}b${y}",  # an unknown variable
    "${x:1:-20}",  # bash stops with an error
])
def test_uncertain_operators_are_unknown(text: str) -> None:
    assert expand(text, ENV, split=False) is None


def test_a_line_that_sets_shell_options_matches_no_pattern() -> None:
    env = {**ENV, SHELL_OPTIONS: ""}
    assert expand("${x//x/}", env, split=False) is None  # shopt -s nocasematch: X too
    assert expand("${x,,}", env, split=False) == ["/etc/shaxdow"]


def test_operate_reports_the_span() -> None:
    assert operate("{p//-/_}rest", ENV.__getitem__, quoted=False) == ("a_b_c", 8)
    assert operate("{p}", ENV.__getitem__, quoted=False) is None
    assert operate("{!p}", ENV.__getitem__, quoted=False) is None
