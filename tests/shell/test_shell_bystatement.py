"""The parser differential statement by statement, and tree-sitter's reading of the lines
before a final here-document."""

from __future__ import annotations

from contextlib import AbstractContextManager

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell import parse
from clawgate.shell.bystatement import compare_by_statement, subshell_bodies
from clawgate.shell.differential import Rejected, Unavailable, bashlex_view, tree_view


def _always(text: str) -> bool:
    return True


@pytest.mark.parametrize("line", [
    "x; \\\x0bls; [[ -f x ]] && ls",  # [[ ]]: bashlex refuses the whole line
    "( x; \\\x0bls; [[ -f x ]] && ls  # done\n)",  # and the subshell: its statements are asked
    "{ x; \\\x0bls; x=$((1+2)); }",  # $(( )): no opinion on the whole line
    # text tree-sitter puts in no statement: bash runs a command named "\vls" (an escaped
    # vertical tab is blank space to tree-sitter-bash, a word's character to bash)
    "((1)); \\\x0bls",
    "true; \\\x0bls; [[ 1 ]]",
    "{ [[ 1 ]]; \\\x0bls; }",
    "(( x > 1 )) && \\\x0bls",
    # the words a loop runs over are asked about as words: their substitutions still are
    "for f in $(\\\x0bls); do [[ -f $f ]] && echo; done",
    "for f in \"$(\\\x0bls)\"; do\n  if [[ -f $f ]]; then echo; fi\ndone",
    "case $(\\\x0bls) in a) [[ 1 ]];; esac",
])
def test_a_part_bashlex_cannot_read_hides_no_disagreement(engine: Engine, line: str) -> None:
    with pytest.raises((Unavailable, Rejected)):  # no opinion on the whole line
        bashlex_view(line)
    assert compare_by_statement(parse(line), _always) is not None
    assert engine.check(line).outcome is Outcome.DENY


@pytest.mark.parametrize("line", [
    "ls; x=$((1+2)); git status",
    "[[ -f x ]] && make test",
    "cat <<EOF\n$((1+2))\nEOF\nls -la",
    "make && \\\n  make test; [[ 1 ]]",  # a continuation between statements drops nothing
    "cat <<EOF | grep x\nbody\nEOF\n[[ -f x ]] && ls",
    "ls # note\n[[ -f x ]]; ls |& cat",
    "(( ${#arr[@]} > 2 )) && echo many",  # (( )) holds expressions, not commands
    # a loop's variable and words, a case's word and patterns, are no statements
    'for f in "${files[@]}"; do\n  if ! [[ "$f" =~ $re ]]; then\n    bad+=("$f")\n  fi\ndone',
    'for f in "$(git ls-files)" "${x}"; do [[ -f $f ]] && echo "$f"; done',
    'case "${x}" in "${y}"|b) [[ 1 ]] && ls;; esac',
])
def test_statements_both_parsers_read_alike(line: str) -> None:
    assert compare_by_statement(parse(line), _always) is None


def test_only_statements_that_need_a_second_opinion_are_asked() -> None:
    assert compare_by_statement(parse("! ! ls; [[ -f x ]]"), lambda text: "#" in text) is None


def test_dollar_hash_is_a_parameter_to_bashlex() -> None:
    assert [w for _, w in bashlex_view("ls $# | wc\nls")] == [("ls", None), ("wc",), ("ls",)]
    with pytest.raises(Unavailable):
        bashlex_view("echo $((1+2))")


@pytest.mark.parametrize("line", [
    "ls | ls | ls | ls\nrm -rf /\ncat <<EOF\nEOF",
    "ls | ls | ls | ls $#\nls\ncat <<EOF\nEOF",
])
def test_lines_before_a_final_here_document_are_read_apart(line: str) -> None:
    parsed = parse(line)
    assert parsed.source == line and not parsed.has_error
    assert tree_view(parsed) == bashlex_view(line)
    assert [c.argv for c in parsed.commands][-1] == ("cat",)


