"""The protected paths a ``find`` from a directory of the workspace hands to its command.

``find . -name config -exec sed -i … {} +`` edits ``.git/config``; ``find . -type f -exec
sed -i 's/main/trunk/' {} +`` rewrites ``.git/HEAD``. A starting point that holds protected
paths (the workspace's root holds ``.git``, ``.github``, ``CLAUDE.md`` …) hands them on like
any other file unless the expression keeps them out. Which ones it finds is a fact of the
disk: the protected entries directly below the starting point are listed, the files in those
that are directories walked (a bounded number; git's object store, whose names are hashes, is
left out), and each kept when find's name tests can match it and no exclusion it states
(``-not -path './.git/*'``, ``-path ./.git -prune -o``) keeps it out. The command is then
judged with each such path put in for ``{}``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from clawgate import fsfacts
from clawgate.protectedpaths import holds_protected, protected_reason
from clawgate.validators.findexpr import NAME_TESTS, acts_only_on_named
from clawgate.validators.findglob import matches

MAX_FILES = 256  # files looked at below the protected entries of one starting point
MAX_FOUND = 4  # protected paths put in for one starting point
_SKIPPED = frozenset({"objects"})  # below .git: named by hashes, never a setting
_BASENAME_TESTS = frozenset({"-name", "-iname"})
_NEGATIONS = frozenset({"!", "-not"})


def protected_found(root: str, path: str, expression: Sequence[str], actions: frozenset[str],
                    workspace: str, extra: tuple[str, ...], *, follow: bool = False,
                    selects: Callable[[str], bool] | None = None) -> list[str]:
    """The protected paths (spelled from ``root``, as find prints them) that ``find root
    EXPRESSION`` hands to an action, read from the disk; ``path`` is ``root`` resolved. A
    starting point that is a link is read where it leads (``find docs/gitlink/``), and with
    ``follow`` (``-L``, ``-follow``) so are the links directly below it. ``selects`` (a
    path as shown): another program's test in place of find's (``fd PATTERN``)."""
    try:
        if not fsfacts.isdir(path):
            return []
        fsfacts.listing(path)
        names = sorted(os.listdir(path))
    except OSError:
        return []
    bounded = acts_only_on_named(expression, actions)
    wanted, negated, pruned = _tests(expression)
    found: list[str] = []
    budget = [MAX_FILES]
    start = fsfacts.realpath(path)
    for name in names:
        full = os.path.join(start, name)
        if follow and fsfacts.islink(full):
            full = fsfacts.realpath(full)
        if protected_reason(full, workspace, extra) is None and holds_protected(
                full, workspace) is None:
            continue
        for candidate in _files(full, budget):
            shown = f"{root.rstrip('/')}/{name}{candidate[len(full):]}"
            if protected_reason(candidate, workspace, extra) is None:
                continue
            if selects is not None:
                if not selects(shown):
                    continue
            elif bounded and not _matches(shown, wanted, uncertain=True):
                continue
            if _matches(shown, negated, uncertain=False) or _matches(
                    shown, pruned, above=True, uncertain=False):
                continue
            found.append(shown)
            if len(found) >= MAX_FOUND:
                return found
    return found


def _files(top: str, budget: list[int]) -> list[str]:
    """``top`` if a file, else the files below it, while the budget lasts."""
    try:
        if not fsfacts.isdir(top) or fsfacts.islink(top):
            return [top]
        found: list[str] = []
        for folder, dirs, files in fsfacts.walk(top):
            dirs[:] = [d for d in sorted(dirs) if not (
                d in _SKIPPED and os.path.basename(folder).lower() == ".git")]
            for name in sorted(files):
                if budget[0] <= 0:
                    return found
                budget[0] -= 1
                found.append(os.path.join(folder, name))
        return found
    except OSError:
        return []


def _tests(expression: Sequence[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]],
                                              list[tuple[str, str]]]:
    """(positive name tests, negated ones, ones a ``-prune`` follows)."""
    wanted: list[tuple[str, str]] = []
    negated: list[tuple[str, str]] = []
    pruned: list[tuple[str, str]] = []
    for at, word in enumerate(expression[:-1]):
        if word not in NAME_TESTS:
            continue
        test = (word, expression[at + 1])
        after = list(expression[at + 2 : at + 4])
        if at > 0 and expression[at - 1] in _NEGATIONS:
            negated.append(test)
        elif after[:1] == ["-prune"] or after == ["-a", "-prune"]:
            pruned.append(test)
        else:
            wanted.append(test)
    return wanted, negated, pruned


def _matches(shown: str, tests: list[tuple[str, str]], above: bool = False, *,
             uncertain: bool) -> bool:
    """``shown`` (or, ``above``, a directory above it: find does not descend into a pruned
    one) passes one of the tests, read as find reads them (``findglob.py``); a pattern whose
    meaning is uncertain counts as ``uncertain``."""
    paths = [shown]
    if above:
        parts = shown.split("/")
        paths += ["/".join(parts[:end]) for end in range(1, len(parts))]
    for test, pattern in tests:
        for candidate in paths:
            subject = candidate.rsplit("/", 1)[-1] if test in _BASENAME_TESTS else candidate
            found = matches(pattern, subject, fold=test.startswith("-i"))
            if found is None:
                found = uncertain
            if found:
                return True
    return False
