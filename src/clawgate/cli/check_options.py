"""``policy check``'s options as data: the click command is built from this table
(``check_command``), and ``fast_parse`` reads the common well-formed argv with the same table
without importing click, which would double the start-up of the command an agent runs before
every other. Anything ``fast_parse`` is not sure of — help, an unknown or short option, a
missing value, a value that looks like an option, a ``--cwd`` that is not a directory, a
combination the command refuses — it leaves to click, so every message and usage error comes
from click. A test holds the two parsers to the same reading of every argv both accept."""

from __future__ import annotations

import os
from collections.abc import Sequence

from clawgate.records import record

FLAG, FILES, DIRECTORY = "flag", "files", "directory"

# option, destination, kind, metavar, help
OPTIONS: tuple[tuple[str, str, str, str, str], ...] = (
    ("--policy", "policies", FILES, "FILE",
     "A manifest layered over the embedded default (repeatable, in order)."),
    ("--cwd", "cwd", DIRECTORY, "DIR",
     "The directory the command would run in (must exist)."),
    ("--json", "as_json", FLAG, "", "Print one JSON object."),
    ("--jsonl", "jsonl", FLAG, "",
     "Read one JSON value per line on stdin (a string, or an object with \"command\"); "
     "write one object per line, in order, for every line."),
    ("--explain", "explain", FLAG, "",
     "Print each simple command with every opinion and the winner; with --json or --jsonl, "
     "add them to each object as \"trace\"."),
    ("--no-daemon", "no_daemon", FLAG, "",
     "Decide in this process, not through the resident decider (also: "
     "CLAWGATE_NO_DAEMON=1)."),
)


@record(frozen=True, slots=True)
class CheckArgs:
    """What ``policy check`` was asked, however it was parsed."""

    policies: tuple[str, ...] = ()
    cwd: str | None = None
    as_json: bool = False
    jsonl: bool = False
    explain: bool = False
    no_daemon: bool = False
    words: tuple[str, ...] = ()


def problem(args: CheckArgs) -> str | None:
    """Why ``args`` is a usage error, or None."""
    if args.jsonl and args.words:
        return "give COMMAND or --jsonl, not both"
    if not args.jsonl and not args.words:
        return "missing COMMAND (or - to read it from stdin, or --jsonl)"
    return None


def fast_parse(argv: Sequence[str]) -> CheckArgs | None:
    """``argv`` (after ``check``) read as click would read it, or None when click must."""
    values: dict[str, object] = {}
    words: list[str] = []
    index = 0
    while index < len(argv):
        token = argv[index]
        index += 1
        if token == "--":
            words.extend(argv[index:])
            break
        if token == "-" or not token.startswith("-"):
            words.append(token)
            continue
        index = _option(argv, index, token, values)
        if index < 0:
            return None
    args = CheckArgs(words=tuple(words), **values)  # type: ignore[arg-type]
    return None if problem(args) else args


_KINDS = {option: (dest, kind) for option, dest, kind, _, _ in OPTIONS}


def _option(argv: Sequence[str], index: int, token: str, values: dict[str, object]) -> int:
    """Read the option ``token`` (its value from ``argv[index]`` when not ``--opt=value``)
    into ``values``; the index after it, or -1 when click must read it."""
    name, equals, value = token.partition("=")
    if name not in _KINDS:
        return -1
    dest, kind = _KINDS[name]
    if kind == FLAG:
        values[dest] = True
        return -1 if equals else index
    if not equals:
        if index == len(argv) or argv[index].startswith("-"):
            return -1
        value, index = argv[index], index + 1
    if not _fits(kind, value):
        return -1
    if kind == FILES:
        values[dest] = (*values.get(dest, ()), value)  # type: ignore[misc]
    else:
        values[dest] = value
    return index


def _fits(kind: str, value: str) -> bool:
    if kind == DIRECTORY:
        return os.path.isdir(value)
    return bool(value) and not os.path.isdir(value)
