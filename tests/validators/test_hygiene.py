"""Input hygiene: one table per validator, both sides."""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell import parse
from clawgate.validators.base import Context
from clawgate.validators.hygiene import (
    CarriageReturn,
    CommentQuoteDesync,
    ContinuationInsideWord,
    ControlCharacters,
    EscapedCommandName,
    InvisibleInValue,
    InvisibleUnicode,
    LookalikeWords,
    MidWordHash,
    WrappedNonAsciiProgram,
)

P, ASK, DENY = Outcome.PASSTHROUGH, Outcome.ASK, Outcome.DENY


@pytest.mark.parametrize(("text", "expected"), [
    ("ls\x00; rm -rf ~", DENY),
    ("echo \x1b[31m", DENY),
    ("echo \x7f", DENY),
    ("echo \x85", DENY),
    ("printf 'a\\tb'", P),
    ("echo a\tb", P),
    ("make\ntest", P),
])
def test_control_characters(text: str, expected: Outcome, ctx: Context) -> None:
    assert ControlCharacters().check_text(text, ctx).outcome is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("echo safe\rrm -rf ~", DENY),
    ("ls\r\n", DENY),
    ("printf 'a\rb'", P),
    ('echo "a\rb"', P),
    ("echo $'\\r'", P),
    ("ls -la", P),
])
def test_carriage_return(text: str, expected: Outcome, ctx: Context) -> None:
    assert CarriageReturn().check_text(text, ctx).outcome is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("rm\u00a0-rf /", DENY),
    ("ls\u200b -la", DENY),
    ("echo '\u202eevil'", DENY),
    ("echo \u3000x", DENY),
    ("echo '\u00a0inside quotes'", P),
    ("cat café.txt", P),
    ("echo 'naïve'", P),
    # the joining parts of emoji sequences are part of the glyph shown (emojiseq)
    ("echo \"\u2139\ufe0f No changes\"", P),
    ("git commit -m '\u2764\ufe0f fix'", P),
    ("echo '\u0031\ufe0f\u20e3 first'", P),
    ("echo '\U0001f468\u200d\U0001f4bb done'", P),
    ("echo '\u2764\ufe0f\u200d\U0001f525'", P),
    ("echo '\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f'", P),
    ("echo \u2705\ufe0e", P),
    # the same characters outside a sequence still hide something
    ("r\ufe0fm -rf ~", DENY),
    ("echo 'a\ufe0f'", DENY),
    ("echo '1\ufe0f'", DENY),
    ("r\u200dm -rf ~", DENY),
    ("echo '\u2139\u200dx'", DENY),
    ("echo 'x\U000e0067\U000e007f'", DENY),
    ("echo '\U0001f3f4\U000e0067'", DENY),
    # tags after a flag that spell no subdivision id: hidden text (a space, capitals, "~")
    ("echo '\U0001f3f4\U000e0072\U000e006d\U000e0020\U000e002d\U000e0072\U000e0066"
     "\U000e0020\U000e007e\U000e007f'", DENY),
    ("echo '\U0001f3f4\U000e0047\U000e0042\U000e0045\U000e004e\U000e0047\U000e007f'", DENY),
    ("echo '\U0001f3f4\U000e0075\U000e0073\U000e0063\U000e0061\U000e007f'", P),  # usca
    ("echo '\u2139\ufe0f\u202e'", DENY),
])
def test_invisible_unicode(text: str, expected: Outcome, ctx: Context) -> None:
    assert InvisibleUnicode().check_text(text, ctx).outcome is expected


@pytest.mark.parametrize(("line", "expected"), [
    ("ｒｍ -rf /", DENY),
    ("rm －rf /", DENY),
    ("cаt /etc/passwd", ASK),  # a Cyrillic 'а': not NFKC-foldable, still not a known program
    ("cat résumé.txt", P),
    ("echo 日本語", P),
    ("ls", P),
    ("$'\\xc2\\xb2'", DENY),  # the look-alike of 2 as escaped UTF-8 bytes: its value is judged
    ("$'\\uff52\\uff4d' -rf x", DENY),
    ("ls $'\\xc3\\xa9t\\xc3\\xa9'", P),  # été: no look-alike
    ("printf $'\\xff'", P),  # a byte that is no UTF-8 character
])
def test_lookalike_words(line: str, expected: Outcome, ctx: Context) -> None:
    assert LookalikeWords().check_line(parse(line), ctx).outcome is expected


