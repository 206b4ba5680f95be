"""``policy audit verify FILE`` (exit 0 intact, 4 broken) and ``policy audit tail [-n N] FILE``."""

from __future__ import annotations

import sys
from collections import deque

import click

from clawgate.audit import verify as verify_log
from clawgate.cli.common import emit_json, say
from clawgate.cli.exitcodes import ExitCode


@click.group()
def audit() -> None:
    """Check and read hash-chained audit logs."""


@audit.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--start", type=click.IntRange(min=1), default=1,
              help="Check the chain from this line on (after an inspected torn line).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
def verify(file: str, start: int, as_json: bool) -> int:
    """Exit 0 if FILE is intact, 4 if broken (the first bad line is named on stderr)."""
    try:
        result = verify_log(file, start=start)
    except OSError as exc:
        say(f"policy audit verify: {file}: {exc.strerror or exc}")
        return ExitCode.USAGE
    if as_json:
        emit_json({"ok": result.ok, "lines": result.lines,
                   "first_bad_line": result.first_bad_line, "why": result.why})
    if result.ok:
        say(f"{file}: intact ({result.why})")
        return ExitCode.OK
    say(f"{file}:{result.first_bad_line}: {result.why}")
    return ExitCode.DENY


@audit.command()
@click.option("-n", "count", type=click.IntRange(min=0), default=10, show_default=True,
              help="How many lines.")
@click.argument("file", type=click.Path(dir_okay=False))
def tail(count: int, file: str) -> int:
    """Print the last N lines of FILE as they are (JSON lines) on stdout."""
    try:
        with open(file, "rb") as handle:
            last = deque(handle, maxlen=count)
    except OSError as exc:
        say(f"policy audit tail: {file}: {exc.strerror or exc}")
        return ExitCode.USAGE
    out = sys.stdout.buffer
    for line in last:
        out.write(line if line.endswith(b"\n") else line + b"\n")
    out.flush()
    return ExitCode.OK
