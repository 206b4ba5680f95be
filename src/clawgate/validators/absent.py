"""A recursive delete of what is not there deletes nothing: ``rm -rf build-tmp`` where no
``build-tmp`` exists, ``rm -rf *.tmp`` where no name matches, ``rm -rf {a,b}`` where neither
is, ``find out/ -name '*.o' -delete`` where no ``out`` is. CI scripts and agents clear such
paths before every run; asking about them asks about nothing.

Decided from the disk (through ``fsfacts``: a remembered decision sees the path appear), and
only where the disk tells the truth about what the delete will meet:

- the workspace is on this machine (a service deciding for another one, a policy test on a
  made-up workspace: nothing is spared);
- the delete is one of the line's own commands (not text handed to a shell, not the shadow's
  reading, not in a function, a loop, the background or a pipeline, all of which run at
  another moment than the one the disk was read at), with no assignments before it;
- every other command on the line that may run before it is inert: it can make no link, move
  nothing into place and change no variable a path depends on (tests, ``echo``/``printf``,
  ``cd``, ``pwd``, ``mkdir``, ``touch``, ``set``, plain assignments of other names, programs
  that only read, other deletes: removing makes nothing appear). ``ln -s ~ gone && rm -rf
  gone/`` empties home, ``mv src gone; rm -rf gone`` loses the sources. A command written
  after the delete runs after it (``rm -rf bats; ln -s bats-v1 bats``), unless it is in a
  substitution, which a redirection or a here-document of the delete may expand first;
- every target is written out (brace lists expanded; globs worked out on the disk, in any
  component, ``globreach``), lies inside the workspace and is not the workspace itself nor
  every entry of it (``rm -rf *`` at its root: an empty workspace now is not one later).

What is spared is only the missing targets: the rest of the delete is judged as before.
"""

from __future__ import annotations

from clawgate import fsfacts
from clawgate.records import replace
from clawgate.shell.braces import braces
from clawgate.shell.model import BRACE, GLOB, ParsedLine, SimpleCommand, Word
from clawgate.validators.base import Context
from clawgate.validators.flags import parse_options
from clawgate.validators.globreach import matches_nothing
from clawgate.validators.paths import resolve, under
from clawgate.validators.wipes import wipes_workspace

_RM_ALIASES = {"R": "r", "--recursive": "r", "--force": "f"}
# Commands that can neither make a link nor move anything to where a delete looks.
INERT = frozenset({"test", "[", "[[", "echo", "printf", "cd", "pushd", "popd", "pwd", "true",
                   "false", ":", "mkdir", "touch", "set", "date", "sleep", "exit",
                   # programs that only read or print, and deletes (nothing appears)
                   "readlink", "realpath", "basename", "dirname", "ls", "stat", "uname",
                   "rm", "rmdir", "unlink"})
# Variables that change what a path on the line means or what a glob matches.
_PATH_VARIABLES = frozenset({"HOME", "PWD", "OLDPWD", "CDPATH", "GLOBIGNORE", "IFS"})
_RUNS_ELSEWHERE = frozenset({"function", "loop"})
# Commands a later part of the line runs first or alongside: a substitution in the delete's
# own redirections or here-document (``rm -rf gone <<E`` … ``$(ln -s ~ gone)``).
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution", "heredoc"})
_PLAIN_EXPANSIONS = frozenset({GLOB, BRACE})


def without_missing(cmd: SimpleCommand, parsed: ParsedLine, ctx: Context
                    ) -> SimpleCommand | None:
    """``cmd`` with the ``rm`` targets or ``find`` starting points that are not there left
    out (``cmd`` itself when none is, or when the disk cannot be trusted for this line); None
    for a ``find`` none of whose starting points is there (it deletes nothing; left without
    them it would start from ``.``). An ``rm`` left with no target deletes nothing."""
    if cmd.program not in ("rm", "find") or ctx.nested or not _alone_in_time(cmd, parsed):
        return cmd
    if cmd.program == "find":
        operands = _find_starts(cmd)
    else:
        operands = parse_options(cmd.words[1:], aliases=_RM_ALIASES).operands
    missing = {id(w) for w in operands
               if _missing(w, ctx) and not wipes_workspace(cmd, w, resolve(w, ctx), ctx)}
    if not missing or not fsfacts.isdir(ctx.workspace):
        return cmd
    if cmd.program == "find" and len(missing) == len(operands):
        return None
    return replace(cmd, words=tuple(w for w in cmd.words if id(w) not in missing))


def _find_starts(cmd: SimpleCommand) -> tuple[Word, ...]:
    """The starting points ``find`` is given (none for one that starts from ``.`` or reads
    them from a file: ``-files0-from``)."""
    starts: list[Word] = []
    for word in cmd.words[1:]:
        value = word.value
        if value is None:
            return ()
        if value.startswith(("-", "(", "!", ")")):
            if starts or value not in ("-H", "-L", "-P"):
                break
            continue
        starts.append(word)
    if any(w.value == "-files0-from" for w in cmd.words):
        return ()
    return tuple(starts)


def _alone_in_time(cmd: SimpleCommand, parsed: ParsedLine) -> bool:
    """``cmd`` runs once, when the line reaches it, and nothing else on the line can put a
    thing where it looks."""
    if (cmd.depth or cmd.assignments or cmd.background or len(cmd.pipeline) > 1
            or _RUNS_ELSEWHERE.intersection(cmd.nesting)):
        return False
    if "coproc" in parsed.source:
        return False  # a coprocess runs alongside what is written after it
    end = cmd.offset + len(cmd.text.encode())
    return all(other is cmd or _inert(other) or _after(other, end)
               for other in parsed.commands)


def _after(other: SimpleCommand, end: int) -> bool:
    """``other`` is written after the delete (which runs once, in the foreground) and in no
    substitution: it runs when the delete is done."""
    return other.offset >= end and not _SUBSTITUTIONS.intersection(other.nesting) \
        and not other.depth


def _inert(cmd: SimpleCommand) -> bool:
    if any(a.name in _PATH_VARIABLES for a in cmd.assignments):
        return False
    return not cmd.words or cmd.program in INERT


def _missing(word: Word, ctx: Context) -> bool:
    """Nothing is at any path ``word`` names, and each lies inside the workspace."""
    if word.value is None or not word.expansions <= _PLAIN_EXPANSIONS:
        return False
    names = braces(word.value) if BRACE in word.expansions else [word.value]
    if not names:
        return False
    return all(_nothing_at(name, ctx) for name in names)


def _nothing_at(name: str, ctx: Context) -> bool:
    path = resolve(Word(name, name), ctx).path
    if path is None or not under(path, ctx.workspace) or path == ctx.workspace:
        return False
    if not any(c in "*?[" for c in name):
        return not fsfacts.lexists(path)
    if ".." in name.split("/"):
        return False  # ``x/*/..`` through a link leads where the link's target is
    return matches_nothing(path)
