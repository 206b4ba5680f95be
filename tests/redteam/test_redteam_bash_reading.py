"""Lines on which bash runs a dangerous program that the reading did not judge.

Each row was ALLOW: the parser set the program aside (a comment that a backslash seemed to
continue), kept it inside a leaf it never read (the operand of ``${x#…}``), or took it for
text (a quoted subscript that a builtin or arithmetic evaluates), or spelled a word otherwise
than bash (``r$"m"`` is ``rm``). Each asserts the outcome
now, and real bash, run with recorder stubs in a sandbox (``clawgate.testing.bashoracle``), confirms
that it runs the payload.
"""

from __future__ import annotations

import pytest

import bashoracle
from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings

ENGINE = Engine()
ASK, DENY = Outcome.ASK, Outcome.DENY
SUDO_RM = ("sudo", "rm", "-rf", "/")
RM_HOME = ("rm", "-rf", "/home/oracle")  # ~ in the oracle's sandbox

ATTACKS = [
    # A comment ends at its newline: a backslash in it continues nothing.
    ("ls # note \\\nsudo rm -rf /", DENY, SUDO_RM),
    ("git status # check \\\nrm -rf ~", DENY, RM_HOME),
    ("make test # run tests \\\nsudo rm -rf /", DENY, SUDO_RM),
    ("echo $(ls # x \\\nsudo rm -rf /\n)", DENY, SUDO_RM),
    ("for f in *.py; do wc -l \"$f\" # count \\\nrm -rf ~\ndone", DENY, RM_HOME),
    # $"…" inside a word: tree-sitter-bash hands out its $ apart, bash drops it.
    ("r$\"m\" -rf /", DENY, ("rm", "-rf", "/")),
    ("sudo$\"\" rm -rf /", DENY, SUDO_RM),
    ("git $\"p\"$\"us\"h --force", ASK, ("git", "push", "--force")),
    # A word glued to an array assignment is part of it: the command is the word after.
    ("a=(1)x sudo rm -rf /", DENY, SUDO_RM),
    ("a=()x rm -rf ~", DENY, RM_HOME),
    ("a=(1)#x sudo rm -rf /", DENY, SUDO_RM),  # a # glued to it too: no comment
    ("a=(1)#x; rm -rf ~", DENY, RM_HOME),
    ("declare a=(1)#x; sudo rm -rf /", DENY, SUDO_RM),
    ("make test && a=(1)#x sudo rm -rf /", DENY, SUDO_RM),
    # A trap's code after the end of its options runs.
    ("trap -- 'sudo rm -rf /' EXIT", DENY, SUDO_RM),
    ("trap -- 'rm -rf ~' DEBUG; :", DENY, RM_HOME),
    # Backquotes in the body of a here-document whose delimiter is not quoted run.
    ("cat <<EOF\n`sudo rm -rf /`\nEOF", DENY, SUDO_RM),
    ("cat > notes.txt <<EOF\nsee `rm -rf ~`\nEOF", DENY, RM_HOME),
    ("cat <<EOF\n\\\\`rm -rf ~`\nEOF", DENY, RM_HOME),
    # A body line starting with an escaped backslash: its $( ) runs.
    ("cat <<EOF\n\\\\$(sudo rm -rf /)\nEOF", DENY, SUDO_RM),
    # Backquotes nested in backquotes (\`…\`) run.
    ("echo `echo \\`sudo rm -rf /\\``", DENY, SUDO_RM),
    ("x=`echo \\`rm -rf ~\\``", DENY, RM_HOME),
    ("cat <<EOF\n`echo \\`sudo rm -rf /\\``\nEOF", DENY, SUDO_RM),
    # Substitutions in the operand of a parameter expansion run.
    ("x=1; echo ${x#$(sudo rm -rf /)}", DENY, SUDO_RM),
    ("x=1; echo \"${x%%$(sudo rm -rf /)}\"", DENY, SUDO_RM),
    ("x=ab; echo ${x^^`rm -rf ~`}", DENY, RM_HOME),
    ("x=1; echo ${x#${y:-$(sudo rm -rf /)}}", DENY, SUDO_RM),
    # A quoted subscript that bash evaluates runs its substitutions.
    ("printf -v 'a[$(sudo rm -rf /)]' x", DENY, SUDO_RM),
    ("read 'a[$(rm -rf ~)]' </dev/null", DENY, RM_HOME),
    ("declare 'a[$(sudo rm -rf /)]=1'", DENY, SUDO_RM),
    ("a=(1); unset 'a[$(sudo rm -rf /)]'", DENY, SUDO_RM),
    ("[[ -v 'a[$(sudo rm -rf /)]' ]]", DENY, SUDO_RM),
    ("test -v 'a[$(sudo rm -rf /)]'", DENY, SUDO_RM),
    ("[[ 1 -eq 'a[$(sudo rm -rf /)]' ]]", DENY, SUDO_RM),
    ("(( 'a[$(sudo rm -rf /)]' ))", DENY, SUDO_RM),
    ("echo $(( 'a[$(sudo rm -rf /)]' ))", DENY, SUDO_RM),
    ("n='a[$(sudo rm -rf /)]'; echo $((n))", DENY, SUDO_RM),
    ("n='a[$(sudo rm -rf /)]'; [[ n -eq 1 ]]", DENY, SUDO_RM),
    ("read x <<< 'a[$(sudo rm -rf /)]'; (( x ))", DENY, SUDO_RM),
    # A here-document in an alias's text takes its body from the input after the line the
    # alias is used on: the text's further lines are commands.
    ("shopt -s expand_aliases; alias x='cat <<EOF\nsudo rm -rf /\nEOF'\nx", DENY, SUDO_RM),
    ("shopt -s expand_aliases; alias x='cat <<EOF\ngit push --force\nEOF'\nx", ASK,
     ("git", "push", "--force")),
    # After the time keyword, assignments then the program (the words after time are no
    # program of their own).
    ("time x=1 sudo rm -rf /", DENY, SUDO_RM),
    ("time -p LD_PRELOAD=/tmp/x.so rm -rf ~", DENY, RM_HOME),
    # coproc before a compound command runs it (tree-sitter-bash read its words as
    # arguments of a command named coproc).
    ("coproc if sudo rm -rf /; then :; fi", DENY, SUDO_RM),
    ("make test; coproc while rm -rf ~; do break; done", DENY, RM_HOME),
    # A tilde-prefix expands whatever quoting follows its slash.
    ("rm -rf ~/''", DENY, ("rm", "-rf", "/home/oracle/")),
    ("cat ~/.ssh/\"id_rsa\"", DENY, ("cat", "/home/oracle/.ssh/id_rsa")),
    # A bracket glob is a word, not a test (`[` stands alone only with a blank after it): in
    # a workspace holding a file `reboot`, bash runs reboot (here, in an empty one, the glob
    # itself). Read as a broken test these were ASK, and `[rm]` alone ALLOW.
    ("[r]eboot", DENY, ("[r]eboot",)),
    ("make test && [s]hutdown", DENY, ("[s]hutdown",)),
]


