"""``policy init claude-code|gemini|mcp-proxy|serve``: write a working, fail-closed set-up for
the project, say what was written and how to undo it (``--undo``)."""

from __future__ import annotations

from pathlib import Path

import click

from clawgate.cli.common import say
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import ClawgateError

KINDS = ("claude-code", "gemini", "mcp-proxy", "serve")


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("kind", type=click.Choice(KINDS))
@click.option("--project", type=click.Path(file_okay=False, exists=True), default=".",
              help="The project directory.")
@click.option("--undo", is_flag=True, help="Remove what init writes.")
@click.option("--name", default=None, help="mcp-proxy: the server's name.")
@click.option("--client", type=click.Choice(["claude-code", "gemini"]), default="claude-code",
              show_default=True, help="mcp-proxy: whose MCP configuration to write.")
@click.option("--approver", default=None,
              help="serve: who answers at the console (default: this user's name).")
@click.option("--agent", default=None, help="serve: an agent to make a token for.")
@click.argument("server", nargs=-1, type=click.UNPROCESSED)
def init(kind: str, project: str, undo: bool, name: str | None, client: str,
         approver: str | None, agent: str | None, server: tuple[str, ...]) -> int:
    """Set the project up for KIND: the agent's hook (by absolute path, failing closed, its
    timeout above clawgate's own) and a starter .clawgate.yaml; for mcp-proxy, the server
    given after -- run behind the proxy in the client's MCP configuration; for serve, a team
    policy and the tokens to start with."""
    from clawgate.integrations import init as setup

    root = Path(project).resolve()
    if kind == "serve":
        return _serve(root, undo, approver, agent)
    try:
        if undo:
            steps = setup.undo(root, kind, client, name)
        elif kind == "mcp-proxy":
            if name is None:
                raise click.UsageError("mcp-proxy needs --name NAME -- SERVER COMMAND...")
            steps = setup.init_mcp_proxy(root, client, name, list(server))
        else:
            if server:
                raise click.UsageError(f"unexpected words for {kind}: {' '.join(server)}")
            steps = setup.init_hook(root, kind)
    except ClawgateError as exc:
        say(f"policy init: {exc}")
        return ExitCode.USAGE
    for step in steps:
        click.echo(str(step))
    if not undo:
        again = f" --name {name}" if kind == "mcp-proxy" else ""
        click.echo(f"check it: policy doctor --project {root}")
        click.echo(f"undo it: policy init {kind}{again} --undo --project {root}")
    return ExitCode.OK


def _serve(root: Path, undo: bool, approver: str | None,
           agent: str | None) -> int:
    import getpass

    from clawgate.integrations.init import TEAM_FILE, init_serve

    if undo:
        raise click.UsageError("tokens are revoked one by one: policy serve token list, then "
                               f"policy serve token revoke ID; remove {TEAM_FILE} by hand")
    steps, shown = init_serve(root, approver or getpass.getuser(), agent)
    for step in steps:
        click.echo(str(step))
    for line in shown:
        click.echo(line)
    click.echo(f"start it: policy serve --policy {root / TEAM_FILE} --workspace {root}")
    click.echo("undo it: policy serve token revoke ID (policy serve token list), and remove "
               f"{root / TEAM_FILE}")
    return ExitCode.OK
