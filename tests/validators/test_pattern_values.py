"""Pattern substitution in a value assigned (CG-INJ-033): a plain pattern and a short
replacement that names nothing, applied to a variable that holds no text of the line's own,
only removes or swaps characters of an unknown value; anything else may spell a word the line
hides. In a command's own words the substitution still asks (CG-INJ-007)."""

from __future__ import annotations

import pytest
from vtables import ALLOW, ASK, DENY, assert_allowed, assert_caught

from clawgate.decision import Outcome
from clawgate.shell import parse
from clawgate.validators.base import Context
from clawgate.validators.patternvalues import PatternEditedValue, edits

RULE = "CG-INJ-033"


@pytest.mark.parametrize("line", [
    # variables set elsewhere (the runner, an earlier step), cleaned in place or split
    "arrTag=(${GITHUB_REF//\\// })\nVERSION=\"${arrTag[2]}\"\nVERSION=\"${VERSION//v}\"\n"
    "dotnet pack -c Release -p:PackageVersion=$VERSION -o nupkg",
    "CHANGED_LIST=\"${CHANGED_LIST//\\\"/}\"\necho \"$CHANGED_LIST\"",
    "V=\"${GITHUB_REF//refs\\/tags\\/v}\"; echo \"$V\"",
    "export ARTIFACT=\"${board//\\//_}-zmk\"",
    "body=\"${body//'%'/'%25'}\"\nbody=\"${body//$'\\n'/'%0A'}\"",
    "TAG=${TAG// /-} make image",
    "declare -r SAFE=\"${BRANCH//\\//-}\"",
    # the single and anchored forms, on values set elsewhere; the shell's counters
    "TAG=\"${GITHUB_REF/refs\\/tags\\//}\"; echo \"$TAG\"",
    "NAME=\"${BRANCH/#feature-/}\"; echo \"$NAME\"",
    "cd build && DIR=\"${PWD//\\//_}\"",
    # a value the line writes, worked out: the words it spells are plain
    "v=v1.2.3; n=${v#v}; echo \"$n\"",
])
def test_values_cleaned_of_characters_are_allowed(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "expected", "rule"), [
    # text the line writes, unscrambled by the substitution
    ("x=/etc/paXsswd; f=${x//X/}; cat $f", ASK, RULE),
    # (worked out exactly where the value is known: the read it spells is judged)
    ("x=~/.sXsh/id_rsa\nf=\"${x//X/}\"\ncat \"$f\"", DENY, "CG-SEC-001"),
    ("for x in /etc/sXhadow; do y=${x//X/}; cat $y; done", ASK, RULE),
    ("read -r x <<< '/etc/sXhadow'; y=${x//X/}; cat $y", ASK, RULE),
    ("x=$(printf /etc/sXhadow); y=${x//X/}; cat \"$y\"", DENY, "CG-SEC-001"),
    # a glob pattern or a replacement that names something: the replacement is the value
    ("f=${HOME//*/\\/etc\\/shadow}; cat $f", ASK, RULE),
    ("f=\"${HOME//?/a}\"", ASK, RULE),
    ("x=${G//a/~}", ASK, RULE),
    ("x=${G//a/..}", ASK, RULE),
    ("x=${G//a/longer-word}", ASK, RULE),
    ("x=${G//$P/}", ASK, RULE),  # a pattern known only at run time
    ("export F=\"${K//[0-9]/}\"", ASK, RULE),
    # a name the line sets otherwise than by a plain assignment holds text of the line's own
    ("printf -v x '%s\\n' /etc/shaXdow; f=${x//X/}; cat $f", ASK, RULE),
    (": ${x:=/etc/shaXdow}; f=${x//X/}; cat $f", ASK, RULE),
    ("eval x=/etc/shaXdow; f=${x//X/}; cat $f", ASK, RULE),
    ("read <<< /etc/shaXdow; f=${REPLY//X/}; cat $f", ASK, RULE),
    (": /etc/shaXdow; f=${_//X/}; cat $f", ASK, RULE),
    # every form of the substitution, an element's and the positional parameters'
    ("read -r x <<< /etc/shaXdow; f=${x/X/}; cat $f", ASK, RULE),
    ("read -r x <<< X/etc/shadow; f=${x/#X/}; cat $f", ASK, RULE),
    ("read -r x <<< /etc/shadowX; f=${x/%X/}; cat $f", ASK, RULE),
    ("x=(/etc/shaXdow); f=${x[@]//X/}; cat $f", ASK, RULE),
    ("x=/etc/shaXdow; f=${x[0]//X/}; cat $f", ASK, RULE),
    ("set -- /etc/shaXdow; f=${@//X/}; cat $f", ASK, RULE),
    ("f=${G//a/$'\\x2f'}; cat $f", ASK, RULE),  # an escape that spells a slash
    # a value the line sets literally is worked out, whatever the operator (paramops.py)
    ("x=/etc/shaXdow; f=${x/X/}; cat $f", DENY, "CG-SEC-001"),
    ("x=/etc/shadowX; f=${x%X}; cat $f", DENY, "CG-SEC-001"),
    ("x=/ETC/SHADOW; f=${x,,}; cat $f", DENY, "CG-SEC-001"),
    ("x[0]=/etc/shaXdow; f=${x//X/}; cat $f", DENY, "CG-SEC-001"),
    ("set -- /etc/shaXdow; f=${1//X/}; cat $f", DENY, "CG-SEC-001"),
    ("printf -vx /etc/shaXdow; f=${x/X/}; cat $f", DENY, "CG-SEC-001"),  # printf -v assigns
    ("x=/etc/shaXdow; f=${x:0:8}${x:9}; cat $f", DENY, "CG-SEC-001"),
    # a program built so is still a hidden program, and a word is still a word
    ("x=cXat; y=${x//X/}; $y /etc/passwd", DENY, None),
    ("ls ${G//a/b}", ASK, "CG-INJ-007"),
])
def test_values_that_may_spell_a_hidden_word_ask(line: str, expected: Outcome,
                                                  rule: str | None) -> None:
    assert_caught(line, expected, rule)


@pytest.mark.parametrize(("text", "found"), [
    ("${V//v}", [("V", "v", "")]),
    ("(${GITHUB_REF//\\// })", [("GITHUB_REF", "\\/", " ")]),
    ("\"${body//'%'/'%25'}\"", [("body", "'%'", "'%25'")]),
    ("${a//x/y}-${b//p}", [("a", "x", "y"), ("b", "p", "")]),
    ("${a//x/${b}}", [None]),  # an expansion inside: not read
    ("${a//'x/y}", [None]),  # a quote left open
])
def test_substitutions_are_split_as_bash_reads_them(text: str, found: list[object]) -> None:
    got = [None if e is None else (e.name, e.pattern, e.replacement) for e in edits(text)]
    assert got == found


def test_only_values_are_this_rules() -> None:
    ctx = Context("/tmp", "/tmp", "/home/dev")
    assert PatternEditedValue().check_line(parse("echo ${x//a/b}"), ctx).outcome is \
        Outcome.PASSTHROUGH
    assert PatternEditedValue().check_line(parse("y=${x//a*/b}"), ctx).outcome is ASK
    assert ALLOW is Outcome.ALLOW
