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
- every other command on the line is inert: it can make no link, move nothing into place and
  change no variable a path depends on (tests, ``echo``/``printf``, ``cd``, ``pwd``,
  ``mkdir``, ``touch``, ``set``, plain assignments of other names). ``ln -s ~ gone && rm -rf
  gone/`` empties home, ``mv src gone; rm -rf gone`` loses the sources;
- every target is written out (a glob in its last component only, brace lists expanded),
  lies inside the workspace and is not the workspace itself.

What is spared is only the missing targets: the rest of the delete is judged as before.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath

from clawgate import fsfacts
from clawgate.records import replace
from clawgate.shell.braces import braces
from clawgate.shell.model import BRACE, GLOB, ParsedLine, SimpleCommand, Word
from clawgate.validators.base import Context
from clawgate.validators.flags import parse_options
from clawgate.validators.paths import resolve, under

_RM_ALIASES = {"R": "r", "--recursive": "r", "--force": "f"}
# Commands that can neither make a link nor move anything to where a delete looks.
INERT = frozenset({"test", "[", "[[", "echo", "printf", "cd", "pushd", "popd", "pwd", "true",
                   "false", ":", "mkdir", "touch", "set", "date", "sleep", "exit"})
# Variables that change what a path on the line means or what a glob matches.
_PATH_VARIABLES = frozenset({"HOME", "PWD", "OLDPWD", "CDPATH", "GLOBIGNORE", "IFS"})
_RUNS_ELSEWHERE = frozenset({"function", "loop"})
_PLAIN_EXPANSIONS = frozenset({GLOB, BRACE})
# Bracket expressions (bash's ``[^a]`` is not fnmatch's), escapes and extended globs.
_UNREAD = frozenset("[]\\()|!+@")


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
    missing = {id(w) for w in operands if _missing(w, ctx)}
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
    return all(other is cmd or _inert(other) for other in parsed.commands)


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
    head, last = posixpath.split(name.rstrip("/"))
    if not any(c in "*?[" for c in name):
        return not fsfacts.lexists(path)
    if any(c in "*?[" for c in head) or _UNREAD.intersection(last) or not last:
        return False  # a glob higher up, a bracket or an extended one: not worked out here
    directory = posixpath.dirname(path.rstrip("/")) or "/"
    if not fsfacts.lexists(directory):
        return True
    if not fsfacts.isdir(directory):
        return False
    fsfacts.listing(directory)
    try:
        entries = os.listdir(directory)
    except OSError:
        return False
    # Dot names counted as matches too (``shopt -s dotglob`` may be on).
    return not any(fnmatch.fnmatchcase(e, last) or fnmatch.fnmatchcase(e, "." + last)
                   for e in entries)

