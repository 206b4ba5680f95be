"""``policy hook claude-code|gemini``: agent hooks (JSON in on stdin, a decision out on stdout,
exit 0 even on failure, which is a deny, and a deny past the hook's ``--deadline``);
``policy hook install``: their settings entries (absolute program, failing closed, a timeout
above the deadline)."""

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
from clawgate.integrations.hooks import HOOK_DEADLINE_S

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
        click.option("--deadline", "deadline_s", type=click.FloatRange(min=1.0),
                     default=HOOK_DEADLINE_S, show_default=True,
                     help="Seconds the hook may take in all, a person's answer included; "
                     "past them it answers deny."),
        click.option("--sandbox", is_flag=True,
                     help="Answer an allowed shell call with its command rewritten to run "
                     "through `policy run --sandboxed` (the policy's sandbox, else bubblewrap; "
                     "never the host) under the same --policy files."),
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


# What click passes the hooks for an argv with no option (a test holds the two equal).
DEFAULTS: dict[str, Any] = {
    "policies": (), "agent": None, "provider": None, "workspace": None, "audit": None,
    "approver": "none", "servers": (), "deadline_s": HOOK_DEADLINE_S, "sandbox": False,
    "no_daemon": False}


def plain(agent: str) -> int:
    """``policy hook AGENT`` with no option, as ``policy hook install`` writes it unless told
    otherwise: the hook run with ``DEFAULTS``, without click's parse (a tenth of a warm call's
    time in the resident decider). Any other argv goes through click."""
    command = {"claude-code": claude_code, "gemini": gemini}[agent]
    assert command.callback is not None
    code: int = command.callback(**DEFAULTS)
    return code


def _run(adapter: Any, agent: str, provider: str, options: dict[str, Any]) -> int:
    """The hook's answer on stdout; any failure of the hook itself is exit 2 with the reason
    on stderr, which Claude Code and Gemini CLI read as "block" (any other code: "go on")."""
    try:
        return _answer(adapter, agent, provider, options)
    except click.ClickException:
        raise  # a usage error: exit 2 as well, with click's message
    except Exception as exc:
        say(f"clawgate: the hook failed ({type(exc).__name__}: {exc}); the call is blocked")
        return ExitCode.USAGE


def _answer(adapter: Any, agent: str, provider: str, options: dict[str, Any]) -> int:
    from clawgate.integrations.deadline import answer_in_time
    from clawgate.integrations.hooks import MAX_INPUT_BYTES, HookOptions, approval_wait

    approver: Any = None
    wait_s = approval_wait(options["deadline_s"])
    if options["servers"]:
        if options["approver"] == "terminal":
            raise click.UsageError("--server and --approver terminal name two approvers: "
                                   "give one")
        approver = server_approver(options["servers"], options["workspace"], wait_s)
    elif options["approver"] == "terminal":
        from clawgate.approval import TerminalApprover

        approver = TerminalApprover()
        approver.timeout_s = min(approver.timeout_s, wait_s)  # within the hook's deadline
    opts = HookOptions(tuple(options["policies"]), options["agent"] or agent,
                       options["provider"] or provider, options["audit"], approver,
                       options["workspace"], sandbox=options["sandbox"])
    answer_in_time(adapter, lambda: sys.stdin.buffer.read(MAX_INPUT_BYTES + 1), opts,
                   options["deadline_s"], emit_json)
    return ExitCode.OK


def server_approver(servers: tuple[str, ...], workspace: str | None,
                    wait_s: float = 600.0) -> Any:
    """A ``ServerApprover`` for ``--server`` (its token from the environment, never argv)."""
    from clawgate.approval.server import TOKEN_ENV, ServerApprover

    for url in servers:
        if not url.startswith(("http://", "https://")):
            raise click.BadParameter(f"{url!r} is not an http(s) URL", param_hint="--server")
    return ServerApprover(servers, os.environ.get(TOKEN_ENV, ""), timeout_s=wait_s,
                          workspace=workspace)


@hook.command("install")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option("--write", is_flag=True,
              help="Merge the entry into the project's settings file instead of printing it.")
@click.option("--project", type=click.Path(file_okay=False), default=".",
              help="The project directory (its .claude/ or .gemini/ settings).")
@click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
              help="A manifest the hook should layer (made absolute in the command).")
@click.option("--program", default=None,
              help="The clawgate program the agent runs (a path, or a name on PATH now; "
              "written as an absolute path). Default: this Python, running clawgate's "
              "__main__.py with -P.")
@click.option("--deadline", "deadline_s", type=click.FloatRange(min=1.0),
              default=HOOK_DEADLINE_S, show_default=True,
              help="The hook's --deadline; the entry's timeout is set above it.")
@click.option("--sandbox", is_flag=True,
              help="The hook rewrites every shell call it allows to run in the sandbox "
              "(`policy run --sandboxed`); where no sandbox works, those calls fail.")
def install(agent: str, write: bool, project: str, policies: tuple[str, ...],
            program: str | None, deadline_s: float, sandbox: bool) -> int:
    """Print the hook entry for AGENT's settings, or merge it in with --write. The command
    names clawgate by absolute path and blocks the call (exit 2) if the hook itself fails."""
    from clawgate.integrations import install as setup

    try:
        command = setup.hook_command(agent, policies, program, deadline_s, sandbox=sandbox)
        if not write:
            fragment = setup.entry(setup.TARGETS[agent], command, deadline_s)
            sys.stdout.write(json.dumps(fragment, indent=2) + "\n")
            return ExitCode.OK
        path, changed = setup.install(Path(project), agent, command, deadline_s)
    except ClawgateError as exc:
        say(f"policy hook install: {exc}")
        return ExitCode.USAGE
    say(f"{'added the clawgate hook to' if changed else 'already present in'} {path}")
    return ExitCode.OK


__all__ = ["hook"]
