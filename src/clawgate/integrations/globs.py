"""Where a glob pattern can reach: every root it can expand to, not only its fixed prefix.

``{/etc,src}/*`` reaches ``/etc`` and ``src``; ``*/../../etc/passwd`` climbs out whatever the
wildcard matches. So braces are expanded (nested, up to ``MAX_EXPANSIONS``), a ``..``
component anywhere in a pattern (or inside a brace or an extglob group) is refused, and the
fixed prefix of each expansion (its leading components without wildcards) is a root to check
against the workspace and the forbidden paths. An absolute pattern's roots are absolute and
so are refused when outside the workspace.
"""

from __future__ import annotations

import re

from clawgate.integrations.calls import BadInput

MAX_EXPANSIONS = 256
WILD = frozenset("*?[{(!+@|")  # a component holding one of these is not fixed
_BRACE = re.compile(r"\{([^{}]*)\}")
# `..` as a component: between separators, or next to a brace, comma or extglob group
_CLIMB = re.compile(r"(?:^|[/\\{,(|])\.\.(?:$|[/\\},)|])")


def expand_braces(pattern: str) -> list[str]:
    """Every brace expansion of ``pattern``, innermost braces first (``{x}`` without a comma
    is read as ``x``: stricter than the globbers that keep it literal). Raises BadInput when
    there would be more than MAX_EXPANSIONS."""
    done: list[str] = []
    todo = [pattern]
    while todo:
        current = todo.pop()
        match = _BRACE.search(current)
        if match is None:
            done.append(current)
            continue
        for choice in match.group(1).split(","):
            todo.append(current[:match.start()] + choice + current[match.end():])
        if len(todo) + len(done) > MAX_EXPANSIONS:
            raise BadInput(f"glob pattern {pattern!r} expands to more than {MAX_EXPANSIONS} "
                           "patterns")
    return done


def glob_roots(pattern: str) -> tuple[str, ...]:
    """The directories ``pattern`` can start from (``.`` for a pattern that starts with a
    wildcard). Raises BadInput for a pattern that climbs with ``..``."""
    if _CLIMB.search(pattern):
        raise BadInput(f"glob pattern {pattern!r} climbs out with '..'")
    roots = []
    for expanded in expand_braces(pattern):
        if _CLIMB.search(expanded):
            raise BadInput(f"glob pattern {pattern!r} climbs out with '..'")
        roots.append(fixed_prefix(expanded))
    return tuple(dict.fromkeys(roots))


def fixed_prefix(pattern: str) -> str:
    """The leading components of ``pattern`` without wildcards: ``src/**/*.py`` starts in
    ``src``, ``/etc/*.conf`` in ``/etc``, ``/etc/passwd`` is itself, ``*.py`` is ``.``."""
    fixed: list[str] = []
    for part in pattern.split("/"):
        if any(c in WILD for c in part):
            break
        fixed.append(part)
    if not fixed:
        return "."
    return "/".join(fixed) or "/"
