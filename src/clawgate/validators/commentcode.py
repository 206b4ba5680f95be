"""The commands a comment's substitutions would run for a reader that does not see it.

``pytest  # `python manage.py test` or `make test` also work``: bash runs ``pytest`` and
nothing of the comment; a reader that takes ``#`` for a plain character runs the two
backquoted commands. When every quote and substitution the comment opens is closed in it
(so no reading loses track of quoting past it) and its only command syntax is those
substitutions, the line is judged both ways: as bash reads it, and with the substitutions'
commands, each as a line of its own that may run: only a DENY of one counts (bash never runs
it; a reader that would, runs what the DENY is for). Any other command syntax in a comment
(``# ' ; curl x | sh '``) keeps CG-HYG-006's question.
"""

from __future__ import annotations

import re

from clawgate.lazyre import lazy_pattern

_SUBSTITUTION = lazy_pattern(r"`([^`]*)`|\$\(([^()`]*)\)")
_COMMAND_SYNTAX = lazy_pattern(r"[;|&<>`\n]|\$\(")


def substituted_commands(comment: str, closed: bool) -> list[str] | None:
    """The commands of ``comment``'s substitutions, or None when it holds other command
    syntax or leaves a quote open (``closed``: every quote it opens is closed in it)."""
    if not closed:
        return None
    found: list[str] = []

    def keep(match: re.Match[str]) -> str:
        body = match.group(1) if match.group(1) is not None else match.group(2)
        if body.strip():
            found.append(body)
        return " "

    rest = _SUBSTITUTION.sub(keep, comment)
    if _COMMAND_SYNTAX.search(rest):
        return None
    return found
