"""Line shapes: cheap facts about a parsed line that say which line validators may have an
opinion on it, as command shapes (``shapes.py``) do for command validators.

Most line validators stop at once unless the line has some shape: two commands or more, a
``$``, a pipe, a redirection that writes, a comment, a parse error. ``LineValidator.
line_shapes()`` names those shapes (or ``ANY``); the engine puts a line to it only when the
line has one of them (``LineDispatch.checks``). Each bit is the validator's own first test,
computed once per line instead of once per validator; a bit set where the validator then
finds nothing costs only the call. A validator that looks only at the commands running some
programs names them (``line_programs()``): it is asked about a line that runs one of them,
found with one look per command. ``tests/validators/test_line_shapes.py`` holds every
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
# Words a few validators look for in the source before anything else:
FETCHES = 1 << 19  # "clone", "checkout" or " co ": code fetched into a directory
PUSHES = 1 << 20  # "push" and "add" both
ALIAS = 1 << 21  # "alias"
AWK = 1 << 22  # "awk"
MANY = 1 << 23  # nested too deeply to read, or more than MAX_COMMANDS commands
POWERSHELL = 1 << 24  # a program whose name holds a "-", or a PowerShell alias

MAX_COMMANDS = 512  # commands a line may hold before it is refused (CG-PARSE-002)
# PowerShell's aliases for its cmdlets that run or fetch code (``iex``, ``iwr`` ...), as a
# program's name is read lowercased (CG-WIN-005)
POWERSHELL_ALIASES = frozenset({"iex", "iwr", "irm", "saps", "sal", "icm", "ipmo",
                                "curl.exe", "wget.exe"})

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
    if "clone" in source or "checkout" in source or " co " in source:
        shape |= FETCHES
    if "push" in source and "add" in source:
        shape |= PUSHES
    if "alias" in source:
        shape |= ALIAS
    if "awk" in source:
        shape |= AWK
    if parsed.too_deep or len(parsed.commands) > MAX_COMMANDS:
        shape |= MANY
    for cmd in parsed.commands:
        program = cmd.program
        if program is not None and ("-" in program or program.lower() in POWERSHELL_ALIASES):
            shape |= POWERSHELL
            break
    return shape


_CHARACTERS = (("$", DOLLAR), ("`", BACKQUOTE), ("|", PIPE), ("&", AMP), ("<", LESS),
               ("\n", NEWLINE), ("#", HASH), ("\\", BACKSLASH), ("[", BRACKET), ("=", EQUALS))


class LineDispatch:
    """The line validators to put a line to, by its shape and the programs its commands run
    that some validator names: remembered per shape, per those validators and per whether the
    line is the agent's or one the engine wrote. ``exhaustive``: every one."""

    def __init__(self, validators: Sequence[LineValidator], *, exhaustive: bool = False) -> None:
        self.exhaustive = exhaustive
        # (validator, its check, its shapes, the bit that stands for it among the validators
        # naming programs: 0 when it names none)
        entries: list[tuple[LineValidator, CheckLine, int, int]] = []
        named: dict[str | None, int] = {}  # program -> the bits of the validators naming it
        naming = 0  # validators naming programs so far
        for v in validators:
            programs = v.line_programs()
            bit = 0
            if programs:
                bit = 1 << naming
                naming += 1
                for program in programs:
                    named[program] = named.get(program, 0) | bit
            entries.append((v, v.check_line, v.line_shapes(), bit))
        self._all = tuple(entries)
        self._resolved = tuple(entry for entry in self._all if not entry[0].spelling)
        self._named = named
        self._by_shape: dict[tuple[int, int, bool],
                             tuple[tuple[LineValidator, CheckLine], ...]] = {}

    def checks(self, parsed: ParsedLine, resolve: bool
               ) -> tuple[tuple[LineValidator, CheckLine], ...]:
        """The validators (with their bound ``check_line``) whose shapes ``parsed`` has or one
        of whose programs it runs; ``resolve`` False: a line the engine wrote, whose spelling
        validators are skipped."""
        if self.exhaustive:
            shape, runs = ~0, ~0
        else:
            shape, runs, named = line_shape(parsed), 0, self._named
            for cmd in parsed.commands:
                runs |= named.get(cmd.program, 0)
        key = (shape, runs, resolve)
        found = self._by_shape.get(key)
        if found is None:
            entries = self._all if resolve else self._resolved
            found = tuple((v, check) for v, check, shapes, bit in entries
                          if shapes & shape or bit & runs)
            if len(self._by_shape) >= MAX_SHAPES:
                self._by_shape.clear()
            self._by_shape[key] = found
        return found
