"""Regular expressions compiled on first use.

The check path holds about a hundred module-level patterns; compiling them all at import cost
~13 ms of every ``policy check`` start, though a plain line such as ``git status`` reaches few
of them. ``lazy_pattern`` returns a stand-in that compiles on its first method call and then
keeps the compiled pattern's bound methods as its own attributes, so later calls cost what
calls on a compiled pattern cost (no extra Python frame).

Limits: the stand-in is not an ``re.Pattern`` (``isinstance`` says no, and ``re.sub(p, ...)``
does not take it); call its methods, as every use in clawgate does.
"""

from __future__ import annotations

import re

# What a compiled pattern offers; the stand-in takes each of them over at first use.
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split",
            "scanner", "groups", "groupindex")
_MADE: list[_LazyPattern] = []  # every stand-in, for compile_all()


class _LazyPattern:
    """A pattern compiled when first used; ``pattern`` and ``flags`` are known before that."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        # as re.compile reports them for a str pattern: UNICODE unless ASCII was asked for
        self.flags = flags if flags & re.ASCII else flags | re.UNICODE

    def __getattr__(self, name: str) -> object:
        # Only reached for attributes not set yet: compile, then adopt the methods.
        compiled = re.compile(self.pattern, self.flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        self.flags = compiled.flags
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self.pattern!r}, {self.flags!r})"


def lazy_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern usable like ``re.compile(pattern, flags)``, compiled on first use."""
    made = _LazyPattern(pattern, flags)
    _MADE.append(made)
    return made  # type: ignore[return-value]


def compile_all() -> int:
    """Compile every stand-in made so far (a long-lived process's warm-up: its first calls then
    pay no compilation); how many there are."""
    for made in _MADE:
        made.search  # noqa: B018 -- the first attribute read compiles it
    return len(_MADE)
