"""Escaped parentheses in a ``[ … ]`` test (``[ \\( -f a \\) ]``), read as bash reads them.

To ``[`` (the ``test`` builtin) the words ``\\(`` and ``\\)`` group an expression; written
unescaped they would be shell syntax. tree-sitter-bash reads ``[ … ]`` as an expression of its
own and knows the grouping only unescaped: ``[ ( -f a ) ]``. Such a line is written again with
each standalone ``\\(`` as ``( `` and ``\\)`` as `` )`` inside ``[ … ]`` on one line, outside
single quotes: the same length (every offset holds) and the same test, as tree-sitter's
grammar spells it. It is used only when tree-sitter then reads the line cleanly and bashlex,
reading the line as written, agrees (CG-DIFF-001 insists on it, as for ``hoist.py``).
"""

from __future__ import annotations

import re  # this module is imported only for the rare line that needs it

from clawgate.shell.quoting import single_quoted

# ``[`` where a command may start, its body on one line, and ``]`` ending a word.
_TEST = re.compile(r"(?:^|(?<=[\s;&|(!]))\[[ \t][^\n]*?[ \t]\](?=[\s;&|)]|$)", re.MULTILINE)
_PAREN = re.compile(r"(?<=[ \t])\\([()])(?=[ \t])")
_SPELLED = {"(": "( ", ")": " )"}


def unescaped(line: str) -> str | None:
    """``line`` with the escaped parentheses of its ``[ … ]`` tests as tree-sitter spells
    them, or None when it has none."""
    quoted = single_quoted(line)
    chars = list(line)
    changed = False
    for test in _TEST.finditer(line):
        if any(a <= test.start() < b for a, b in quoted):
            continue
        for paren in _PAREN.finditer(line, test.start(), test.end()):
            if any(a <= paren.start() < b for a, b in quoted):
                continue
            chars[paren.start() : paren.end()] = _SPELLED[paren.group(1)]
            changed = True
    return "".join(chars) if changed else None
