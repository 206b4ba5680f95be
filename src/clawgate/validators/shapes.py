"""Command shapes: cheap facts about a simple command that say which validators may have an
opinion on it, the second dispatch key beside the program.

A validator that looks at every program usually stops at once unless the command has some
shape: a redirection, an assignment, a ``$`` in its text, a program name that is not a plain
word. ``Validator.shapes(program)`` names those shapes (or ``ANY``); the engine asks it about
a command only when the command has one of them (``Dispatch.for_command``). Each bit is the
validator's own first test, computed once per command instead of once per validator; a bit
set where the validator then finds nothing costs only the call.

A few first tests look at where the command runs, not at the command: outside the workspace,
under a policy that forbids paths, in a directory holding the guard's state. Those bits come
from the context (``context_shape``) and join the command's own when the engine asks
``Dispatch.for_command(cmd, ctx)``; asked without a context, a command has every one of them.
"""

from __future__ import annotations

from clawgate.shell.model import SimpleCommand

TYPE_CHECKING = False  # no runtime ``typing`` import
if TYPE_CHECKING:
    from collections.abc import Callable

    from clawgate.validators.base import Context

ANY = 1  # every command has it: a validator asked about every command of a program
REDIRECT = 1 << 1  # cmd.redirects
ASSIGN = 1 << 2  # cmd.assignments
BACKGROUND = 1 << 3  # cmd.background
NESTED = 1 << 4  # cmd.nesting: inside a function, a substitution, a subshell ...
PIPED = 1 << 5  # cmd.upstream or cmd.downstream may name a program
DOLLAR = 1 << 6  # "$" in cmd.text
PAREN = 1 << 7  # "(" in cmd.text
DEV = 1 << 8  # "/dev/" in cmd.text
SHELLISH = 1 << 9  # "sh", "bin/" or "../" in cmd.text
OPTIONS = 1 << 10  # "--", "xec" or "XEC" in cmd.text
PROCISH = 1 << 11  # "env", "mem", "proc" or a glob character in cmd.text
ODD_NAME = 1 << 12  # the command word: dynamic, quoted, expanded, non-ASCII, with "/" ...
# A word's value is its text with quotes, backslashes and ``$'…'`` escapes worked out: a value
# outside ASCII needs a character outside ASCII or a backslash in the text, a quoted word a
# quote or a backslash, and a value holding a run of characters needs them in the text, with
# at most quotes and backslashes between.
UNUSUAL = 1 << 13  # a character outside ASCII or a backslash in cmd.text
QUOTES = 1 << 14  # "'" or '"' in cmd.text
PUNY = 1 << 15  # "xn--" in cmd.text, in any case
LIBRARY = 1 << 16  # ".so" or ".dylib" in cmd.text
BAR = 1 << 17  # "|" in cmd.text (a word's: a pipe between commands is no part of it)
SESSION = 1 << 18  # the second (or, after an interpreter's script, third) word is a SESSION_WORD
HINTED = 1 << 19  # a word may name a credential file (``secrets.mentions_secret``)
PATHY = 1 << 20  # an argument or redirection target holding "/", "~", ".." or "$"
# Shapes the context gives every command run in it (``context_shape``):
AWAY = 1 << 21  # it runs outside the workspace (ctx.cwd != ctx.workspace)
FORBIDDEN = 1 << 22  # the policy forbids paths (ctx.forbidden_paths)
NEAR = 1 << 23  # it runs in the guard's state directory or in one holding it
CONTEXT = AWAY | FORBIDDEN | NEAR  # every context bit: a command asked about with no context

# Subcommands that open an interactive session (``rails console``, ``flask shell``: CG-ESC-010)
SESSION_WORDS = frozenset({"shell", "console", "repl", "tunnel", "attach", "debug"})

_GLOB = frozenset("*?[")


def shape_of(cmd: SimpleCommand, needed: int = ~0) -> int:
    """The shape bits of ``cmd`` among ``needed`` (the others may be left unset): a superset
    of what each bit's validators test first."""
    shape = ANY
    if cmd.redirects:
        shape |= REDIRECT
    if cmd.assignments:
        shape |= ASSIGN
    if cmd.background:
        shape |= BACKGROUND
    if cmd.nesting:
        shape |= NESTED
    if len(cmd.pipeline) > 1 or (cmd.pipeline and cmd.stage):
        shape |= PIPED
    text = cmd.text
    if "$" in text:
        shape |= DOLLAR
    if "(" in text:
        shape |= PAREN
    if "/dev/" in text:
        shape |= DEV
    if needed & SHELLISH and ("sh" in text or "bin/" in text or "../" in text):
        shape |= SHELLISH
    if needed & OPTIONS and ("--" in text or "xec" in text or "XEC" in text):
        shape |= OPTIONS
    if needed & PROCISH and ("env" in text or "mem" in text or "proc" in text
                             or not _GLOB.isdisjoint(text)):
        shape |= PROCISH
    if needed & UNUSUAL and ("\\" in text or not text.isascii()):
        shape |= UNUSUAL
    if needed & QUOTES and ("'" in text or '"' in text):
        shape |= QUOTES
    if needed & PUNY and "xn--" in text.lower():
        shape |= PUNY
    if needed & LIBRARY and (".so" in text or ".dylib" in text):
        shape |= LIBRARY
    if needed & BAR and "|" in text:
        shape |= BAR
    if needed & SESSION and len(cmd.words) > 1 and (cmd.words[1].value in SESSION_WORDS or (
            len(cmd.words) > 2 and cmd.words[2].value in SESSION_WORDS)):
        shape |= SESSION  # python manage.py shell: the script's subcommand
    if needed & HINTED and _first_look()(cmd):  # kept for the command: asked again later
        shape |= HINTED
    if needed & PATHY and (any(_pathy(w.text) for w in cmd.words[1:]) or any(
            r.target is not None and _pathy(r.target.text) for r in cmd.redirects)):
        shape |= PATHY
    if needed & ODD_NAME and cmd.words:
        name = cmd.words[0]
        value = name.value
        text = name.text
        if (value is None or name.quoted or name.expansions or "/" in value or "%" in text
                or "`" in text or "$(" in text or text.startswith(("!", "^"))
                or not text.isascii()):
            shape |= ODD_NAME
    return shape


def _first_look() -> Callable[[SimpleCommand], bool]:
    """``secrets.mentions_secret``, looked up once (its module imports this one)."""
    if not _first_looks:
        from clawgate.validators.secrets import mentions_secret

        _first_looks.append(mentions_secret)
    return _first_looks[0]


_first_looks: list[Callable[[SimpleCommand], bool]] = []


def _pathy(text: str) -> bool:
    return "/" in text or "~" in text or ".." in text or "$" in text


def context_shape(ctx: Context) -> int:
    """The shape bits ``ctx`` gives every command run in it. Asked about every command, in
    the same context: the latest answer is kept by the context object (frozen, so it holds)."""
    last = _context_last[0]  # one read: another thread may replace it meanwhile
    if last[0] is ctx:
        return last[1]
    from clawgate.validators.guardstate import near_state  # once per context; it imports this

    shape = 0
    if ctx.cwd != ctx.workspace:
        shape |= AWAY
    if ctx.forbidden_paths:
        shape |= FORBIDDEN
    if ctx.guarded and near_state(ctx):
        shape |= NEAR
    _context_last[0] = (ctx, shape)  # holding ctx keeps its id from being reused meanwhile
    return shape


_context_last: list[tuple[Context | None, int]] = [(None, 0)]