def test_bashlex_is_interrupted_while_a_watchdog_holds_the_real_timer() -> None:
    """Under the harness's watchdog (ITIMER_REAL armed) bashlex's own deadline takes the
    CPU-time timer instead of tracing every line it runs (many times slower)."""
    import signal

    from clawgate.shell import differential

    signal.setitimer(signal.ITIMER_REAL, 5.0)
    try:
        assert differential._free_timer() == (signal.ITIMER_PROF, signal.SIGPROF)
        with pytest.raises(differential._TooSlow):
            _spin_under(differential._deadline(0.05))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _spin_under(deadline: AbstractContextManager[None]) -> None:
    with deadline:
        while True:
            pass


@pytest.mark.parametrize("line", [
    # tree-sitter closes the subshell at the case pattern's ')': a function whose body is a
    # case command, which it does not read
    "rm -rf /tmp/x | ( f() case $x in a|b) :;; esac && python3 - <<END\nx\nEND\n)",
    "ls && ( f() case $x in a|b) :;; esac && python3 - <<END\nx\nEND\n)",
])
def test_a_subshell_tree_sitter_does_not_see_whole_is_read_as_a_line(engine: Engine,
                                                                      line: str) -> None:
    assert subshell_bodies(parse(line))
    body = line[line.index("( ") + 1 : line.rindex(")")]
    assert engine.check(body).outcome is Outcome.DENY
    assert engine.check(line).outcome is Outcome.DENY


@pytest.mark.parametrize("line", [
    # once the same family, through '! case' (tree-sitter takes '!' before simple commands
    # only): now read whole, as bash reads it (shell/reserved.py)
    "rm -rf /tmp/x | ( ! case $x in a|b) :;; esac && python3 - <<END\nx\nEND\n)",
    "ls && ( ! case $x in a|b) :;; esac && python3 - <<END\nx\nEND\n)",
])
def test_a_negated_case_in_a_subshell_is_read_whole(engine: Engine, line: str) -> None:
    parsed = parse(line)
    assert not parsed.has_error
    assert [c.program for c in parsed.commands][-2:] == [":", "python3"]
    # '!' changes no command that runs: the line is decided as it is without it
    assert engine.check(line).outcome is engine.check(line.replace("! ", "", 1)).outcome


@pytest.mark.parametrize("line", [
    "x=$(a && b)",
    "( cd build && make ) | tee log",
    "f() ( ls )",
    "case $x in a|b) ls;; esac",
])
def test_subshell_bodies_leave_clean_lines_alone(engine: Engine, line: str) -> None:
    assert subshell_bodies(parse(line)) == []


def test_a_keyword_tree_sitter_reads_as_a_command_is_a_disagreement(engine: Engine) -> None:
    # after an assignment bash takes 'if' as a command's name, and 'then' is then out of
    # place; tree-sitter reads 'then' as a command; 'case' elsewhere keeps bashlex off the whole
    line = "echo `case $x in a) ls;; esac`\nx=1 if a; then :; fi"
    found = compare_by_statement(parse(line), _always)
    assert found is not None and "keyword" in found.detail
    assert engine.check(line).outcome is not Outcome.ALLOW


def test_a_negated_if_cut_at_an_ampersand_is_read_as_bash_reads_it(engine: Engine) -> None:
    # once tree-sitter cut the if at '&' (it takes '!' before simple commands only); read
    # whole now, the commands are the ones bash runs
    line = ("echo `case $x in a) ls;; esac`\n"
            "! if $\"a\" 2>/dev/null & PATH=~root '--'; then :; else x=1; fi")
    assert compare_by_statement(parse(line), _always) is None
    assert [c.program for c in parse(line).commands][-4:] == [None, "--", ":", None]
    assert engine.check(line).outcome is not Outcome.ALLOW


def test_process_substitution_gets_a_second_opinion(engine: Engine) -> None:
    """Seed 11: ``-rf<( … )`` is one word to bash. It was DENY alone (tree-sitter cut it in two,
    a parser disagreement) and ASK after a ``case`` statement. Now tree-sitter's words are
    joined as bash joins them, the parsers agree and the line is judged by what it runs: never
    ALLOW, and never lowered by a statement added before it."""
    line = "case $x in a) ls;; esac\n'' -rf<( echo >> log )"
    alone = engine.check("'' -rf<( echo >> log )").outcome
    assert alone is not Outcome.ALLOW
    assert engine.check(line).outcome >= alone