@pytest.mark.parametrize(("line", "expected"), [
    ("ls\\;id", DENY),
    ("l\\&s", DENY),
    ("find . -name x -exec ls {} \\;", P),
    ("grep a\\|b file", P),
    ("\\rm -i x", P),  # an escaped letter is the injection family's concern
])
def test_escaped_command_name(line: str, expected: Outcome, ctx: Context) -> None:
    assert EscapedCommandName().check_line(parse(line), ctx).outcome is expected


@pytest.mark.parametrize(("line", "expected"), [
    ("ls # ' ; curl x | sh '", ASK),
    # substitutions closed in a comment with no other command syntax: judged as commands
    # that may run (tests/validators/test_everyday8_kinds.py), no question of their own
    ("ls # $(id)", P),
    ("ls  # list files", P),
    ("echo '#not a comment'", P),
    ("ls # 'it", ASK),  # a quote left open
    ("# it's\nrm -rf build #'", ASK),  # the last quote is no contraction
    # an apostrophe in a contraction is prose, not a quote (agents' "# Let's see")
    ("ls # it's", P),
    ("# Let's run the tests\npytest -q", P),
    ("# don't touch; we'll see\nmake", P),
    ('ls # "a" ; "b"', ASK),  # command syntax between the quotes
    ("ls # `id`", P),
    ("ls # `id` ; b", ASK),  # command syntax besides the substitution
    ("ls # 'a' > x", ASK),
    # prose quoted and closed within the comment
    ('declare -r X="cherry-pick-of-${Y}" # "Required" portion for tools.', P),
    ("git diff --exit-code # check no changes in 'go.sum'", P),
    ('make lint # see "docs/lint.md" (or the wiki)', P),
    # a comment on lines of its own whose quotes close: every reader's comment, prose
    ('#!/bin/bash\n# (the "License"); you may not use this file\nmake', P),
    ('go test ./...\n# echo "status=$?" >> $GITHUB_OUTPUT', P),
    ("  # `git log -1` gives the merge commit; ask the API\nmake", P),
    ("set -e\n\t# Usage: run.sh < 'reports.json' | jq .\nmake", P),
    # the same shapes left open, glued after a command, or also written after one
    ("# it's ok; 'go\nmake", ASK),
    ("# $(id\nmake", ASK),
    ("make # (the \"License\"); you may not", ASK),
    ("# 'a' ; curl x | sh\nls # 'a' ; curl x | sh", ASK),
    ("x=1 # '; rm -rf ~ '\n# '; rm -rf ~ '", ASK),
])
def test_comment_quote_desync(line: str, expected: Outcome, ctx: Context) -> None:
    assert CommentQuoteDesync().check_line(parse(line), ctx).outcome is expected


@pytest.mark.parametrize(("line", "expected"), [
    ('echo "x"#"; rm -rf ~"', DENY),
    ("echo $x#y; id", DENY),
    ("echo ${x}#y z", DENY),
    ("echo $x#'y'", DENY),
    ("echo \"$x\"#y\nid", DENY),
    ("echo $x#y$(id)", DENY),
    ("echo $x#y; rm -rf ~; echo $x#y", DENY),  # the first '#' would hide the rm
    # a plain fragment ending the line hides nothing from a comment-reading parser
    ("echo $x#y", P),
    ("pip install -e file://$PWD#egg=pkg[test]", P),
    ("pip install -e \"git+https://h/r.git@$REV\"#egg=pkg", P),
    ("curl https://h/page#top", P),
    ("echo a#b", P),
    ("echo '#x'", P),
])
def test_mid_word_hash(line: str, expected: Outcome, ctx: Context) -> None:
    assert MidWordHash().check_line(parse(line), ctx).outcome is expected


def test_misparsing_ends_the_pipeline(engine: object) -> None:
    from clawgate.engine import Engine

    assert isinstance(engine, Engine)
    decision = engine.check("ls\x00 && rm -rf /")
    assert decision.outcome is DENY and decision.misparsing
    assert [r.rule_id for r in decision.reasons] == ["CG-HYG-001"]


@pytest.mark.parametrize(("line", "rule"), [
    ("\\ ls", "CG-HYG-005"),  # the program ' ls' (tree-sitter once dropped the escaped space)
    ("ls\\;id", "CG-HYG-005"),
])
def test_escapes_the_parsers_read_differently_are_denied(line: str, rule: str) -> None:
    from clawgate.engine import Engine

    decision = Engine().check(line)
    assert decision.outcome is DENY and decision.misparsing
    assert decision.reasons[0].rule_id == rule


