"""A sed script built from values whose characters are known (CG-INTERP-012): numbers, hex
digits and dates, inline or through a variable the line sets unconditionally, are read with
every character they may hold; the script is known when each reading is the same commands,
none running, writing or reading anything. Anything else stays a script known only at run
time."""

from __future__ import annotations

import pytest
from vtables import ASK, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.shell import parse_one
from clawgate.validators.sedvalues import SedScriptValues, deferred, script_words

RULE = "CG-INTERP-012"


@pytest.mark.parametrize("line", [
    'sed -i "s/@REV@/$(git rev-parse --short HEAD)/" version.txt',
    'sed -i "s/@REV@/`git rev-parse HEAD`/" version.txt',
    'sed -i "s/@REV@/$(git rev-parse --verify -q HEAD~1)/" version.txt',
    'sed -i "s/@REV@/$(git rev-parse --short v1.2)/" version.txt',
    'export V=$(date +%s); sed -i "s/x/$V/" notes.txt',
    'SHA=$(git rev-parse --short=8 HEAD); sed -i "s/@REV@/$SHA/" version.txt',
    'V=$(date +%Y.%m.%d)\nsed -i "s/0.0.0/$V/" setup.cfg',
    'export BUILD_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"\n'
    'sed -i "s/BUILD_DATE = .*/BUILD_DATE = \\"$BUILD_DATE\\"/" src/version.py',
    'sed -i "s/jobs = .*/jobs = $(nproc)/" config.toml',
    'N=$(git rev-list --count HEAD); sed -i "s/BUILD/$N/" about.txt',
    'sed "$(nproc)d" notes.txt',  # a number where an address goes: still an address
    'sed -i "s/PID/$$/" run.conf',
    'sed -i "s/LEN/${#NAME}/" notes.txt',
    'V=1.2.3; sed -i "s/x/$V/" notes.txt',  # a literal: the line's resolved reading
])
def test_scripts_of_known_characters_are_allowed(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "rule"), [
    ('sed -i "s/x/$V/" notes.txt', RULE),  # set elsewhere: any text
    ('V=$(cat VERSION); sed -i "s/x/$V/" notes.txt', RULE),
    ('[ -n "$CI" ] && SHA=$(git rev-parse HEAD); sed "s/x/$SHA/" notes.txt', RULE),
    ('SHA=$(git rev-parse HEAD); read SHA; sed "s/x/$SHA/" notes.txt', RULE),
    ('SHA=$(git rev-parse HEAD) sed -i "s/x/$SHA/" notes.txt', RULE),  # expanded before
    ('f() { sed -i "s/x/$SHA/" notes.txt; }; SHA=$(git rev-parse HEAD); f', RULE),
    ('sed -i "s/x/$SHA/" notes.txt; SHA=$(git rev-parse HEAD)', RULE),  # set after
    # the program that prints the value redefined on the line
    ('git() { printf "x/e"; }; sed -i "s/a/$(git rev-parse HEAD)/" notes.txt', RULE),
    ('PATH=/tmp/bin:$PATH; sed -i "s/a/$(date +%Y)/" notes.txt', None),
    # characters that end the part they stand in, or stand where a command goes
    ('sed -i "s:x:$(date +%H:%M):" notes.txt', RULE),
    ('sed "$(git rev-parse HEAD)" notes.txt', RULE),  # e3b0…: the e command
    ('sed -i "s/x/$(date +%d/%m)/" notes.txt', "CG-INTERP-004"),  # %d/%m: a slash
    ('sed -i "s/x/$(git rev-parse --abbrev-ref HEAD)/" notes.txt', "CG-INTERP-004"),
    ('sed -i "s/x/$(git describe --tags)/" notes.txt', "CG-INTERP-004"),
    ('sed -i "s/x/$1/" notes.txt', "CG-INTERP-004"),
    # rev-parse unverified prints an argument naming a file as it is: a file named e/ is
    # the e flag's way in (s/x/e/ runs the pattern space)
    ('sed -i "s/x/$(git rev-parse e)/" notes.txt', "CG-INTERP-004"),
    ('R=$(git rev-parse w); sed -i "s/x/$R/" notes.txt', RULE),
    # a name bound otherwise than by its assignment: glued, through a variable, a default
    ('V=$(date +%s); printf -vV 1/e; sed -i "s/x/$V/" notes.txt', "CG-INTERP-004"),
    ('N=V; V=$(date +%s); printf -v "$N" 1/e; sed -i "s/x/$V/" notes.txt', RULE),
    ('V=$(date +%s); read -r "${N:-V}" <<< 1/e; sed -i "s/x/$V/" notes.txt', RULE),
])
def test_scripts_of_other_values_ask(line: str, rule: str | None) -> None:
    assert_caught(line, ASK, rule)


