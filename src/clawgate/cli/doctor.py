"""``policy doctor [--project DIR] [--server URL] [--json]``: check an installation end to
end (``clawgate.doctor``); exit 0 when every check passed, 3 with warnings, 4 when one failed."""

from __future__ import annotations

from pathlib import Path

import click

from clawgate.cli.common import emit_json, stdout_is_terminal
from clawgate.cli.exitcodes import ExitCode


@click.command()
@click.option("--project", type=click.Path(exists=True, file_okay=False), default=".",
              help="The project whose hooks and policy to check.")
@click.option("--server", default=None, metavar="URL",
              help="A `policy serve` to check (its /healthz).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def doctor(project: str, server: str | None, as_json: bool) -> int:
    """Check the policy, the agent hooks, the sandbox, the decider and the service, and say
    what to fix."""
    from clawgate.doctor import FAIL, WARN, examine

    found = examine(Path(project), server)
    if as_json:
        emit_json({"findings": [f.as_dict() for f in found]})
    elif stdout_is_terminal():
        from clawgate.cli.pretty import show_table, styled

        styles = {"ok": "bold green", "info": "cyan", "warning": "bold yellow",
                  "failed": "bold red"}
        show_table(("check", "status", "detail", "fix"),
                   ((f.check, styled(f.status, styles[f.status]), f.detail, f.fix or "")
                    for f in found))
    else:
        for f in found:
            click.echo(f"{f.check}: {f.status}: {f.detail}" + (f" (fix: {f.fix})" if f.fix
                                                               else ""))
    statuses = {f.status for f in found}
    if FAIL in statuses:
        return ExitCode.DENY
    return ExitCode.ASK if WARN in statuses else ExitCode.OK
