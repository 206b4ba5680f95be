"""``policy mcp-proxy``: an MCP server's tools behind the policy (see integrations/mcp_proxy)."""

from __future__ import annotations

import shutil

import click

from clawgate.cli.common import say
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import ClawgateError, MissingExtra, PolicyError
from clawgate.extras import require


@click.command("mcp-proxy", context_settings={"ignore_unknown_options": True})
@click.option("--name", required=True,
              help="The server's name in the policy: its tools are NAME__<tool>.")
@click.option("--url", default=None, help="Wrap a streamable-HTTP server at this URL.")
@click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
              help="A manifest layered after the discovered ones "
              "(repeatable, in order; see `policy config`).")
@click.option("--workspace", type=click.Path(file_okay=False), default=None,
              help="Paths in arguments must stay inside it (default: the policy's, else .).")
@click.option("--audit", type=click.Path(dir_okay=False), default=None,
              help="Append every call to this hash-chained audit log.")
@click.option("--approver", type=click.Choice(["deny", "terminal"]), default="deny",
              help="Who answers an ASK: nobody (deny, the default) or a person on /dev/tty.")
@click.option("--server", "servers", multiple=True, metavar="URL",
              help="Send an ASK to the `policy serve` console at URL and wait for the answer "
              "(repeatable: replicas in turn; the token comes from $CLAWGATE_SERVER_TOKEN). "
              "Unreachable: deny.")
@click.option("--agent", default=None, help="The agent the tool policy applies to.")
@click.option("--provider", default=None, help="The model provider (tools.byProvider).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.1), default=300.0,
              help="Seconds a call to the wrapped server may take.")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def mcp_proxy(name: str, url: str | None, policies: tuple[str, ...], workspace: str | None,
              audit: str | None, approver: str, servers: tuple[str, ...], agent: str | None,
              provider: str | None, timeout_s: float, command: tuple[str, ...]) -> int:
    """Proxy MCP on stdio to the server run by COMMAND (after --), or at --url."""
    try:
        require("mcp", "clawgate.integrations.mcp_proxy", "policy mcp-proxy")
    except MissingExtra as exc:
        say(str(exc))
        return ExitCode.USAGE
    import anyio

    from clawgate.integrations.mcp_proxy import ProxyOptions, serve
    if (url is None) == (not command):
        say("policy mcp-proxy: give the server command after --, or --url (one of them)")
        return ExitCode.USAGE
    if command and shutil.which(command[0]) is None:
        say(f"policy mcp-proxy: cannot run the server: no program {command[0]!r} (not found "
            "or not executable)")
        return ExitCode.USAGE
    if servers and approver == "terminal":
        say("policy mcp-proxy: --server and --approver terminal name two approvers: give one")
        return ExitCode.USAGE
    if any(not s.startswith(("http://", "https://")) for s in servers):
        say("policy mcp-proxy: --server takes an http(s) URL")
        return ExitCode.USAGE
    options = ProxyOptions(name, tuple(command), url, policies, workspace, audit, approver,
                           agent, provider, timeout_s=timeout_s, servers=servers)
    try:
        anyio.run(serve, options)
    except PolicyError as exc:
        say(str(exc))
        return ExitCode.USAGE
    except ClawgateError as exc:  # a setting that cannot hold (an audit log in the workspace)
        say(f"policy mcp-proxy: {exc}")
        return ExitCode.USAGE
    return ExitCode.OK
