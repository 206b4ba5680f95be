"""Table tests of obfuscation (CG-OBF-*): names and payloads built to hide what runs are DENY;
what can be computed by reading is checked as what it computes to; plain dynamic names keep
their decision."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, assert_caught, decide

from clawgate.decision import Outcome
from clawgate.shell.substitute import computed, evaluate
from clawgate.validators.sysbins import glob_programs


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("x=RM; ${x,,} -rf /", DENY, "CG-OBF-001"),
    ("x=rm; ${x^^} x", DENY, "CG-OBF-001"),
    ("x=xrmx; ${x:1:2} -rf /", DENY, "CG-OBF-001"),
    ("a=b; ${!a} -rf /", DENY, "CG-OBF-001"),
    ("a=(r m); ${a[0]}${a[1]} -rf /", DENY, "CG-OBF-001"),
    ("x=rXm; ${x//X/} -rf /", DENY, "CG-OBF-001"),
    ("c$@at /etc/passwd", DENY, "CG-OBF-001"),
    ("$(rev <<< mr) -rf /", DENY, "CG-OBF-001"),
    ("$(printf '\\x72\\x6d') -rf /", DENY, "CG-OBF-001"),
    ("$(echo cm0= | base64 -d) -rf /", DENY, "CG-OBF-001"),
    ("$(echo rXm | tr -d X) -rf /", DENY, "CG-OBF-001"),
    ("`echo 6c73 | xxd -r -p`", DENY, "CG-OBF-001"),
    ("$'\\162\\155' -rf /", DENY, "CG-OBF-001"),
    ("$'\\x6c\\x73' -la", DENY, "CG-OBF-001"),
    ("/???/?m -rf ~", DENY, "CG-CAT-001"),  # the one program the glob matches
    ("/b?n/r[m] -rf /", DENY, "CG-OBF-001"),
    ("/???/??t /etc/hosts", DENY, "CG-OBF-001"),
    ('eval "${x,,}"', DENY, "CG-OBF-002"),
    ("eval \"$(printf '\\x72\\x6d') -rf ~\"", DENY, "CG-OBF-002"),
    ("bash -c \"$(rev <<< 'fr- mr')\"", DENY, "CG-OBF-002"),
    ('bash <<< "${c,,}"', DENY, "CG-OBF-002"),
    (". <(base64 -d <<< cm0gLXJmIH4=)", DENY, "CG-OBF-002"),
    ("bash <(echo cm0= | base64 -d)", DENY, "CG-OBF-002"),
    ("x=$(echo cm0= | base64 -d); $x -rf /", DENY, "CG-OBF-003"),
    ("x=$(rev <<< mr); $x -rf ~", DENY, "CG-OBF-003"),
    ('c=${y,,}; eval "$c"', DENY, "CG-OBF-003"),
    ('c=$(printf "\\x69\\x64"); bash -c "$c"', DENY, "CG-OBF-003"),
    # special and positional parameters take the same tricks; a * glob spelling a program
    ("${0/x/r}m -rf /", DENY, "CG-OBF-001"),
    ("${$/x/r}m -rf ~", DENY, "CG-OBF-001"),
    ("/usr/bin/su*o id", DENY, "CG-OBF-001"),
    ("/bin/r* -rf /", DENY, "CG-OBF-001"),
    # a wildcard-led argument that a file named like an option turns into one
    ("sort ?o victim in.txt", ASK, "CG-OBF-004"),
    ("sort [-]o out in", ASK, "CG-OBF-004"),
    ("git log ?-output=x", ASK, "CG-OBF-004"),
    ("rg ?-pre=sh TODO", ASK, "CG-OBF-004"),
    # computed by reading: judged as what it computes to
    ("$(echo rm) -rf /", DENY, "CG-CAT-001"),
    ("$(printf rm) -rf ~", DENY, "CG-CAT-001"),
    ("rm -rf $(echo /)", DENY, "CG-CAT-001"),
    ("x=$(echo rm); $x -rf /", DENY, "CG-CAT-001"),
    ("x=$(echo /); rm -rf $x", DENY, "CG-CAT-001"),
    ("r''m -rf /", DENY, "CG-CAT-001"),
    ("$(echo $(echo rm)) -rf /", DENY, "CG-CAT-001"),
    ("$(python3 -c \"print('rm')\") -rf /", DENY, "CG-CAT-001"),
    ("$(node -e \"console.log('rm')\") -rf ~", DENY, "CG-CAT-001"),
    # plain dynamic names keep their decision
    ("$EDITOR notes.txt", ASK, "CG-INJ-001"),
    ('"$PYTHON" -m pytest', ASK, "CG-INJ-001"),
    ("$(python3 -c 'import sys; print(sys.executable)') -m pip --version", ASK, "CG-INJ-001"),
    ("./dist/*.AppImage --version", ASK, "CG-INJ-003"),
    ("$(echo ls) -la", ASK, "CG-INJ-001"),
    ("\"$(command -v node | tr -d '\\r')\" --version", ASK, "CG-INJ-001"),
])
def test_caught(line: str, expected: Outcome, rule: str) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize("line", [
    'echo "$(date)"',
    "echo ${name,,} ${name^^}",
    'ls "${dir:-.}"',
    "git log -1 --format=%H | cut -c1-7",
    "echo ${PATH//:/ }",
    'x=$(git rev-parse HEAD); echo "$x"',
    "v=$(cat VERSION); echo $v",
    "diff <(sort a.txt) <(sort b.txt)",
    "source .venv/bin/activate",
    "printf '%s\\n' \"${files[@]}\"",
    # reversed and reversed back: the idiom that trims the end of a line, nothing scrambled
    "FILES=$(git diff --name-only | tr '\\n' , | rev | cut -c 2- | rev); echo \"$FILES\"",
    "ls ?o",
    "cat ?.log",
    "sort *.csv",
    'echo "$(echo $(echo hi))"',
    "echo \"${0##*/}\"",
])
def test_harmless(line: str) -> None:
    assert_allowed(line)


def test_plain_dynamic_names_are_not_obfuscation() -> None:
    outcome, rules = decide('"$HOME/.local/bin/tool" --version')
    assert not {r for r in rules if r.startswith("CG-OBF")}
    assert outcome is ASK


@pytest.mark.parametrize(("body", "value"), [
    ("echo rm", "rm"),
    ("printf '\\x72\\x6d'", "rm"),
    ("printf '\\162\\155'", "rm"),
    ("rev <<< mr", "rm"),
    ("echo cm0= | base64 -d", "rm"),
    ("echo 726d | xxd -r -p", "rm"),
    ("printf RM | tr A-Z a-z", "rm"),
    ("pwd", None),
    ("echo $HOME", None),
    ("curl -s x", None),
    # operator characters inside quotes are text (policy fuzz --seed 48)
    ("printf %s 'import os; os.system(1)'", "import os; os.system(1)"),
    ("echo 'a|b' | rev", "b|a"),
    ("echo a; echo b", None),  # an operator outside quotes: not computed
    ("printf %s ';'", None),  # a quoted operator alone reads as one: left unknown
])
def test_substitutions_computed_by_reading(body: str, value: str | None) -> None:
    assert evaluate(body) == value


def test_words_with_computed_substitutions() -> None:
    assert computed('"$(printf rm)"') == ["rm"]
    assert computed("/$(echo etc)/x") == ["/etc/x"]
    assert computed("$(echo rm -rf)") == ["rm", "-rf"]
    assert computed("x$(echo a b)y") is None


def test_globs_match_a_fixed_list_of_programs() -> None:
    assert glob_programs("/???/?m") == ["/bin/rm"]
    assert "/usr/bin/cat" in glob_programs("/usr/bin/c?t")
    assert glob_programs("?m") == []


@pytest.mark.parametrize("line", [
    "`echo rm` -rf ~",  # backticks are $( ) too
    "${x:-rm} -rf ~",  # the default is one of the values it can have
    "\"${@:-rm}\" -rf ~",
    "set -- rm; \"$@\" -rf ~",  # a positional parameter set on the line
    "IFS=,; x=rm,-rf,/; $x",  # split on a custom IFS
])
def test_values_computed_through_more_spellings(line: str) -> None:
    outcome, _ = decide(line)
    assert outcome is Outcome.DENY, line


@pytest.mark.parametrize("line", [
    "`echo ls` -la",
    "${PAGER:-less} notes.txt",
    "set -- a b; echo \"$@\"",
])
def test_computed_harmless_values_are_not_denied(line: str) -> None:
    outcome, _ = decide(line)
    assert outcome is not Outcome.DENY, line


def test_printf_formats_of_characters_are_computed() -> None:
    assert_caught("$(printf '%c%c' r m) -rf ~", DENY, None)
    assert_caught("$(printf '%s%s' r m) -rf ~", DENY, None)
    assert computed("$(printf '%c' xyz)") == ["x"]


@pytest.mark.parametrize("pattern", ["/???/?m", "/b?n/r[m]", "/usr/bin/su*o", "/bin/r*", "/*/*",
                                     "/[a-z]in/[!x]*", "/usr/*/p*", "/bin/[", "/bin/\\*",
                                     "/*$(sleep 5)`x`*/-sleep(5)-'/*$(sleep 5)", "/bin/", "x"])
def test_glob_programs_is_fnmatch_over_the_fixed_list(pattern: str) -> None:
    from fnmatch import fnmatchcase

    from clawgate.validators.sysbins import PROGRAMS, SYSTEM_DIRS

    directory, _, base = pattern.rpartition("/")
    expected = [f"{place}/{name}" for place in SYSTEM_DIRS
                if directory and base and fnmatchcase(place, directory)
                for name in sorted(PROGRAMS) if fnmatchcase(name, base)]
    assert glob_programs(pattern) == expected
