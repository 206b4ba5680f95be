"""``policy check``: the decision for a command line, as an exit code, text or JSON.

``run_check`` takes the arguments however they were parsed (``check_options``); this module
imports neither click nor rich unless stdout is a terminal."""

from __future__ import annotations

import json
import sys

from clawgate.cli.check_options import CheckArgs
from clawgate.cli.common import command_line, emit_json, load_engine, say, stdout_is_terminal
from clawgate.cli.exitcodes import ExitCode, for_outcome
from clawgate.decision import Decision, Outcome, Reason, Risk
from clawgate.engine import Engine
from clawgate.errors import PolicyError

BAD_INPUT_ID = "CG-CLI-001"
STDIN = "-"


def run_check(args: CheckArgs) -> int:
    """Decide; print as asked; exit 0 ALLOW, 3 ASK, 4 DENY (2 for a bad policy file)."""
    try:
        engine = load_engine(args.policies, args.cwd)
    except PolicyError as exc:
        say(str(exc))
        return ExitCode.USAGE
    if args.jsonl:
        return _jsonl(engine, args)
    decision = engine.check(_command(args.words), cwd=args.cwd)
    if args.as_json:
        emit_json(as_object(decision, args.explain))
    elif stdout_is_terminal():
        from clawgate.cli.pretty import show_decision

        show_decision(decision, args.explain)
    elif args.explain:
        _explain(decision)
    else:
        _plain(decision)
    return for_outcome(decision.outcome)


def _command(words: tuple[str, ...]) -> str:
    """One word is the line itself (``-``: the whole of stdin, one trailing newline dropped);
    several are quoted and joined into one line, as ``policy run`` does."""
    if words == (STDIN,):
        text = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
        return text[:-1] if text.endswith("\n") else text
    return command_line(words)


def as_object(decision: Decision, explain: bool) -> dict[str, object]:
    """``--json``'s object; with ``--explain``, every opinion as ``"trace"``."""
    value = decision.as_dict()
    if explain:
        value["trace"] = [{"command": e.command, "rule_id": e.rule_id,
                           "outcome": e.outcome.label, "message": e.message}
                          for e in decision.trace]
    return value


def _jsonl(engine: Engine, args: CheckArgs) -> int:
    """One object out for every line in, blank lines included (a DENY naming CG-CLI-001)."""
    for number, raw in enumerate(sys.stdin.buffer, start=1):
        text = raw.decode("utf-8", "surrogateescape").rstrip("\n")
        command = _command_of(text)
        if command is None:
            what = "blank" if not text.strip() else (
                "not a JSON string or an object with a string 'command'")
            decision = Decision(text, Outcome.DENY, Risk.HIGH, (Reason(
                BAD_INPUT_ID, f"input line {number} is {what}"),))
        else:
            decision = engine.check(command, cwd=args.cwd)
        emit_json(as_object(decision, args.explain))
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
