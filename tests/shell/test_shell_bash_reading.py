"""The reading against bash's: a table row per family of lines the readers once misread, and
a differential over corpus lines carrying those families, with real bash as the judge
(``tests/bashoracle.py``): any program bash runs that the engine did not judge, on a line
that comes out ALLOW, is a failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import bashoracle
from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell import join_continuations, parse
from clawgate.shell.differential import bashlex_view, compare
from clawgate.shell.model import TILDE
from clawgate.testing.strategies import lines

ENGINE = Engine()
JUDGE = bashoracle.Judge(ENGINE.settings)

# (family, line, an argv the reading must hold)
FAMILIES = [
    ("comment ending in a backslash", "ls # note \\\nrm -rf build", ("rm", "-rf", "build")),
    ("comment after an operator", "ls;# x \\\nid -u", ("id", "-u")),
    ("comment after a here-document's start", "cat <<EOF # c \\\nbody\nEOF\nid -u",
     ("id", "-u")),
    ("comment inside $( )", "echo $(ls # x \\\nid -u\n)", ("id", "-u")),
    ("comment in a loop body", "for f in a; do ls # x \\\nid -u\ndone", ("id", "-u")),
    ("comment after ANSI-C quoting", "echo $'a\\'b' # x \\\nid -u", ("id", "-u")),
    ("locale quoting inside a word", "r$\"m\" -rf build", ("rm", "-rf", "build")),
    ("locale quoting after a name", "whoami$\";;$\"", ("whoami;;$",)),
    ("locale quoting after a word's $", "rm -r$\"f\" build", ("rm", "-rf", "build")),
    ("locale quoting in a concatenation", "rm $\"-\"$\"rf\" build", ("rm", "-rf", "build")),
    ("word glued to an array assignment", "a=(1)x rm -rf build", ("rm", "-rf", "build")),
    ("an empty command substitution inside a word", "r` `m -rf build", ("rm", "-rf", "build")),
    ("backquotes in an expanding here-document body", "cat <<EOF\nsee `id -u`\nEOF",
     ("id", "-u")),
    ("nested backquotes", "echo `echo \\`id -u\\``", ("id", "-u")),
    ("nested backquotes in a body", "cat <<EOF\n`echo \\`id -u\\``\nEOF", ("id", "-u")),
    ("a body line starting with \\\\", "cat <<EOF\n\\\\$(id -u)\nEOF", ("id", "-u")),
    ("a # glued to an array assignment", "a=(1)#x rm -rf build", ("rm", "-rf", "build")),
    ("a # glued to an array assignment, then ;", "a=(1)#x; id -u", ("id", "-u")),
    ("a # glued to a declared array", "declare a=(1)#x; id -u", ("id", "-u")),
    ("a # glued to an array assignment ending a list", "ls && a=(1)#x id -u", ("id", "-u")),
    ("expansion operand #", "x=ab; echo ${x#$(id -u)}", ("id", "-u")),
    ("expansion operand %%", "x=ab; echo \"${x%%$(id -u)*}\"", ("id", "-u")),
    ("expansion operand ^^ with backquotes", "x=ab; echo ${x^^`id -u`}", ("id", "-u")),
    ("expansion operand ,", "x=ab; echo ${x,$(id -u)}", ("id", "-u")),
    ("expansion replacement", "x=ab; echo ${x/a/`id -u`}", ("id", "-u")),
    ("expansion default with backquotes", "echo ${x:-`id -u`}", ("id", "-u")),
    ("expansion nested in an operand", "x=ab; echo ${x#${y:-$(id -u)}}", ("id", "-u")),
    ("a delimiter line with a comment is body text", "cat <<EOF\nb\nEOF # c `id -u`",
     ("id", "-u")),
    ("a tab-led delimiter line with a comment", "cat <<-EOF\nb\n\tEOF #$(id -u)", ("id", "-u")),
    ("a delimiter line led by a blank", "cat <<EOF\nb\n EOF\n$(id -u)", ("id", "-u")),
    ("a # opening a default", "echo ${x:-#`id -u`}", ("id", "-u")),
    ("a # after a blank in a default", "echo ${x:-a #`id -u`}", ("id", "-u")),
    ("a # inside a default's word", "echo ${x:-a#`id -u`}", ("id", "-u")),
    ("a # opening a replacement", "x=ab; echo ${x/a/#`id -u`}", ("id", "-u")),
    ("a # opening a quoted alternative", "x=ab; echo \"${x:+#`id -u`}\"", ("id", "-u")),
    ("a loop after !", "! for f in a; do id -u; done", ("id", "-u")),
    ("a group after time", "time { id -u; }", ("id", "-u")),
    ("an if after time -p !", "time -p ! if true; then id -u; fi", ("id", "-u")),
    ("a case after ! in a list", "ls && ! case x in x) id -u;; esac", ("id", "-u")),
    ("a loop after ! in a condition", "if ! while false; do :; done; then :; else id -u; fi",
     ("id", "-u")),
    ("the time keyword: the word after it is the program", "time -f x ls", ("-f", "x", "ls")),
    ("the time keyword's -p and --", "time -p -- -o f ls", ("-o", "f", "ls")),
    ("the time keyword after !", "! time -f x", ("-f", "x")),
    ("the time keyword in a pipeline's first stage", "time -o f ls | wc", ("-o", "f", "ls")),
    ("an assignment after the time keyword", "time x=1 ls -la", ("ls", "-la")),
    ("time after a pipe is the program", "ls | time -f x ls", ("time", "-f", "x", "ls")),
    ("the time keyword in a group after a pipe", "ls | { time x=1 id -u; }", ("id", "-u")),
    ("the time keyword in a subshell after a pipe", "ls | ( time -p id -u )", ("id", "-u")),
    ("two backquoted substitutions side by side", "echo `ls``id -u`", ("id", "-u")),
    ("two backquoted substitutions, two words", "echo `ls` `id -u`", ("id", "-u")),
    ("two backquoted substitutions in an assignment", "x=`ls``id -u`", ("id", "-u")),
    ("the descriptor 0 before a redirection", "cat 0<&1 x", ("cat", "x")),
    ("the descriptor 0 before a redirection, in a list", "ls && cat -n 0</dev/null",
     ("cat", "-n")),
    ("coproc before an if", "coproc if id -u; then :; fi", ("id", "-u")),
    ("coproc before a while, after a list", "ls; coproc while id -u; do break; done",
     ("id", "-u")),
    ("an escaped word starting a line", "ls\n\\rm -rf build", ("rm", "-rf", "build")),
    ("an escaped ! starting a line", "ls x\n\\! y", ("!", "y")),
    ("a glob where a test would stand", "[Install]", ("[Install]",)),
    ("a glob where a test would stand, after a list", "ls && [rm]", ("[rm]",)),
    ("a comment in backquotes between words", "ls -a `# all of it` -l", ("ls", "-a", "-l")),
    ("a comment in backquotes before the program", "`# note` id -u", ("id", "-u")),
    ("a comment in backquotes in a pipeline", "ls `# it's` | id -u", ("id", "-u")),
]


@pytest.mark.parametrize(("family", "line", "argv"), FAMILIES)
def test_the_reading_holds_what_bash_runs(family: str, line: str,
                                          argv: tuple[str, ...]) -> None:
    parsed = parse(line)
    assert argv in [c.argv for c in parsed.commands], family
    assert not parsed.has_error


# Lines the two readers must agree on, as bash reads them: a disagreement is a DENY
# ("the parsers disagree") where bash runs what both read.
@pytest.mark.parametrize("line", [
    "a[$(date +%s)]=1",  # bashlex takes an array element's assignment for a word
    "declare -A m; m[$(id -u)]=x",
    "m[`id -u`]+=x; ls",
    "a[$(id -u)]=1 ls -la",
    "who`echo am`i",  # tree-sitter-bash ended the name before the glued backquote
    "echo $(ls\nid -u)",  # bashlex drops what follows a newline inside $( )
    "x=$(cd src\ngit status) make",
    "echo `date` `whoami`",  # tree-sitter-bash read one substitution holding an empty one
    "echo `ls``id -u`",
])
def test_the_readers_agree_where_bash_reads_one_way(line: str) -> None:
    assert compare(parse(line), bashlex_view(line)) is None


# A tilde-prefix (up to the first unquoted slash) expands when none of it is quoted, whatever
# quoting follows the slash.
@pytest.mark.parametrize(("word", "expands"), [
    ("~/.ssh/id_rsa", True),
    ("~/''.ssh/id_rsa", True),
    ("~/.ssh/\"id_rsa\"", True),
    ("~/a\\ b", True),
    ("~root/x", True),
    ("~''", False),
    ("~\"/\"", False),
    ("'~'/x", False),
])
def test_a_tilde_expands_as_bash_expands_it(word: str, expands: bool) -> None:
    assert (TILDE in parse(f"cat {word}").commands[0].words[1].expansions) is expands


@pytest.mark.parametrize(("line", "joined"), [
    ("ls # note \\\nrm x", "ls # note \\\nrm x"),  # a comment: the newline ends it
    ("ls;#x\\\ny", "ls;#x\\\ny"),
    ("a#b\\\nc", "a#bc"),  # inside a word: no comment
    ("echo \\ #x\\\ny", "echo \\ #xy"),  # after an escaped blank: inside a word
    ("echo $'a\\'b' # x\\\ny", "echo $'a\\'b' # x\\\ny"),  # \\' does not end $'…'
    ("cat <<EOF # c \\\nbody\\\nEOF\nz", "cat <<EOF # c \\\nbodyEOF\nz"),
])
def test_a_comment_continues_nothing(line: str, joined: str) -> None:
    assert join_continuations(line) == joined


# A derandomised slice of the corpora as carriers, and the families as mutations.
PAYLOAD = "sudo rm -rf /"
MUTATIONS = [
    "{c} # note \\\n{p}",
    "{c} #\\\n{p}",
    "{c} <<EOF # \\\n{p}\nEOF",
    "{c}; x=1; echo ${{x#$({p})}}",
    "{c} && printf -v 'a[$({p})]' x",
    "{c} \\\n# x\n{p}",
    "{c} &>/dev/null # \\\n{p}",
    "echo $({c} # \\\n{p}\n)",
    "n='a[$({p})]'; {c}; echo $((n))",
    "{c}\ncat <<EOF\n`{p}`\nEOF",
    "{c} && a=(1)#x {p}",
    "{c}; su$\"do\" rm -rf /",
    "echo `echo \\`{p}\\``; {c}",
    "{c}; trap -- '{p}' EXIT",
    "{c} && ! {{ {p}; }}",
    "time {{ {c}; {p}; }}",
    "! for x in 1; do {c}; {p}; done",
]
_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "devcmds.jsonl"


def _carriers() -> list[str]:
    if not _CORPUS.exists():
        return ["ls -la", "git status", "make test", "npm ci", "pytest -q tests"]
    rows = [json.loads(line)["command"] for line in _CORPUS.read_text().splitlines()]
    return [r for r in rows if "\n" not in r and "#" not in r][::97][:12]


@pytest.mark.bwrap
@pytest.mark.parametrize("line", [m.format(c=c, p=PAYLOAD) for c in _carriers()
                                  for m in MUTATIONS])
def test_no_program_bash_runs_goes_unjudged_on_an_allowed_line(
        line: str, bash_oracle: bashoracle.Oracle) -> None:
    missing = bashoracle.unjudged(line, ENGINE, bash_oracle)
    outcome = ENGINE.check(line, cwd="/tmp/work").outcome
    assert not (missing and outcome is Outcome.ALLOW), missing


@pytest.mark.bwrap
@pytest.mark.parametrize(("family", "line", "argv"), FAMILIES)
def test_bash_runs_what_each_family_row_says(family: str, line: str, argv: tuple[str, ...],
                                             bash_oracle: bashoracle.Oracle) -> None:
    assert argv in bash_oracle.run(line).argvs, family
    missing = bashoracle.unjudged(line, ENGINE, bash_oracle)
    # bashlex still reads a comment ending in a backslash inside $( ) as continued: the
    # readers disagree and the line is DENY, judged no further (a misreading that costs a
    # refusal, not a run)
    assert missing == [] or ENGINE.check(line).outcome is Outcome.DENY, missing


# A derandomised draw of the grammar's lines (the same ones every run), through one sandbox:
# what ``bench/bench_oracle.py`` does on 200,000 lines, kept small here.
@pytest.mark.bwrap
@settings(max_examples=250, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(line=lines())
def test_no_generated_line_runs_an_unjudged_program_when_allowed(
        line: str, bash_oracle: bashoracle.Oracle) -> None:
    decision, seen = JUDGE.judged(line)
    if decision.outcome is not Outcome.ALLOW or "\0" in line:
        return
    assert bashoracle.missing(bash_oracle.run(line), seen) == []