def test_line_continuations_are_joined_as_bash_does() -> None:
    assert [c.argv for c in parse("r\\\nm -rf /tmp/x").commands] == [("rm", "-rf", "/tmp/x")]
    assert [c.argv for c in parse("ls \\\n  -la").commands] == [("ls", "-la")]
    assert parse("echo 'a\\\nb'").commands[0].argv == ("echo", "a\\\nb")


@pytest.mark.parametrize(("text", "expected"), [
    ("cat /et\\\nc/pa\\\nsswd", ASK),
    ('echo "a\\\nb"', ASK),
    ("make \\\n  test", P),
    ("ls -la \\\n | wc -l", P),
    ("echo 'a\\\nb'", P),  # literal inside single quotes
    ("ls", P),
])
def test_continuation_inside_a_word(text: str, expected: Outcome, ctx: Context) -> None:
    assert ContinuationInsideWord().check_text(text, ctx).outcome is expected


@pytest.mark.parametrize(("line", "expected"), [
    ("nice -n 0 'ñ¹¼*'", ASK),
    ("timeout 600 'ďx'", ASK),
    ("nice -n 0 make", Outcome.ALLOW),
    ("cat café.txt", Outcome.ALLOW),
])
def test_wrapped_non_ascii_program(line: str, expected: Outcome, engine: Engine,
                                   ctx: Context) -> None:
    """CG-HYG-009 on the commands wrappers hand back (depth > 0), never on the line's own."""
    decision = engine.check(line)
    assert decision.outcome is expected
    assert ("CG-HYG-009" in {r.rule_id for r in decision.reasons}) is (expected is ASK)
    assert WrappedNonAsciiProgram().check(parse(line).commands[0], ctx).outcome is P


@pytest.mark.parametrize("line", [
    "$\"\U000b9e4c\" x\n\uff52\uff4d -rf /",  # after a non-ASCII program name's ASK
    "ls; ls; cat <<EOF\n$/\nEOF\n\uff52\uff4d -rf /",  # dropped by error recovery
])
def test_a_lookalike_anywhere_is_denied(line: str, ctx: Context) -> None:
    verdict = LookalikeWords().check_line(parse(line), ctx)
    assert verdict.outcome is DENY and verdict.misparsing


@pytest.mark.parametrize(("line", "expected"), [
    ("git commit -m $'\\u202eevil'", DENY),
    ("echo $'\\xc2\\xad'", DENY),
    ("x=$'\\u200b' ls", DENY),
    ("printf $'a\\tb'", P),
    ("echo $'caf\\u00e9'", P),
    ("echo $'\\u2139\\ufe0f info'", P),
    ("echo $'a\\ufe0f'", DENY),
])
def test_invisible_in_value(line: str, expected: Outcome, ctx: Context) -> None:
    """CG-HYG-010: the values CG-HYG-003 cannot see in the raw text."""
    assert InvisibleInValue().check(parse(line).commands[0], ctx).outcome is expected


def test_an_escaped_paren_in_a_test_is_no_command_name(ctx: Context) -> None:
    """tree-sitter cannot parse ``[ \\( … \\) ]`` (its recovery made ``\\(`` a command): the
    line is read in tree-sitter's spelling of the test (``shell/testparens.py``), a test as to
    bash. It asks for its ``rm -rf b`` (CG-DEG-002), not for its parsing."""
    line = 'if [ \\( ! -L b \\) -o \\( "x$(readlink b)" != "xv" \\) ]; then rm -rf b; fi'
    parsed = parse(line)
    assert not parsed.has_error and parsed.written == line
    assert EscapedCommandName().check_line(parsed, ctx).outcome is Outcome.PASSTHROUGH
    decision = Engine().check(line, cwd=ctx.cwd)
    assert decision.outcome is Outcome.ASK
    assert {r.rule_id for r in decision.reasons if r.rule_id.startswith("CG-")} == {"CG-DEG-002"}


def test_an_escaped_name_bashlex_also_reads_is_no_artefact() -> None:
    assert not EscapedCommandName()._recovery_artefact("ls\\;id")
    assert not EscapedCommandName()._recovery_artefact("echo $(")  # bashlex rejects: stands