# The static reading alone (no shadow run: bubblewrap missing, or the policy turns it off).
# A backquote ends at the next one: tree-sitter-bash read `ls` `rm …` as one substitution
# running `lsrm`.
STATIC_ATTACKS = [
    ("echo $((1)) `ls` `sudo rm -rf /`", DENY, SUDO_RM),
    ("echo $((1)) `:``rm -rf ~`", DENY, RM_HOME),
    # A command of assignments and redirections alone ends at its newline: tree-sitter-bash
    # took the next line's words as its name (`x=1 >f time LD_PRELOAD=… ls`, the program
    # `time` with arguments; bash runs ls with LD_PRELOAD set by the time keyword's prefix).
    ("x=1 >f\ntime LD_PRELOAD=/tmp/x.so ls", DENY, ("ls",)),
    # coproc before a compound command after then, do, { or time: its body's commands run.
    ("if true; then coproc X { sudo rm -rf /; }; fi", DENY, SUDO_RM),
    ("{ coproc X { rm -rf ~; }; }", DENY, RM_HOME),
    ("for f in a; do coproc X { sudo rm -rf /; }; done", DENY, SUDO_RM),
    ("time coproc X { rm -rf ~; }", DENY, RM_HOME),
]
# An escaped word starting a line is a command of its own: tree-sitter-bash glued it to the
# line before (`ls⏎rm`), and where bashlex has no reading (`$(( ))`) nothing caught it.
ATTACKS_LINE_START = [
    ("echo $((1))\n\\rm -rf ~", DENY, RM_HOME),
    ("ls $((1))\n\\sudo rm -rf /", DENY, SUDO_RM),
]
STATIC = Engine(EngineSettings(shadow=False))


@pytest.mark.parametrize(("line", "expected", "payload"), STATIC_ATTACKS)
def test_what_bash_runs_is_judged_by_the_static_reading(line: str, expected: Outcome,
                                                        payload: tuple[str, ...]) -> None:
    decision = STATIC.check(line, cwd="/home/dev/project")
    assert decision.outcome is expected, [r.rule_id for r in decision.reasons]


@pytest.mark.bwrap
@pytest.mark.parametrize(("line", "expected", "payload"), STATIC_ATTACKS)
def test_bash_runs_the_payload_the_static_reading_judges(
        line: str, expected: Outcome, payload: tuple[str, ...],
        bash_oracle: bashoracle.Oracle) -> None:
    assert payload in bash_oracle.run(line).argvs


@pytest.mark.parametrize(("line", "expected", "payload"), [*ATTACKS, *ATTACKS_LINE_START])
def test_what_bash_runs_is_judged(line: str, expected: Outcome,
                                  payload: tuple[str, ...]) -> None:
    decision = ENGINE.check(line, cwd="/home/dev/project")
    assert decision.outcome is expected, [r.rule_id for r in decision.reasons]


@pytest.mark.bwrap
@pytest.mark.parametrize(("line", "expected", "payload"), [*ATTACKS, *ATTACKS_LINE_START])
def test_bash_runs_the_payload(line: str, expected: Outcome, payload: tuple[str, ...],
                               bash_oracle: bashoracle.Oracle) -> None:
    assert payload in bash_oracle.run(line).argvs
