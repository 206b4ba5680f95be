"""``policy run``: decide, then run what is allowed on an executor, exiting with its exit code.

DENY exits 4 without running. ASK asks on a terminal (a "no" exits 4); without a terminal it is
not run and exits 3, unless ``--yes`` approves it. ALLOW runs it and exits with the command's
exit code, 124 on timeout. A missing sandbox, a full spawn cap or a broken executor exit 1 with
the reason on stderr: nothing falls back to the host.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from clawgate.cli.common import command_line, emit_json, load_engine, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.decision import Decision, Outcome
from clawgate.errors import ClawgateError, PolicyError
from clawgate.executors import ExecRequest, ExecResult, Limits, executor_from_settings


@click.command(context_settings={"ignore_unknown_options": False})
@click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
              help="A manifest layered over the embedded default (repeatable, in order).")
@click.option("--executor", "kind", type=click.Choice(["host", "bwrap", "docker"]),
              default="host", show_default=True, help="Where an allowed command runs.")
@click.option("--timeout", "timeout_s", type=float, default=None,
              help="Seconds before the command is killed (default 30, at most 300).")
@click.option("--workspace", type=click.Path(file_okay=False, exists=True), default=None,
              help="The directory the command may write (default: the current one).")
@click.option("--cwd", type=click.Path(file_okay=False), default=None,
              help="Where the command runs, inside the workspace.")
@click.option("--network", is_flag=True, help="Let a bwrap or docker sandbox use the network.")
@click.option("--image", default=None, help="The Docker image (default clawgate-sandbox:busybox).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the decision "
              "and the result.")
@click.option("--yes", is_flag=True, help="Approve a command the policy would ask about.")
@click.argument("command", nargs=-1, required=True)
def run(
        policies: tuple[str, ...], kind: str, timeout_s: float | None, workspace: str | None,
        cwd: str | None, network: bool, image: str | None, as_json: bool, yes: bool,
        command: tuple[str, ...]) -> int:
    """Decide on COMMAND and run it if allowed. One argument is a shell line; several are
    quoted and joined into one."""
    line = command_line(command)
    try:
        engine = load_engine(policies)
    except PolicyError as exc:
        say(str(exc))
        return ExitCode.USAGE
    root = Path(workspace or os.getcwd()).resolve()
    decision = engine.check(line, cwd=os.fspath(root / cwd) if cwd else os.fspath(root))
    refusal = _refusal(decision, yes)
    if refusal is not None:
        _report(decision, None, as_json)
        return refusal
    settings = {"kind": kind, "network": network,
                "docker": {"image": image} if image else {}}
    request = ExecRequest(line, cwd=cwd, timeout_s=timeout_s)
    try:
        with executor_from_settings(settings, workspace=root) as executor:
            result = executor.run(request)
    except ClawgateError as exc:
        _report(decision, None, as_json, error=str(exc))
        return ExitCode.INTERNAL
    _report(decision, result, as_json)
    return result.exit_code


def _refusal(decision: Decision, yes: bool) -> ExitCode | None:
    """The exit code when the command must not run, None when it may."""
    if decision.outcome is Outcome.DENY:
        say(f"policy run: denied: {_why(decision)}")
        return ExitCode.DENY
    if decision.outcome is not Outcome.ASK or yes:
        return None
    if not _on_terminal():
        say(f"policy run: needs approval ({_why(decision)}); not run without a terminal; "
            "--yes approves it")
        return ExitCode.ASK
    if click.confirm(f"{decision.command}\n  {_why(decision)}\nRun it?", default=False,
                     err=True):
        return None
    say("policy run: not approved")
    return ExitCode.DENY


def _on_terminal() -> bool:
    """Whether a person can be asked: both the question and the answer go through a tty."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def _why(decision: Decision) -> str:
    return "; ".join(f"{r.rule_id}: {r.message}" for r in decision.reasons) or "no reason given"


def _report(decision: Decision, result: ExecResult | None, as_json: bool,
            error: str | None = None) -> None:
    if as_json:
        value: dict[str, object] = {"decision": decision.as_dict(),
                                    "result": None if result is None else result.as_dict()}
        if error is not None:
            value["error"] = error
        emit_json(value)
        return
    if error is not None:
        say(f"policy run: {error}")
    if result is None:
        return
    sys.stdout.write(result.stdout)
    sys.stdout.flush()
    sys.stderr.write(result.stderr)
    if result.truncated:
        say(f"policy run: output cut at {Limits().output_cap} bytes per stream")
    if result.timed_out:
        say("policy run: timed out; the command was killed")
