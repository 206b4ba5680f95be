"""Lines shaped to carry more past a reader than they show.

Each command on such a line may be harmless by itself; the shape is the signal. A second line
that approval prompts and logs cut off, a line written without a single space (the form of
payloads pushed through filters that strip spaces), and file contents from outside the workspace
turned into another program's arguments (where nobody sees them before they leave).
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Risk, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell import model as m
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.validators import lineshapes as ls
from clawgate.validators.base import Context, LineValidator, register
from clawgate.validators.paths import in_scratch, resolve
from clawgate.validators.programs import words_of
from clawgate.validators.risk import risk_of

# Programs whose output is the contents of the files they are given.
_DUMPERS = words_of("""
cat tac head tail nl base64 base32 basenc xxd od hexdump strings rev sort uniq cut fold
""")
# Commands whose arguments stay in the shell: printed, tested or assigned, never sent on.
_KEEPERS = words_of("echo printf test [ [[ : true false export local declare readonly typeset")


# What lets one statement run over several lines: compound commands, groups, substitutions,
# and a line ending in a pipe or a list operator. A line without any of these has as many
# statement lines as command lines, and needs no second parse.
_SPANS_LINES = lazy_pattern(r"[{(`]|\b(?:if|for|while|until|case|select|function)\b|"
                            r"(?:&&|\|\||\|)[ \t]*(?:#[^\n]*)?\n")
# Nodes at the top of tree-sitter's tree that are no statements of their own.
_NOT_STATEMENTS = frozenset({"comment", "heredoc_body", "heredoc_start", "heredoc_end"})


def _statement_lines(source: str) -> int:
    """On how many physical lines a top-level statement starts. A compound command (``if``,
    ``for``, ``case``, ``{ }``, ``( )``) or a list continued after ``&&``, ``||`` or ``|`` is
    one statement however many lines it takes: its first line shows that more follows."""
    from clawgate.shell.treesitter import tree_of

    root = tree_of(source.encode("utf-8", "surrogateescape")).root_node
    return len({n.start_point[0] for n in root.named_children
                if n.type not in _NOT_STATEMENTS})


# Layout that keeps a line out of view even where the whole call is shown: runs of blank
# lines (a later statement scrolled below the fold) and long runs of blanks (pushed aside).
# Control characters (form feeds, carriage returns) are CG-HYG-001's.
_HIDING = lazy_pattern(r"\n(?:[ \t]*\n){3,}|[ \t]{64,}")


@register
class SeveralCommandLines(LineValidator):
    """Statements on several lines of one call, laid out to keep one out of view (blank lines
    or blanks that push it below or aside), and a command does more than read: approval
    prompts, hook logs and terminals often show only what fits, so that line runs unseen. ASK.

    Why only then: every statement of a call is checked by every validator wherever it
    stands, so a statement on a second line is judged exactly as it would be sent alone (and
    as ``a; b`` on one line is): the newline itself hides nothing from the checker, and a
    script of ordinary lines (CI steps: linters, tests, builds) is ordinary work. What the
    newline can still hide is the line from a person; a call that asks for anything shows its
    reasons with the statements they name. One statement over several lines (an ``if`` or
    ``for`` block, ``a &&`` then ``b``) is never a hidden line: its first line shows it goes on.

    Bad: ``make docs`` then blank lines and ``./deploy.sh``.
    Harmless: ``ls src\ngit status`` (every line only reads), ``flake8 src\nblack --check
    src``, or ``if [ -d out ]; then\n  rm -rf out\nfi``.
    """

    id = "CG-INJ-014"

    def line_shapes(self) -> int:
        return ls.NEWLINE

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "\n" not in parsed.source or not _HIDING.search(parsed.source):
            return NO_OPINION
        commands = [c for c in parsed.commands if c.words]
        encoded = parsed.source.encode("utf-8", "surrogatepass")
        lines = len({encoded.count(b"\n", 0, c.offset) for c in commands})
        if lines < 2:
            return NO_OPINION  # every command on one line: no statement to count
        busy = next((c for c in commands if risk_of(c) is not Risk.LOW), None)
        if busy is None:
            return NO_OPINION
        if _SPANS_LINES.search(parsed.source):  # otherwise each line's commands stand alone
            lines = _statement_lines(parsed.shape or parsed.source)
        if lines < 2:
            return NO_OPINION
        return Verdict.ask(self.id, f"statements on {lines} lines, and "
                           f"{busy.program or busy.text!r} does more than read",
                           hint="send one command per call, so that each is shown on its own")


@register
class NoWhitespace(LineValidator):
    """A command with arguments or redirections written without any whitespace, held together
    by redirections, braces or operators: how payloads get past filters that strip spaces. ASK.
    Redirections with no command (``>out``, ``<<EOF``) run no program: their paths are judged
    as the reads and writes they are.

    Bad: ``cat</etc/passwd``. Harmless: ``cat < notes.txt`` or ``make&&ls``.
    """

    id = "CG-INJ-015"
    spelling = True

    def line_shapes(self) -> int:
        return ls.BLANKLESS

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        source = parsed.source
        if " " in source or any(c.isspace() for c in source):  # a space: the common case
            return NO_OPINION
        for cmd in parsed.commands:
            if cmd.words and (len(cmd.words) > 1 or cmd.redirects):  # no words: no program
                return Verdict.ask(self.id, f"{cmd.text!r} is written without whitespace",
                                   hint="write the command with spaces between its words")
        return NO_OPINION


@register
class FileIntoArguments(LineValidator):
    """A command substitution dumps a file from outside the workspace into another program's
    arguments: its contents leave with that program (a URL, a host name, a message) and nobody
    sees them first. ASK.

    Bad: ``notify $(cat /etc/passwd)``.
    Harmless: ``cat /etc/passwd``, ``echo $(cat /etc/hostname)`` or ``git tag $(cat VERSION)``.
    """

    id = "CG-INJ-016"

    def line_shapes(self) -> int:
        return ls.DOLLAR | ls.BACKQUOTE

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "$(" not in parsed.source and "`" not in parsed.source:
            return NO_OPINION
        for inner in parsed.commands:
            if not inner.nesting or inner.nesting[-1] != "command_substitution":
                continue
            path = self._outside_file(inner, ctx)
            outer = path and self._receiver(parsed, inner)
            if path and outer:
                return Verdict.ask(self.id, f"the contents of {path} become arguments of "
                                   f"{outer.program or outer.text!r}",
                                   hint="read the file first and pass only what is needed")
        return NO_OPINION

    @staticmethod
    def _outside_file(cmd: SimpleCommand, ctx: Context) -> str | None:
        if cmd.program not in _DUMPERS:
            return None
        operands = [w for w in cmd.words[1:] if not w.text.startswith("-")]
        operands += [r.target for r in cmd.redirects if r.op == "<" and r.target is not None]
        for word in operands:
            path = resolve(word, ctx).path
            if path is not None and not in_scratch(path, ctx):
                return path
        return None

    @staticmethod
    def _receiver(parsed: ParsedLine, inner: SimpleCommand) -> SimpleCommand | None:
        """The command whose argument holds the substitution, unless it keeps it in the shell."""
        for outer in parsed.commands:
            if outer is inner or outer.program in _KEEPERS:
                continue
            if any(m.COMMAND in w.expansions and inner.text in w.text for w in outer.words[1:]):
                return outer
        return None
