"""The command model: every simple command in a line, with its words, quoting and nesting."""

from __future__ import annotations

from functools import lru_cache

from clawgate.records import field, record

# Kinds of expansion a word may carry.
VARIABLE = "variable"  # $x, ${x}
INDIRECT = "indirect"  # ${!x}, ${x@P}: the value names another value
COMMAND = "command"  # $( ), ` `
PROCESS = "process"  # <( ), >( )
ARITHMETIC = "arithmetic"  # $(( ))
ANSI_C = "ansi_c"  # $'\x41'
LOCALE = "locale"  # $"..."
GLOB = "glob"  # * ? [ ]
BRACE = "brace"  # {a,b} {1..3}
TILDE = "tilde"  # ~ ~user

DYNAMIC = frozenset({VARIABLE, INDIRECT, COMMAND, PROCESS, ARITHMETIC})


@record(frozen=True, slots=True)
class Word:
    """One shell word. ``value`` is the word after quote removal, or None when it depends on an
    expansion that only runs at execution time."""

    text: str
    value: str | None
    quoted: bool = False
    expansions: frozenset[str] = frozenset()

    @property
    def static(self) -> bool:
        return self.value is not None and not (self.expansions & {GLOB, BRACE})

    @property
    def shown(self) -> str:
        """The value when known, else the text as written."""
        return self.text if self.value is None else self.value


@record(frozen=True, slots=True)
class Assignment:
    name: str
    value: Word


@record(frozen=True, slots=True)
class Redirect:
    """``op`` as written (``>``, ``>>``, ``<``, ``<<``, ``<<<``, ``>&``, ``&>`` ...)."""

    op: str
    target: Word | None
    fd: int | None = None
    heredoc: str | None = None  # the body of a here-document
    heredoc_expands: bool = False  # an unquoted delimiter: the body is expanded

    @property
    def writes(self) -> bool:
        return ">" in self.op and not self.op.startswith("<")

    @property
    def feeds_input(self) -> bool:
        return self.op in {"<<", "<<-", "<<<"}


@record(frozen=True, slots=True)
class SimpleCommand:
    """One simple command: assignments, argv words and redirections, and where it stands."""

    text: str
    words: tuple[Word, ...] = ()
    assignments: tuple[Assignment, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    pipeline: tuple[str, ...] = ()  # the programs of its innermost pipeline, in order
    stage: int = 0  # its place in that pipeline
    nesting: tuple[str, ...] = ()  # enclosing constructs, outermost first
    background: bool = False
    depth: int = 0  # how many unwrappings led here (sudo, bash -c ...)
    offset: int = 0  # where it starts in the parsed line, in UTF-8 bytes
    # The basename of the command word, or None when it is not known before run time. Every
    # validator asks for it, so it is worked out once, when the command is made.
    program: str | None = field(init=False, repr=False, compare=False)
    # The words' values (``argv``), worked out at the first ask and kept (validators and the
    # risk tables ask for them several times a command; the words never change)
    _argv: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "program",
                           _program_of(self.words[0].value) if self.words else None)

    @property
    def name_word(self) -> Word | None:
        return self.words[0] if self.words else None

    @property
    def argv(self) -> tuple[str, ...]:
        """Every word's value, or its text where the value is dynamic."""
        found = self._argv
        if found is None:
            found = tuple(w.shown for w in self.words)
            object.__setattr__(self, "_argv", found)
        return found

    @property
    def args(self) -> tuple[str, ...]:
        return self.argv[1:]

    @property
    def upstream(self) -> tuple[str, ...]:
        """Known programs piping into this one."""
        return tuple(p for p in self.pipeline[: self.stage] if p)

    @property
    def downstream(self) -> tuple[str, ...]:
        """Known programs this one pipes into."""
        return tuple(p for p in self.pipeline[self.stage + 1 :] if p)

    def pipes_into(self, programs: frozenset[str] | set[str]) -> bool:
        return any(p in programs for p in self.downstream)

    def pipes_from(self, programs: frozenset[str] | set[str]) -> bool:
        return any(p in programs for p in self.upstream)

    def inside(self, construct: str) -> bool:
        return construct in self.nesting


@lru_cache(maxsize=4096)
def _program_of(value: str | None) -> str | None:
    """Every validator asks for the program of every command: remember the basenames. A
    Windows spelling names the same program (``bash.exe``, ``rm.EXE`` of Git for Windows,
    WSL, MSYS2): without its suffix."""
    if value is None:
        return None
    base = value.rsplit("/", 1)[-1]
    return base[:-4] if len(base) > 4 and base[-4:].lower() == ".exe" else base


@record(frozen=True, slots=True)
class ParsedLine:
    """Every simple command of a line, in source order, and what the parser could not read."""

    source: str
    commands: tuple[SimpleCommand, ...]
    has_error: bool = False
    too_deep: bool = False
    comments: tuple[str, ...] = ()
    # The line as written, where ``source`` is it written again for tree-sitter (a here-document
    # before the command name: ``shell/hoist.py``); bashlex is asked about this one.
    written: str | None = None
    # The text tree-sitter parsed in place of ``source``, of the same length, where a here-
    # document body holds a line it would take for the delimiter (``quoting.
    # delimiter_lookalikes``); the words are read from ``source``. Re-parses use this one.
    shape: str | None = None
