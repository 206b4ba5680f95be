"""Whether a glob matches anything on the disk now: ``source/reference/*/api/`` where no
``source/reference`` is, or no entry of it holds an ``api``, names nothing, and bash hands
the pattern to ``rm`` as it is written (a name nothing has).

Worked out component by component, as bash expands it: a component without a pattern is
joined on; one with a pattern is matched against the names of each directory reached so far
(dot names counted as matches too, ``shopt -s dotglob`` may be on); a component before the
last must lead into a directory (through a link as well, as bash follows one). Each listing
is noted (``fsfacts.listing``), so a remembered decision sees a name appear. Bracket
expressions, escapes and extended globs are not worked out here (bash's ``[^a]``, ``[[:x:]]``
and ``@(a|b)`` are not ``fnmatch``'s), nor a ``..`` after a pattern, nor more than a few
dozen directories: the answer is then "may match".
"""

from __future__ import annotations

import fnmatch
import os

from clawgate import fsfacts

# Bracket expressions (bash's ``[^a]`` is not fnmatch's), escapes and extended globs.
_UNREAD = frozenset("[]\\()|!+@")
_PATTERN = frozenset("*?[")
_MAX_DIRECTORIES = 32


def matches_nothing(path: str) -> bool:
    """No entry on the disk is named by ``path`` (absolute, normalised, its components as
    written, patterns and all): True only when that is certain."""
    parts = [p for p in path.split("/") if p]
    reached = ["/"]
    patterned = False
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if not _PATTERN.intersection(part):
            if part == ".." and patterned:
                return False
            reached = [os.path.join(r, part) for r in reached]
            reached = [r for r in reached if (fsfacts.lexists(r) if last else fsfacts.isdir(r))]
        elif _UNREAD.intersection(part) or len(reached) > _MAX_DIRECTORIES:
            return False
        else:
            patterned = True
            found = _matching(reached, part, last)
            if found is None:
                return False
            reached = found
        if not reached:
            return True
    return False


def _matching(directories: list[str], pattern: str, last: bool) -> list[str] | None:
    """The entries of ``directories`` that ``pattern`` matches (directories only, before the
    last component); None when one cannot be listed."""
    found: list[str] = []
    for directory in directories:
        fsfacts.listing(directory)
        try:
            names = os.listdir(directory)
        except OSError:
            return None
        for name in names:
            if fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(name, "." + pattern):
                entry = os.path.join(directory, name)
                if last or fsfacts.isdir(entry):
                    found.append(entry)
    return found
