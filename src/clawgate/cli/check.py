"""``policy check``: the decision for a command line, as an exit code, text or JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from clawgate.cli.common import emit_json, load_engine, say
from clawgate.cli.exitcodes import ExitCode, for_outcome
from clawgate.decision import Decision, Outcome, Reason, Risk
from clawgate.engine import Engine
from clawgate.errors import PolicyError

BAD_INPUT_ID = "CG-CLI-001"


def run_check(argv: Sequence[str]) -> int:
    """``policy check``, parsed with the standard library's argparse: this command runs on
    every command an agent issues, and click alone would triple its start-up time."""
    parser = argparse.ArgumentParser(
        prog="policy check", formatter_class=_Formatter,
        description="Decide ALLOW (exit 0), ASK (3) or DENY (4) for COMMAND under the embedded "
        "default policy layered with --policy files.")
    parser.add_argument("--policy", dest="policies", action="append", default=[],
                        metavar="FILE", help="a manifest layered after the discovered ones "
                        "(repeatable, in order)")
    parser.add_argument("--cwd", metavar="DIR", help="the directory the command would run in")
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--json", dest="as_json", action="store_true",
                       help="print one JSON object")
    shape.add_argument("--explain", action="store_true",
                       help="print every simple command and every opinion")
    parser.add_argument("--jsonl", action="store_true",
                        help="read one JSON value per line on stdin, write one object per line")
    parser.add_argument("command", nargs="?", help="the command line to check")
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as done:  # argparse exits 2 on bad usage and 0 after --help
        return int(done.code or 0)
    return _check(args.policies, args.cwd, args.as_json, args.jsonl, args.explain,
                  args.command)


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout with the terminal width read as ``shutil.get_terminal_size``
    reads it: argparse's own default imports ``shutil`` (with zlib, bz2, lzma), ~2 ms of
    every ``policy check`` start, to size help nobody asked for."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)


def _columns() -> int:
    """``$COLUMNS`` when a positive number, else the terminal's width, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        stdout = sys.__stdout__
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def _check(policies: Sequence[str], cwd: str | None, as_json: bool, jsonl: bool,
           explain: bool, command: str | None) -> int:
    if jsonl == (command is not None):
        say("policy check: give either COMMAND or --jsonl")
        return ExitCode.USAGE
    try:
        engine = load_engine(policies, cwd)
    except PolicyError as exc:
        say(str(exc))
        return ExitCode.USAGE
    if jsonl:
        return _jsonl(engine, cwd)
    decision = engine.check(command or "", cwd=cwd)
    if as_json:
        emit_json(decision.as_dict())
    elif explain:
        _explain(decision)
    else:
        _plain(decision)
    return for_outcome(decision.outcome)


def _jsonl(engine: Engine, cwd: str | None) -> int:
    for number, raw in enumerate(sys.stdin.buffer, start=1):
        text = raw.decode("utf-8", "surrogateescape").rstrip("\n")
        if not text.strip():
            continue
        command = _command_of(text)
        if command is None:
            decision = Decision(text, Outcome.DENY, Risk.HIGH, (Reason(
                BAD_INPUT_ID, f"input line {number} is not a JSON string or an object with a "
                "string 'command'"),))
        else:
            decision = engine.check(command, cwd=cwd)
        emit_json(decision.as_dict())
        sys.stdout.flush()
    return ExitCode.OK


def _command_of(text: str) -> str | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict):
        value = value.get("command")
    return value if isinstance(value, str) else None


def _plain(decision: Decision) -> None:
    _out(decision.outcome.label)
    for reason in decision.reasons:
        hint = f" (hint: {reason.hint})" if reason.hint else ""
        about = f" [{reason.command}]" if reason.command and reason.command != decision.command \
            else ""
        _out(f"  {reason.rule_id}: {reason.message}{hint}{about}")


def _explain(decision: Decision) -> None:
    _out(f"command: {decision.command}")
    current = None
    for entry in decision.trace:
        if entry.rule_id == "final":
            continue
        if entry.command != current:
            current = entry.command
            _out(f"  simple command: {current}")
        _out(f"    {entry.rule_id:<28} {entry.outcome.label:<5} {entry.message}")
    _out(f"outcome: {decision.outcome.label} (risk {decision.risk.label}, strictest wins)")
    for reason in decision.reasons:
        _out(f"  decided by {reason.rule_id}: {reason.message}")


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")
