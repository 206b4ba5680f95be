"""Lines the parsers cannot read, read differently, or that are too big to read safely."""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Outcome, Reason, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell import differential
from clawgate.shell.bystatement import compare_line, rejected
from clawgate.shell.model import ParsedLine
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, register

MAX_COMMANDS = ls.MAX_COMMANDS


@register
class Unparseable(LineValidator):
    """A line tree-sitter-bash cannot parse is never ALLOW: ASK, or DENY when bashlex rejects it
    too. A line that starts with a here-document and no command (``<<EOF``) is read as ``:
    <<EOF`` instead, which bash runs alike. Bad: ``echo $(rm -rf ~``. Harmless: ``echo
    "$(date)"``, ``<<'EOF'``.
    """

    id = "CG-PARSE-001"
    spelling = True

    def line_shapes(self) -> int:
        return ls.UNPARSED

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if not parsed.has_error:
            return NO_OPINION
        if _LONE_HEREDOC.match(parsed.written or parsed.source):
            return Verdict.unwrap(": " + (parsed.written or parsed.source).lstrip(" \t"))
        if rejected(parsed):
            return Verdict.deny(self.id, "neither shell parser accepts this line",
                                hint="fix the quoting or the syntax")
        return Verdict(Outcome.ASK, (Reason(self.id, "the line does not parse cleanly",
                                            hint="fix the quoting or the syntax"),),
                       nested=_only_bashlex_reads(parsed))


# A line that starts with a here-document and no command (``<<EOF``, ``<<'EOF'``, then its
# body): bash opens it and runs no program, expanding the body where the delimiter is not
# quoted, as it does for ``: <<EOF``; what follows its delimiter is the next command. Neither
# parser takes a here-document without a command before it: the line is read as ``: <<EOF…``.
_LONE_HEREDOC = lazy_pattern(
    r"\A[ \t]*<<-?[ \t]*(?:'[A-Za-z_][A-Za-z0-9_]*'|\"[A-Za-z_][A-Za-z0-9_]*\"|"
    r"[A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:\n|\Z)")


def _only_bashlex_reads(parsed: ParsedLine) -> tuple[str, ...]:
    """The commands bashlex reads in a line tree-sitter cannot parse, where tree-sitter sees
    none start: each is checked as a line of its own. tree-sitter's error recovery can swallow
    a command's first words into an error (``( ls | 1% )`` then ``LD_PRELOAD=$'' ls`` is read
    as the command ``$'' ls``, without its assignment) or drop a command whole."""
    line = parsed.source
    try:
        spans = differential.bashlex_spans(line)
    except (differential.Unavailable, differential.Rejected):  # GaveUp included
        return ()
    seen = {start for start, _ in differential.tree_view(parsed)}
    found = []
    for start, end in spans:
        text = line[start:end].strip()
        if start not in seen and text and text != line.strip():
            found.append(text)
    return tuple(found)


@register
class TooComplex(LineValidator):
    """Lines nested too deeply or holding too many commands to check within bounds.

    Bad: ten thousand nested ``$(``. Harmless: ``make && make test``.
    """

    id = "CG-PARSE-002"

    def line_shapes(self) -> int:
        return ls.MANY  # too deep, or too many commands

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if parsed.too_deep:
            return Verdict.misparse(self.id, "the line is nested too deeply to check",
                                    hint="split it into simpler commands")
        if len(parsed.commands) > MAX_COMMANDS:
            return Verdict.misparse(self.id, f"more than {MAX_COMMANDS} commands in one line",
                                    hint="split it into simpler commands")
        return NO_OPINION


@register
class ParserDisagreement(LineValidator):
    """bashlex and tree-sitter-bash read different commands or words: the line may not mean what
    it looks like. Bad: a line whose words the two parsers split differently. Harmless: any line
    both read alike, and constructs bashlex does not implement (``$(( ))``, ``case``). A line
    bashlex cannot take whole is compared statement by statement; one it runs out of time on
    asks (no second opinion where one was needed).
    """

    id = "CG-DIFF-001"
    spelling = True

    def line_shapes(self) -> int:
        return (ls.WRITTEN | ls.BACKSLASH | ls.BACKQUOTE | ls.HASH | ls.NEWLINE
                | ls.DOLLAR | ls.LESS | ls.GROUPING)

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if parsed.written is not None:
            return self._written_again(parsed, parsed.written)
        if parsed.too_deep or not _needs_second_opinion(parsed.source):
            return NO_OPINION
        try:
            found = compare_line(parsed, _needs_second_opinion)
        except differential.GaveUp:  # fail closed: the second opinion was needed, not had
            return Verdict.ask(self.id, "the second shell parser ran out of time on this line",
                               hint="simplify the quoting")
        if found is None:
            return NO_OPINION
        return Verdict.misparse(self.id, f"the shell parsers disagree: {found.detail}",
                                hint="simplify the quoting")

    def _written_again(self, parsed: ParsedLine, written: str) -> Verdict:
        """A line tree-sitter read only once written again (a here-document before the
        command name, ``shell/hoist.py``): bashlex must read the line as written, whole, as
        tree-sitter read it again; without that reading it asks."""
        try:
            found = differential.compare(parsed, differential.bashlex_view(written))
        except differential.Unavailable:  # GaveUp included
            return Verdict.ask(self.id, "a here-document before the command name, and the "
                               "second shell parser has no reading of the line",
                               hint="put the here-document after the command name")
        except differential.Rejected:
            return Verdict.ask(self.id, "a here-document before the command name, and the "
                               "second shell parser rejects the line",
                               hint="put the here-document after the command name")
        if found is None:
            return NO_OPINION
        return Verdict.misparse(self.id, f"the shell parsers disagree: {found.detail}",
                                hint="put the here-document after the command name")


# Where tree-sitter-bash has been known to read a line differently from bash: escapes,
# backticks, comments, braces, history and negation marks, line breaks, ANSI-C and locale
# quoting, command and process substitution (``-rf<( … )`` is one word to bash, two to
# tree-sitter). Lines of plain words and plain quotes read alike in both. (Each alternative
# is led by a literal character, not a class: re then skips positions by their first
# character, ~40 % off a search.)
_SECOND_OPINION = lazy_pattern(r"""\\|`|\#|\{|\}|!|\n|\^|\$['"(]|<\(|>\(""")


def _needs_second_opinion(source: str) -> bool:
    return _SECOND_OPINION.search(source) is not None
