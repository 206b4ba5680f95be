"""Loop variables that a changed IFS cannot split again.

``for f in $(git ls-files)`` splits the substitution's output at the characters of IFS, so each
value ``f`` takes holds none of them: expanded unquoted later (``touch -d … $f``) it is one
field, whatever IFS holds, as long as IFS is the same when the list is split and when ``$f`` is
expanded. That holds when the line sets IFS once, before the loop, and nothing else sets the
variable; a list word with literal text (``for f in a,~``) keeps its characters, IFS's among
them, and is not of this kind.
"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine

_LOOP = lazy_pattern(r"\bfor\s+([A-Za-z_]\w*)\s+in\s+([^;\n]*?)\s*(?:;|\n)\s*do\b")
# A list made only of whole expansions: substitutions and variables, no literal text. A
# substitution holds no parenthesis (its end is the first ``)``: a quoted one breaks the
# match, so the list is not read as of this kind).
_EXPANSIONS_ONLY = lazy_pattern(r"(?:\s*(?:\$\([^()`\\]*\)|`[^`\\]*`|"
                                r"\$\{?[A-Za-z_]\w*\}?))+\s*")
_NAMED = lazy_pattern(r"\b(?:for|select)\s+([A-Za-z_]\w*)\b|\bread\s+(?:-\w+\s+)*"
                      r"((?:[A-Za-z_]\w*\s*)+)")


def split_once(parsed: ParsedLine, ifs_offset: int) -> frozenset[str]:
    """The loop variables of ``parsed`` whose values hold no character of the IFS the line
    sets at byte ``ifs_offset`` (its only IFS), so that an unquoted expansion of one is a
    single field."""
    source = parsed.source
    if source.count("IFS") != 1:
        return frozenset()
    assigned = {a.name for c in parsed.commands for a in c.assignments}
    named: dict[str, int] = {}
    for found in _NAMED.finditer(source):
        for name in (found.group(1) or found.group(2) or "").split():
            named[name] = named.get(name, 0) + 1
    safe = set()
    for loop in _LOOP.finditer(source):
        name, words = loop.group(1), loop.group(2)
        if len(source[:loop.start()].encode()) <= ifs_offset:
            continue  # the list was split before IFS changed
        if name in assigned or named.get(name) != 1 or not _EXPANSIONS_ONLY.fullmatch(words):
            continue
        safe.add(name)
    return frozenset(safe)
