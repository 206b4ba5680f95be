"""Same-line resolution: where every expansion of a command is put in exactly from values the
line assigns literally before it, in the same shell, the command is judged as what it resolves
to and the "only known at run time" asks give way; anything not exactly known asks as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell import parse
from clawgate.shell.constants import resolution

ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY
ENGINE = Engine()
RUN_TIME = {"CG-INJ-001", "CG-DEST-009", "CG-INJ-010"}


@pytest.mark.parametrize(("line", "expected"), [
    # resolved exactly: judged as what it runs
    ("a=ls; $a -la", ALLOW),
    ('D=build; rm -rf "$D"', ALLOW),
    # printf -v NAME TEXT and printf -v NAME %s TEXT assign TEXT
    ("printf -v D build; rm -rf \"$D\"", ALLOW),
    ("printf -vD %s build; rm -rf \"$D\"", ALLOW),
    ("printf -vx /etc/shadow; cat $x", DENY),
    ("printf -v x %s /etc/shadow; cat \"$x\"", DENY),
    ("printf -v x rm; $x -rf ~", DENY),
    ("D=build; rm -rf $D", ALLOW),
    ('D=src; rm -rf "$D"', ASK),  # as rm -rf src: CG-DEG-002
    ("a=ls && $a", ALLOW),
    ("a=ls; ${a:-rm}", ALLOW),
    ("a=ls; eval \"$a\"", ALLOW),
    ("b=ls; a=${b:-rm}; $a", ALLOW),
    ("a=ls\n$a -la", ALLOW),
    ("a=ls; $a | grep x", ALLOW),
    ("a=ls; ( $a )", ALLOW),
    ("cd sub || exit; D=build; rm -rf \"$D\"", ALLOW),
    ("a=ls; a=rm $a", ALLOW),  # the prefix assignment applies after the words expand
    ("export a=ls; $a", ALLOW),  # a declaration of literal values assigns them
    ("declare a=ls; $a", ALLOW),
    ("declare -x a=ls; $a", ALLOW),
    ("a=ls; export a; $a", ALLOW),
    ("declare -l a=ls; $a", ASK),  # an attribute changes the values assigned
    ("declare -n a=b; b=ls; $a", ASK),
    ("readonly a=ls; a=rm; $a", ASK),  # the shell stops at a=rm: what follows as written
    # readonly assigns its own value first, then locks the name (a script's constants)
    ('readonly DIR=build\nrm -rf "$DIR"', ALLOW),
    ('declare -r DIR="build"; rm -rf "${DIR}"', ALLOW),
    ("readonly a=ls; $a -la", ALLOW),
    ('D=/; readonly D=build; rm -rf "$D"', ALLOW),
    ('readonly D=/\nrm -rf "$D"', DENY),
    ("readonly x=rm; $x -rf ~", DENY),
    ('declare -r D=build E=/; rm -rf "$E"', DENY),
    ('readonly D=build; readonly D=/; rm -rf "$D"', ASK),  # the second one fails: as written
    ('readonly D; D=/; rm -rf "$D"', ASK),
    # dangerous resolved values stay blocked
    ("x=rm; $x -rf ~", DENY),
    ("c='rm -rf'; $c ~", DENY),
    ("p=/; rm -rf $p", DENY),
    ('D=~; rm -rf "$D"', DENY),  # tilde expansion happens in an assignment
    ("D=~/; rm -rf $D", DENY),
    ("a=ls; ( a=rm; $a -rf ~ )", DENY),
    ("a=ls; $a; a=rm; $a -rf ~", DENY),
    # a redirection's target is put in too: the write-then-run is seen
    ("t=/tmp/t.sh; echo 'rm -rf ~' > \"$t\"; sh \"$t\"", DENY),
    ("t=$(mktemp); echo 'rm -rf ~' > \"$t\"; sh \"$t\"", DENY),
    ("t=$(mktemp -d); rm -rf \"$t\" ~", DENY),
    ("t=$(mktemp ~/.bashrcXXX); mv \"$t\" ~/.bashrc", DENY),
    # mktemp prints a name it has just made: a fresh path, known exactly
    ("tmp=$(mktemp)\njq '.a = 1' f.json > \"$tmp\"\nmv \"$tmp\" f.json", ALLOW),
    ("tmp=$(mktemp) && jq . f.json > \"$tmp\" && mv \"$tmp\" f.json", ALLOW),
    ("T=\"$(mktemp -d)\"; cp a \"$T\"/; rm -rf \"$T\"", ALLOW),
    ("T=$(mktemp -d -t ci.XXXXXX); rm -rf \"$T\"", ALLOW),
    ("a='rm -rf ~'; eval \"$a\"", DENY),
    # arrays, positional parameters, defaults that assign, function bodies (the fuzz's
    # "array", "set-args", "default" and "function" rewrites)
    ('a=(rm -rf ~); "${a[@]}"', DENY),
    ("a=(rm -rf /); ${a[@]}", DENY),
    ('a=(rm -rf /); "${a[0]}" "${a[1]}" "${a[2]}"', DENY),
    ('a=(rm "-rf" /); "${a[*]}"', ASK),  # one word: the program "rm -rf /", not found
    ('set -- rm -rf /; "$@"', DENY),
    ('f() { set -- rm -rf /; "$@"; }; f', DENY),  # (policy fuzz --seeds 60, 62)
    ('"${_x:=rm}" -rf ~', DENY),
    ("f() { a=-rf; b=a; rm \"${!b}\" /; }; f", DENY),
    # a body's assignments are followed after them in that body (a function, a loop round)
    ("for i in 1; do a=-rf; rm \"$a\" /; done", DENY),
    ("f() { ( a=-rf; b=a; rm \"${!b}\" / ); }; f", DENY),  # a subshell in a body
    ("while true; do c='rm -rf ~'; eval \"$c\"; break; done", DENY),
    ("a=(rm -rf /); a[0]=ls; \"${a[@]}\"", ASK),  # an element changed: not followed
    ("a=(rm -rf /); unset a; \"${a[@]}\"", ASK),
    ("a=(ls -la); \"${a[@]}\"", ALLOW),  # a literal list of static words: followed exactly
    # not known exactly: asks as written
    ("a=ls | $a", ASK),
    ("true || a=ls; $a", ASK),
    ("true &&\na=ls\n$a", ASK),
    ("true || { :; a=ls; }; $a", ASK),
    ("if true; then a=ls; fi; $a", ASK),
    ("a=ls; unset a; $a", ASK),
    ("${a:-ls}", ASK),
    ("a=${X:-ls}; $a", ASK),
    ("a=(ls); $a", ALLOW),  # $a is ${a[0]}
    ("f() { local a=ls; $a; }", ASK),
    ("a=ls; f() { $a; }; f", ASK),
    ("read a; $a", ASK),
    ("a=ls; read a; $a", ASK),
    ("for a in ls; do $a; done", ASK),
    ("a=$(cmd); $a", ASK),
    ("a=$(echo ls); $a", ASK),  # computed, not assigned literally: a disguise of its own
    ("t=$(mktemp \"$HOME/x.XXXX\"); mv \"$t\" a", ASK),  # a template only known at run time
    ("t=$(mktemp); \"$t\"", ASK),  # a program from the temporary directory
    ("who$(echo am)i", ASK),
    ("a=ls; source ./env.sh; $a", ASK),
    ("a=ls; b=a; ${!b}", DENY),  # indirection: CG-OBF-001 as before
    ("D=build; rm -rf $D/*", DENY),  # a glob: CG-CAT-001 as before
    ("set -- ls; $1", ASK),
    ('HOME=/tmp; D=~; rm -rf "$D"', ASK),
    ('D=~root; rm -rf "$D"', ASK),
    ("a=ls; declare -n b=a; b=rm; $a x", ASK),  # a nameref assigns a through b
    ("a=ls; a[0]=rm; $a -rf ~", DENY),  # the element is $a: as rm -rf ~
    ("a=ls; a[0]=cat; $a x", ASK),
    ("a=ls; exec {a}>x; $a y", ASK),
    ("a=ls; wait -p a; $a x", ASK),
    ("a=ls; trap 'a=cat' DEBUG; $a x", ASK),
    ("a=ls; builtin read a; $a x", ASK),
    ("a=ls; command printf -v a cat; $a x", ASK),
    ("a=ls; ((a=1)); $a x", ASK),
    ("a=ls; : ${a:=x}; $a y", ASK),
    ("a=ls; a+=x; $a y", ASK),
    ("read IFS; c='rm -rf'; $c x", ASK),
])
def test_resolution(line: str, expected: Outcome, tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    (tmp_path / "src").mkdir()
    decision = ENGINE.check(line, cwd=str(tmp_path))
    assert decision.outcome is expected, decision.reasons
    if expected is not ASK:
        assert not RUN_TIME & {r.rule_id for r in decision.reasons}


@pytest.mark.parametrize(("line", "exact"), [
    ("a=ls; $a -la", {1}),
    ("a=ls; $a; $a", {1}),  # a program only known at run time may be a function
    ("a=ls; ( a=rm; $a )", set()),
    ("x=1 && y=$x; echo $y", set()),
    ("echo hi", set()),
])
def test_exact_commands(line: str, exact: set[int]) -> None:
    assert set(resolution(parse(line))[1]) == exact
