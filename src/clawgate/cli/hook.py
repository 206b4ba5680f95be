"""``policy hook claude-code|gemini``: agent hooks (JSON in on stdin, a decision out on stdout,
exit 0 even on failure, which is a deny); ``policy hook install``: their settings entries."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from clawgate.cli.common import emit_json, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import ClawgateError

AGENTS = ("claude-code", "gemini")


def _options(function: Any) -> Any:
    decorators = [
        click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
                     help="A manifest layered after the discovered ones "
                     "(repeatable, in order; see `policy config`)."),
        click.option("--agent", default=None,
                     help="The agent name the tool policy applies (default: the hook's name)."),
        click.option("--provider", default=None, help="The model provider (tools.byProvider)."),
        click.option("--workspace", type=click.Path(file_okay=False), default=None,
                     help="The workspace root (default: the policy's, else the hook's cwd)."),
        click.option("--audit", type=click.Path(dir_okay=False), default=None,
                     help="Append every decision to this hash-chained audit log."),
        click.option("--approver", type=click.Choice(["none", "terminal"]), default="none",
                     help="Who answers an ASK: nobody (default), or a person on /dev/tty."),
        click.option("--server", "servers", multiple=True, metavar="URL",
                     help="Send an ASK to the `policy serve` console at URL and wait for the "
                     "answer (repeatable: replicas in turn; the token comes from "
                     "$CLAWGATE_SERVER_TOKEN). Unreachable: deny."),
        click.option("--no-daemon", is_flag=True,
                     help="Decide in this process, not through the resident decider (also: "
                     "CLAWGATE_NO_DAEMON=1)."),
    ]
    for decorate in reversed(decorators):
        function = decorate(function)
    return function


@click.group()
def hook() -> None:
    """Hooks for Claude Code (PreToolUse) and Gemini CLI (BeforeTool)."""


@hook.command("claude-code")
@_options
def claude_code(**options: Any) -> int:
    """Claude Code PreToolUse hook: hook JSON on stdin, the decision on stdout."""
    from clawgate.integrations.claude_code import ClaudeCode

    return _run(ClaudeCode(), "claude-code", "anthropic", options)


@hook.command("gemini")
@_options
def gemini(**options: Any) -> int:
    """Gemini CLI BeforeTool hook: ASK is a deny unless --approver terminal."""
    from clawgate.integrations.gemini import Gemini

    return _run(Gemini(), "gemini", "google", options)


def _run(adapter: Any, agent: str, provider: str, options: dict[str, Any]) -> int:
    from clawgate.integrations.hooks import MAX_INPUT_BYTES, HookOptions, answer

    approver: Any = None
    if options["servers"]:
        if options["approver"] == "terminal":
            raise click.UsageError("--server and --approver terminal name two approvers: "
                                   "give one")
        approver = server_approver(options["servers"], options["workspace"])
    elif options["approver"] == "terminal":
        from clawgate.approval import TerminalApprover

        approver = TerminalApprover()
    opts = HookOptions(tuple(options["policies"]), options["agent"] or agent,
                       options["provider"] or provider, options["audit"], approver,
                       options["workspace"])
    raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    emit_json(answer(adapter, raw, opts))
    return ExitCode.OK


def server_approver(servers: tuple[str, ...], workspace: str | None) -> Any:
    """A ``ServerApprover`` for ``--server`` (its token from the environment, never argv)."""
    from clawgate.approval.server import TOKEN_ENV, ServerApprover

    for url in servers:
        if not url.startswith(("http://", "https://")):
            raise click.BadParameter(f"{url!r} is not an http(s) URL", param_hint="--server")
    return ServerApprover(servers, os.environ.get(TOKEN_ENV, ""), workspace=workspace)


@hook.command("install")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option("--write", is_flag=True,
              help="Merge the entry into the project's settings file instead of printing it.")
@click.option("--project", type=click.Path(file_okay=False), default=".",
              help="The project directory (its .claude/ or .gemini/ settings).")
@click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
              help="A manifest the hook should layer (made absolute in the command).")
@click.option("--program", default="policy", help="How the agent should invoke clawgate.")
def install(agent: str, write: bool, project: str, policies: tuple[str, ...],
            program: str) -> int:
    """Print the hook entry for AGENT's settings, or merge it in with --write."""
    from clawgate.integrations import install as setup

    command = setup.hook_command(agent, policies, program)
    if not write:
        sys.stdout.write(json.dumps(setup.entry(setup.TARGETS[agent], command), indent=2) + "\n")
        return ExitCode.OK
    try:
        path, changed = setup.install(Path(project), agent, command)
    except ClawgateError as exc:
        say(f"policy hook install: {exc}")
        return ExitCode.USAGE
    say(f"{'added the clawgate hook to' if changed else 'already present in'} {path}")
    return ExitCode.OK


__all__ = ["hook"]
