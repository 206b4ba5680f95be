"""Shell parsing: tree-sitter-bash (and a plain-word fast path) into one command model."""

from __future__ import annotations

from clawgate.shell.model import (
    Assignment,
    ParsedLine,
    Redirect,
    SimpleCommand,
    Word,
)

MAX_LINE_BYTES = 1 << 20  # longer lines are refused before any parser sees them


def parse(line: str) -> ParsedLine:
    """Every simple command in ``line``. Plain lines skip the parser (same result, faster)."""
    from clawgate.shell.fastpath import is_plain, parse_plain

    if is_plain(line):
        return parse_plain(line)
    from clawgate.shell.treesitter import parse_tree

    return parse_tree(line)


def parse_one(line: str) -> SimpleCommand:
    """The first simple command of ``line`` (for tests and small tools)."""
    commands = parse(line).commands
    if not commands:
        raise ValueError(f"no command in {line!r}")
    return commands[0]


__all__ = [
    "MAX_LINE_BYTES",
    "Assignment",
    "ParsedLine",
    "Redirect",
    "SimpleCommand",
    "Word",
    "parse",
    "parse_one",
]
