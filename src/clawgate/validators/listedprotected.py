"""Whether a loop's list may hand its variable a protected path.

``for f in .git/hooks/*; do cp payload "$f"; done`` writes git hooks as surely as ``cp payload
.git/hooks/*`` does; ``for f in $(git ls-files); do sed -i … "$f"; done`` rewrites the CI files
the project tracks. A loop variable counts as a known name for a write
(``validators/knownnames.py``) only when its list reaches no protected path, judged as a
write target naming the items would be:

- a literal word or glob: the path it spells is a protected one, or lies in a protected
  directory, or its last component is a pattern that may name a protected path the
  directory holds (``.github/*``); ``*.md`` is not taken for ``CLAUDE.md``, as a direct
  write of ``*.md`` is not;
- a lister's output, read from the disk: ``find`` and ``git ls-files`` print every protected
  file below their starting point that their tests (pathspecs) keep, the entries ``ls``
  prints are names in the directory it lists (or the paths its globs spell).
"""

from __future__ import annotations

import fnmatch
import os

from clawgate import fsfacts
from clawgate.protectedpaths import holds_protected, pattern_holds, protected_reason
from clawgate.validators.base import Context
from clawgate.validators.findreach import protected_found

_PATTERN_CHARS = frozenset("*?[")


def item_reaches(word: str, ctx: Context) -> bool:
    """The literal word or glob ``word`` of a loop's list may be a protected path."""
    spelled = _spelled(word, ctx)
    if protected_reason(spelled, ctx.workspace, ctx.protected) is not None:
        return True
    folder, _, last = spelled.rpartition("/")
    if _PATTERN_CHARS & set(last):
        return folder != "" and pattern_holds(folder, last, ctx.workspace) is not None
    return holds_protected(spelled, ctx.workspace) is not None and not fsfacts.isfile(spelled)


def lister_reaches(program: str, items: list[str], ctx: Context) -> bool:
    """The lister ``program`` with the words ``items`` (after its name) may print a protected
    path (see the module)."""
    if program == "find":
        starts = find_starts(items)
        expression = items[len(starts):]
        return any(protected_found(start, _spelled(start, ctx), expression, frozenset(),
                                   ctx.workspace, ctx.protected)
                   for start in starts or ["."])
    if program == "git":
        specs = [w for w in items[1:] if not w.startswith("-")]
        found = protected_found(".", ctx.cwd, (), frozenset(), ctx.workspace, ctx.protected,
                                selects=lambda shown: not shown.startswith("./.git/") and (
                                    not specs or any(_spec(s, shown[2:]) for s in specs)))
        return bool(found)
    operands = [w for w in items if not w.startswith("-")] or ["."]
    for operand in operands:
        if _PATTERN_CHARS & set(operand):
            if item_reaches(operand, ctx):
                return True
            continue
        where = _spelled(operand, ctx)
        if not fsfacts.isdir(where):
            if item_reaches(operand, ctx):
                return True
            continue
        try:
            fsfacts.listing(where)
            names = os.listdir(where)
        except OSError:
            return True  # not readable now: what it lists then is not known
        if any(protected_reason(os.path.join(ctx.cwd, name), ctx.workspace,
                                ctx.protected) is not None for name in names):
            return True  # ls prints bare names: the loop then writes them where it runs
    return False


def _spec(spec: str, path: str) -> bool:
    """git's pathspec ``spec`` (a glob whose ``*`` crosses ``/``, or a leading directory)
    matches ``path``."""
    spec = spec.removeprefix("./").rstrip("/")
    return fnmatch.fnmatchcase(path, spec) or path.startswith(spec + "/") or path == spec


def find_starts(items: list[str]) -> list[str]:
    """The start points among ``find``'s words (after its name): those before the
    expression."""
    found = []
    for item in items:
        if item.startswith(("-", "(", "!")):
            break
        found.append(item)
    return found


def _spelled(word: str, ctx: Context) -> str:
    if word == "~" or word.startswith("~/"):
        word = ctx.home + word[1:]
    return os.path.normpath(os.path.join(ctx.cwd, word))
