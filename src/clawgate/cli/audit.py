"""``policy audit verify FILE`` (exit 0 intact, 4 broken), ``policy audit anchor FILE`` and
``policy audit tail [-n N] FILE``."""

from __future__ import annotations

import sys
from collections import deque

import click

from clawgate.audit import Anchor, anchor_path, head_of, read_anchor
from clawgate.audit import verify as verify_log
from clawgate.cli.common import emit_json, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import ClawgateError


@click.group()
def audit() -> None:
    """Check and read hash-chained audit logs."""


@audit.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--start", type=click.IntRange(min=1), default=1,
              help="Check the chain from this line on (after an inspected torn line).")
@click.option("--anchor", "anchor_text", metavar="N:HEAD|FILE",
              help="Check against an anchor kept apart (`policy audit anchor` printed it); by "
                   "default the anchor the writers keep under the state directory, if any.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
def verify(file: str, start: int, anchor_text: str | None, as_json: bool) -> int:
    """Exit 0 if FILE is intact, 4 if broken; the verdict (the first bad line, when broken)
    is printed on stdout, or as one JSON object with --json."""
    try:
        anchor = _anchor(file, anchor_text)
        result = verify_log(file, start=start, anchor=anchor)
    except OSError as exc:
        say(f"policy audit verify: {file}: {exc.strerror or exc}")
        return ExitCode.USAGE
    except (ValueError, ClawgateError) as exc:
        say(f"policy audit verify: {exc}")
        return ExitCode.USAGE
    if as_json:
        emit_json({"ok": result.ok, "lines": result.lines,
                   "first_bad_line": result.first_bad_line, "why": result.why,
                   "anchor": anchor.as_dict() if anchor else None})
    verdict = (f"{file}: intact ({result.why}{', anchor holds' if anchor else ''})"
               if result.ok else f"{file}:{result.first_bad_line}: {result.why}")
    if as_json:
        if not result.ok:
            say(verdict)  # the object is on stdout; the person reads the bad line here
    else:
        sys.stdout.write(verdict + "\n")
    return ExitCode.OK if result.ok else ExitCode.DENY


def _anchor(file: str, text: str | None) -> Anchor | None:
    if text is None:
        return read_anchor(anchor_path(file))
    if ":" in text and not text.lstrip().startswith("{"):
        return Anchor.parse(text)
    with open(text, encoding="utf-8") as handle:
        return Anchor.parse(handle.read())


@audit.command()
@click.argument("file", type=click.Path(dir_okay=False))
def anchor(file: str) -> int:
    """Print FILE's anchor (line count and last chain value) as JSON, to keep somewhere else;
    exit 4 if the log is broken (an anchor of a broken log anchors nothing)."""
    try:
        result = verify_log(file)
    except OSError as exc:
        say(f"policy audit anchor: {file}: {exc.strerror or exc}")
        return ExitCode.USAGE
    except ClawgateError as exc:
        say(f"policy audit anchor: {exc}")
        return ExitCode.USAGE
    if not result.ok:
        say(f"{file}:{result.first_bad_line}: {result.why}")
        return ExitCode.DENY
    emit_json(Anchor(result.lines, head_of(file)).as_dict())
    return ExitCode.OK


@audit.command()
@click.option("-n", "count", type=click.IntRange(min=0), default=10, show_default=True,
              help="How many lines.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the JSON lines as they are, on a terminal too.")
@click.argument("file", type=click.Path(dir_okay=False))
def tail(count: int, as_json: bool, file: str) -> int:
    """Print the last N records of FILE: a table on a terminal, the JSON lines as they are
    when piped or with --json."""
    try:
        with open(file, "rb") as handle:
            last = deque(handle, maxlen=count)
    except OSError as exc:
        say(f"policy audit tail: {file}: {exc.strerror or exc}")
        return ExitCode.USAGE
    if sys.stdout.isatty() and not as_json:
        from clawgate.cli.audit_table import show_records

        show_records(last)
        return ExitCode.OK
    out = sys.stdout.buffer
    for line in last:
        out.write(line if line.endswith(b"\n") else line + b"\n")
    out.flush()
    return ExitCode.OK
