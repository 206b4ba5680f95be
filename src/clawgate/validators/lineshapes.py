"""Line shapes: cheap facts about a parsed line that say which line validators may have an
opinion on it, as command shapes (``shapes.py``) do for command validators.

Most line validators stop at once unless the line has some shape: two commands or more, a
``$``, a pipe, a redirection that writes, a comment, a parse error. ``LineValidator.
line_shapes()`` names those shapes (or ``ANY``); the engine puts a line to it only when the
line has one of them (``LineDispatch.checks``). Each bit is the validator's own first test,
computed once per line instead of once per validator; a bit set where the validator then
finds nothing costs only the call. ``tests/validators/test_line_shapes.py`` holds every
skipped validator silent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from clawgate.decision import Verdict
from clawgate.shell.model import ParsedLine
from clawgate.validators.base import Context, LineValidator

ANY = 1  # every line has it: a validator asked about every line
MULTI = 1 << 1  # two commands or more
DOLLAR = 1 << 2  # "$" in the source
BACKQUOTE = 1 << 3  # "`" in the source
PIPE = 1 << 4  # "|" in the source
AMP = 1 << 5  # "&" in the source
LESS = 1 << 6  # "<" in the source
NEWLINE = 1 << 7  # a line break in the source
HASH = 1 << 8  # "#" in the source
BACKSLASH = 1 << 9  # "\\" in the source
BRACKET = 1 << 10  # "[" in the source
EQUALS = 1 << 11  # "=" in the source
NON_ASCII = 1 << 12  # a character outside ASCII in the source
WRITES = 1 << 13  # a redirection that writes, on any command
UNPARSED = 1 << 14  # parsed.has_error
WRITTEN = 1 << 15  # parsed.written: the line as written differs from the source parsed
BLANKLESS = 1 << 16  # no whitespace in the source
COMMENTS = 1 << 17  # parsed.comments
GROUPING = 1 << 18  # "{", "}", "!", "^" or ">(" in the source

CheckLine = Callable[[ParsedLine, Context], Verdict]
MAX_SHAPES = 256  # distinct shapes remembered; the table is rebuilt past that


def line_shape(parsed: ParsedLine) -> int:
    """The shape bits of ``parsed``: a superset of what each bit's validators test first."""
    source = parsed.source
    shape = ANY
    if len(parsed.commands) > 1:
        shape |= MULTI
    for char, bit in _CHARACTERS:
        if char in source:
            shape |= bit
    if not source.isascii():
        shape |= NON_ASCII
    if any(r.writes for c in parsed.commands for r in c.redirects):
        shape |= WRITES
    if parsed.has_error:
        shape |= UNPARSED
    if parsed.written is not None:
        shape |= WRITTEN
    if " " not in source and not any(c.isspace() for c in source):
        shape |= BLANKLESS
    if parsed.comments:
        shape |= COMMENTS
    if "{" in source or "}" in source or "!" in source or "^" in source or ">(" in source:
        shape |= GROUPING
    return shape


_CHARACTERS = (("$", DOLLAR), ("`", BACKQUOTE), ("|", PIPE), ("&", AMP), ("<", LESS),
               ("\n", NEWLINE), ("#", HASH), ("\\", BACKSLASH), ("[", BRACKET), ("=", EQUALS))


class LineDispatch:
    """The line validators to put a line to, by its shape: remembered per shape (and per
    whether the line is the agent's or one the engine wrote). ``exhaustive``: every one."""

    def __init__(self, validators: Sequence[LineValidator], *, exhaustive: bool = False) -> None:
        self.exhaustive = exhaustive
        self._all = tuple((v, v.check_line, v.line_shapes()) for v in validators)
        self._resolved = tuple(entry for entry in self._all if not entry[0].spelling)
        self._by_shape: dict[tuple[int, bool], tuple[tuple[LineValidator, CheckLine], ...]] = {}

    def checks(self, parsed: ParsedLine, resolve: bool
               ) -> tuple[tuple[LineValidator, CheckLine], ...]:
        """The validators (with their bound ``check_line``) whose shapes ``parsed`` has;
        ``resolve`` False: a line the engine wrote, whose spelling validators are skipped."""
        shape = ~0 if self.exhaustive else line_shape(parsed)
        key = (shape, resolve)
        found = self._by_shape.get(key)
        if found is None:
            entries = self._all if resolve else self._resolved
            found = tuple((v, check) for v, check, shapes in entries if shapes & shape)
            if len(self._by_shape) >= MAX_SHAPES:
                self._by_shape.clear()
            self._by_shape[key] = found
        return found