@pytest.mark.parametrize(("line", "defers"), [
    ('sed "s/x/$(git rev-parse HEAD)/" f', True),
    ('sed -e "s/x/$V/" f', True),
    ('sed -e "s/x/$(nproc)/" -e "s/y/z/" f', False),  # two scripts joined: read whole
    ('sed "s/x/$(cat v)/" f', False),
    ("sed 's/x/y/' f", False),
    ('sed -f "$SCRIPT" f', False),
])
def test_which_scripts_the_line_reads(line: str, defers: bool) -> None:
    words = script_words(parse_one(line))
    assert (len(words) == 1 and words[0] is not None and deferred(words[0])) is defers


def test_a_line_without_sed_is_not_read() -> None:
    from clawgate.shell import parse
    from clawgate.validators.base import Context

    verdict = SedScriptValues().check_line(parse('echo "$(nproc)"'),
                                           Context("/tmp", "/tmp", "/home/dev"))
    assert verdict.outcome is Outcome.PASSTHROUGH


@pytest.mark.parametrize("line", [
    'S=$(nproc); for S in a/e; do :; done; sed "s/x/$S/" notes.txt',
    'S=$(nproc); : ${S:=a/e}; sed "s/x/$S/" notes.txt',
    'S=$(nproc); printf -v S "%s\\n" a/e; sed "s/x/$S/" notes.txt',
    'S=$(nproc); declare -n R=S; R=a/e; sed "s/x/$S/" notes.txt',
    'S=$(nproc); eval "S=a/e"; sed "s/x/$S/" notes.txt',
    'S=$(nproc); source ./vars.sh; sed "s/x/$S/" notes.txt',
    'S=$(nproc); unset S; sed "s/x/$S/" notes.txt',
])
def test_a_value_set_again_another_way_is_unknown(line: str) -> None:
    assert_caught(line, ASK, RULE)


@pytest.mark.parametrize("line", [
    # run by a wrapper or find -exec: checked on its own, the line's values unread there
    "find . -name '*.go' -exec sed -i \"s/x/$V/\" {} +",
    'sudo sed -i "s/x/$V/" notes.txt',
    'SHA=$(git rev-parse HEAD); find . -name "*.txt" -exec sed -i "s/x/$SHA/" {} +',
])
def test_a_script_run_by_another_program_stays_unknown(line: str) -> None:
    assert_caught(line, ASK, "CG-INTERP-004")


@pytest.mark.parametrize("line", [
    # a variable the line sets to one literal text, put into a double-quoted script: the
    # script is read with that very text (bash unescapes the script's own text, not a value)
    "RE='[^0-9]*\\([0-9]*\\)[.]\\([0-9]*\\)'\nM=`echo \"$TAG\" | sed -e \"s#$RE#\\1#\"`",
    "RE='[0-9]*'; sed -i \"s/$RE/x/\" notes.txt",
    'TAG=${GITHUB_REF#refs/tags/}; PAT="version: .*"; sed -i "s/$PAT/version: 1/" f.yml',
    "A='\\\\'; sed -i \"s/$A/x/\" notes.txt",  # a backslash escaping a backslash: text
])
def test_scripts_of_literal_values_are_read_with_them(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "rule"), [
    # the literal ends the part it stands in: a flag that runs the pattern space
    ("RE='x/e;s/y/z'; sed -i \"s/a/$RE/\" notes.txt", "CG-INTERP-004"),
    # not one literal: set twice, set after, an element of it, set in a branch, unquoted
    ("RE='[0-9]*'; RE='x/e'; sed -i \"s/a/$RE/\" notes.txt", None),
    ("sed -i \"s/a/$RE/\" notes.txt; RE='[0-9]*'", RULE),
    ("RE='[0-9]*'; RE[0]='x/e'; sed -i \"s/a/$RE/\" notes.txt", RULE),
    ("[ -n \"$CI\" ] && RE='x'; sed -i \"s/a/$RE/\" notes.txt", RULE),
    ("RE='[0-9]*'; sed -i s/a/$RE/ notes.txt", None),
    ('RE="$X/e"; sed -i "s/a/$RE/" notes.txt', RULE),
])
def test_other_literal_values_ask(line: str, rule: str | None) -> None:
    assert_caught(line, ASK, rule)
