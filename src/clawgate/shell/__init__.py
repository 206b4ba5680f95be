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
    """Every simple command in ``line``. Plain lines skip the parser (same result, faster).

    Backslash-newline pairs outside single quotes are removed first, as bash does before it
    splits words (tree-sitter-bash would otherwise split ``r\\<newline>m`` into two words).
    """
    from clawgate.shell.fastpath import is_plain, parse_plain

    if "\\\n" in line:
        line = join_continuations(line)

    if is_plain(line):
        return parse_plain(line)
    from clawgate.shell.treesitter import parse_tree

    return parse_tree(line)


def join_continuations(line: str) -> str:
    """``line`` without the backslash-newline pairs bash removes (those outside '...')."""
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(line):
        ch = line[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "\\" and line.startswith("\n", i + 1):
            i += 2
            continue
        elif ch == "\\":
            out.append(line[i : i + 2])
            i += 2
            continue
        elif ch == '"':
            quote = "" if quote == '"' else '"'
        elif ch == "'" and not quote:
            quote = "'"
        out.append(ch)
        i += 1
    return "".join(out)


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
