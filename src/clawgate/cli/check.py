"""``policy check``: the decision for a command line, as an exit code, text or JSON."""

from __future__ import annotations

import json
import sys

import click

from clawgate.cli.common import emit_json, load_engine, say
from clawgate.cli.exitcodes import ExitCode, for_outcome
from clawgate.decision import Decision, Outcome, Reason, Risk
from clawgate.engine import Engine
from clawgate.errors import PolicyError

BAD_INPUT_ID = "CG-CLI-001"


@click.command(context_settings={"ignore_unknown_options": False})
@click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
              help="A manifest layered over the embedded default (repeatable, in order).")
@click.option("--cwd", type=click.Path(file_okay=False), default=None,
              help="The directory the command would run in.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--jsonl", is_flag=True, help="Read one JSON value per line on stdin.")
@click.option("--explain", is_flag=True, help="Print every simple command and every opinion.")
@click.argument("command", required=False)
def check(policies: tuple[str, ...], cwd: str | None, as_json: bool, jsonl: bool,
          explain: bool, command: str | None) -> int:
    """Decide ALLOW (exit 0), ASK (3) or DENY (4) for COMMAND."""
    if jsonl == (command is not None):
        say("policy check: give either COMMAND or --jsonl")
        return ExitCode.USAGE
    try:
        engine = load_engine(policies)
    except PolicyError as exc:
        say(str(exc))
        return ExitCode.USAGE
    if jsonl:
        return _jsonl(engine, cwd)
    assert command is not None
    decision = engine.check(command, cwd=cwd)
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
    click.echo(decision.outcome.label)
    for reason in decision.reasons:
        hint = f" (hint: {reason.hint})" if reason.hint else ""
        about = f" [{reason.command}]" if reason.command and reason.command != decision.command \
            else ""
        click.echo(f"  {reason.rule_id}: {reason.message}{hint}{about}")


def _explain(decision: Decision) -> None:
    click.echo(f"command: {decision.command}")
    current = None
    for entry in decision.trace:
        if entry.rule_id == "final":
            continue
        if entry.command != current:
            current = entry.command
            click.echo(f"  simple command: {current}")
        click.echo(f"    {entry.rule_id:<28} {entry.outcome.label:<5} {entry.message}")
    click.echo(f"outcome: {decision.outcome.label} (risk {decision.risk.label}, strictest wins)")
    for reason in decision.reasons:
        click.echo(f"  decided by {reason.rule_id}: {reason.message}")
