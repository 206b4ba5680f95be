"""Python's own command line, read as CPython reads it: which module ``-m`` runs.

``python3 -m pip``, ``python3 -mpip`` (glued), ``python3 -Im pip`` (a cluster ending in
``m``), ``python3 -Bmpip`` and ``python3 -W ignore -m pip`` all run pip; ``-c`` code, a script
or ``-`` (standard input) end the options without a module.
"""

from __future__ import annotations

from collections.abc import Sequence

# Options that take a value (glued or the next word); every other letter is a flag.
_VALUED = frozenset("WXQ")
_LONG_VALUED = frozenset({"--check-hash-based-pycs"})


def python_module(args: Sequence[str | None]) -> tuple[str, int] | None:
    """The module ``python ARGS`` runs with ``-m`` and the index in ``args`` where the
    module's own arguments start, or None: a script, ``-c`` code, standard input, or a word
    only known at run time before the module is named."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None or not arg.startswith("-") or arg in ("-", "--"):
            return None
        if arg.startswith("--"):
            i += 2 if arg in _LONG_VALUED else 1
            continue
        for j in range(1, len(arg)):
            letter = arg[j]
            if letter == "m":
                if arg[j + 1:]:
                    return arg[j + 1:], i + 1
                following = args[i + 1] if i + 1 < len(args) else None
                return None if following is None else (following, i + 2)
            if letter == "c":
                return None
            if letter in _VALUED:
                i += 0 if arg[j + 1:] else 1  # -Wignore, or -W ignore
                break
        i += 1
    return None
