"""Directories a substitution prints that the line and its working directory already tell.

``ROOT=$(pwd)``, ``ROOT=$PWD``, ``ROOT=$(git rev-parse --show-toplevel)``, ``ROOT=$(cd .. &&
pwd)``, ``HERE="$(cd "$(dirname "$0")" && pwd)"``, ``HERE=$(dirname "$(realpath "$0")")``, each
optionally followed by a literal tail (``"$(pwd)/build"``): the value is a path computed here
from the working directory the line starts in. ``constants.py`` puts it in like a literal
value, so later words (``"$ROOT/.git/hooks/pre-commit"``, ``cd "$ROOT"``) are judged as the
paths they are. It asks this only for an assignment made before anything on the line could
have moved the shell (no ``cd``, ``pushd``, ``popd``, ``eval``, ``source``, function body …
before it).

In a line the agent's shell runs (``bash -c LINE``), ``$0`` is the shell's name, ``bash``, and
``${BASH_SOURCE[0]}`` is empty, so ``dirname`` of either prints ``.``. A ``cd`` to a relative
directory not led by ``.`` may be found through ``CDPATH`` (the environment's): unknown. A
``cd`` to a directory that does not exist yet prints nothing: unknown (an earlier command of
the line may make it). ``git rev-parse --show-toplevel`` is the nearest directory above the
working directory (links resolved, as git does) holding ``.git``; none found, or a
configuration naming the tree elsewhere (``core.worktree``): unknown. Like every program, git
is taken as run without the environment redirecting it (``GIT_WORK_TREE``, ``GIT_DIR``).
``DIR`` may name a directory computed so by an earlier assignment the line surely runs and
that nothing else sets (``names``, kept by ``constants.run_directories``). Errors thrown away
(``2>/dev/null``, ``&>/dev/null``) print nothing more. Anything else: None, the value stays
unknown.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from clawgate import fsfacts

_TAIL = re.compile(r"[\w.+/-]*")
_LITERAL_DIR = re.compile(r"(?:/|\.)[\w.+/-]*")
_ZERO = r"(?:\"?\$0\"?|\"?\$\{0\}\"?|\"?\$\{?BASH_SOURCE(?:\[0\])?\}?\"?)"
_DIRNAME_ZERO = re.compile(r"\$\(\s*dirname\s+(?:--\s+)?" + _ZERO + r"\s*\)")
_SILENCED = r"(?:\s*(?:[12&]?>\s*/dev/null|2>&1|>&2))*"
_PWD = re.compile(r"pwd(?:\s+-([LP]))?" + _SILENCED)
_TOPLEVEL = re.compile(r"git\s+rev-parse\s+--show-toplevel" + _SILENCED)
_REAL_ZERO = re.compile(r"dirname\s+\"?\$\(\s*(?:realpath|readlink\s+-f)\s+\"?\$0\"?\s*\)\"?")
_CD_PWD = re.compile(r"cd\s+(?:(-P)\s+)?(?:--\s+)?(\S+?)" + _SILENCED +
                     r"\s*&&\s*pwd(?:\s+-([LP]))?")
_VARIABLE_PWD = re.compile(r"\$(?:PWD|\{PWD\})")
_NAME = re.compile(r"\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})")
SHELL_NAME = "bash"  # $0 of ``bash -c LINE``


def directory_value(text: str, cwd: str, names: Mapping[str, str] | None = None
                    ) -> str | None:
    """The value an assignment of ``text`` (its source text) gives when it is one of the
    substitutions above with a literal tail, run from ``cwd`` (absolute); else None.
    ``names``: directories earlier assignments surely gave (``cd "$HERE/.." && pwd``)."""
    if not os.path.isabs(cwd) or "\n" in text or len(text) > 300:
        return None
    quoted = len(text) >= 2 and text[0] == '"' and text[-1] == '"'
    body = text[1:-1] if quoted else text
    found = _VARIABLE_PWD.match(body)
    if found is not None:
        inner_end, base = found.end(), cwd
    else:
        inner = _substitution(body)
        if inner is None:
            return None
        inner_end = len(inner) + 3
        computed = _inner(inner.strip(), cwd, names or {})
        if computed is None:
            return None
        base = computed
    tail = body[inner_end:]
    if not _TAIL.fullmatch(tail) or ".." in tail.split("/"):
        return None  # a tail that climbs is left as written: the parent is not this line's
    return base + tail


def _substitution(body: str) -> str | None:
    """The text inside a leading ``$( … )``, its parentheses balanced."""
    if not body.startswith("$("):
        return None
    depth, i = 1, 2
    while i < len(body):  # a ")" quoted inside is no form read here: the match fails later
        char = body[i]
        if char in "\\'`(":
            return None  # escapes, single quotes, backquotes, bare parentheses: not read here
        if body.startswith("$(", i):
            depth += 1
            i += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return body[2:i]
        i += 1
    return None


def _inner(inner: str, cwd: str, names: Mapping[str, str]) -> str | None:
    """What the commands ``inner`` print, when they are one of the forms read here."""
    if _DIRNAME_ZERO.fullmatch("$(" + inner + ")"):
        return "."
    inner = _DIRNAME_ZERO.sub(".", inner)  # cd "$(dirname "$0")/..": cd "./.."
    found = _PWD.fullmatch(inner)
    if found is not None:
        return _physical(cwd) if found.group(1) == "P" else cwd
    if _TOPLEVEL.fullmatch(inner):
        return _toplevel(cwd)
    if _REAL_ZERO.fullmatch(inner):
        try:  # realpath and readlink -f need every component but the last to exist
            real = fsfacts.realpath(os.path.join(cwd, SHELL_NAME))
        except OSError:
            return None
        return os.path.dirname(real) or "/"
    found = _CD_PWD.fullmatch(inner)
    if found is None:
        return None
    physical = found.group(1) == "-P" or found.group(3) == "P"
    directory = _NAME.sub(lambda n: names.get(n.group(1) or n.group(2), "$"),
                          _DIRNAME_ZERO.sub(".", found.group(2))).replace('"', "")
    if not _LITERAL_DIR.fullmatch(directory):
        return None  # a name CDPATH may find, a variable, a quote left open …
    target = os.path.normpath(os.path.join(cwd, directory))
    if target.startswith("//"):
        target = "/" + target.lstrip("/")
    if not fsfacts.isdir(target):
        return None
    return _physical(target) if physical else target


def _physical(path: str) -> str | None:
    """``path`` with its links resolved, from the disk; None where it does not exist."""
    try:
        real = fsfacts.realpath(path)
    except OSError:
        return None
    return real if fsfacts.lexists(real) else None


def _toplevel(cwd: str) -> str | None:
    """The working tree's top git prints for ``cwd``: the nearest directory at or above it
    (links resolved) holding ``.git``; None inside a ``.git`` directory or outside any."""
    start = _physical(cwd)
    if start is None or ".git" in start.split("/"):
        return None
    here = start
    while True:
        dotgit = os.path.join(here, ".git")
        if fsfacts.lexists(dotgit):
            return None if _moved_tree(dotgit) else here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _moved_tree(dotgit: str) -> bool:
    """The repository's configuration names its working tree elsewhere (``core.worktree``),
    or cannot be read to tell."""
    if not fsfacts.isdir(dotgit):
        return False  # a linked worktree or a submodule: its top is where the file is
    try:
        config = fsfacts.read_text(os.path.join(dotgit, "config"), 65536)
    except OSError:
        return False  # no configuration: nothing moves the tree
    return "worktree" in config.lower()
