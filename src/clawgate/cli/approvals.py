"""``policy approvals list|revoke ID [--workspace DIR]``: the remembered allow-always answers."""

from __future__ import annotations

import click

from clawgate.approval import ApprovalStore
from clawgate.cli.common import emit_json, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import ClawgateError

_WORKSPACE = click.option("--workspace", type=click.Path(file_okay=False), default=".",
                          show_default=True, help="The workspace the approvals belong to.")


@click.group()
def approvals() -> None:
    """List or revoke allow-always approvals of a workspace."""


@approvals.command("list")
@_WORKSPACE
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def list_(workspace: str, as_json: bool) -> int:
    """Print each approval: id, tool, when, and what was approved (secrets scrubbed)."""
    store = ApprovalStore(workspace)
    try:
        entries = store.list()
        forged = store.forged()
    except ClawgateError as exc:
        say(str(exc))
        return ExitCode.INTERNAL
    if forged:
        say(f"warning: {forged} entr{'y' if forged == 1 else 'ies'} in {store.path} fail their "
            "mac (written without the key): ignored")
    if as_json:
        emit_json({"workspace": store.workspace, "store": str(store.path), "forged": forged,
                   "approvals": [{"id": e.id, "tool": e.tool, "summary": e.summary,
                                  "created": e.created} for e in entries]})
        return ExitCode.OK
    for e in entries:
        click.echo(f"{e.id}  {e.created}  {e.tool}  {e.summary}")
    say(f"{len(entries)} approval(s) for {store.workspace}")
    return ExitCode.OK


@approvals.command()
@click.argument("entry_id", metavar="ID")
@_WORKSPACE
def revoke(entry_id: str, workspace: str) -> int:
    """Forget the approval ID; exit 2 if there is none."""
    store = ApprovalStore(workspace)
    try:
        found = store.revoke(entry_id)
    except ClawgateError as exc:
        say(str(exc))
        return ExitCode.INTERNAL
    if not found:
        say(f"no approval {entry_id} for {store.workspace}")
        return ExitCode.USAGE
    say(f"revoked {entry_id}")
    return ExitCode.OK
