"""``policy serve``: the decision service and approval console; ``policy serve token ...``.

    policy serve [--policy F]... [--database URL] [--host H] [--port P]
                 [--tls-cert F --tls-key F] [--insecure]
    policy serve token create --role agent|viewer|approver|admin [--agent NAME]
                              [--workspace DIR]
    policy serve token list | revoke ID

Serving on anything but loopback without TLS needs ``--insecure`` (and says so loudly): bearer
tokens and session cookies would cross the network in clear text.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Any

import click

from clawgate.cli.common import emit_json, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import MissingExtra
from clawgate.extras import require

_DATABASE = click.option("--database", metavar="URL",
                         help="sqlite:///PATH (default: serve.db under the state directory) or "
                              "postgresql+psycopg://USER@HOST/DB")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.group(invoke_without_command=True)
@click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
              help="A manifest layered over the embedded default (repeatable).")
@_DATABASE
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535))
@click.option("--tls-cert", type=click.Path(exists=True, dir_okay=False))
@click.option("--tls-key", type=click.Path(exists=True, dir_okay=False))
@click.option("--insecure", is_flag=True, help="Allow plain HTTP beyond loopback.")
@click.option("--approval-ttl", default=600.0, show_default=True,
              type=click.FloatRange(min=1.0), help="Seconds before an unanswered request "
                                                   "expires (as a deny).")
@click.option("--workspace", type=click.Path(file_okay=False, exists=True),
              help="The workspace checks assume when a request names none.")
@click.option("--agent-rate", default=200, show_default=True, type=click.IntRange(min=1),
              help="Requests a second one agent token may make (over it: 429).")
@click.option("--decision-timeout", default=10.0, show_default=True,
              type=click.FloatRange(min=0.01), help="Seconds one decision may take (past it: "
                                                    "DENY).")
@click.option("--max-pending", default=20, show_default=True, type=click.IntRange(min=1),
              help="Requests of one agent that may wait for a person at once (past it: "
                   "DENY).")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(min=1, max=64),
              help="Service processes (PostgreSQL only: SQLite's chain has one writer).")
@click.pass_context
def serve(ctx: click.Context, policies: tuple[str, ...], database: str | None, host: str,
          port: int, tls_cert: str | None, tls_key: str | None, insecure: bool,
          approval_ttl: float, workspace: str | None, agent_rate: int, decision_timeout: float,
          max_pending: int, workers: int) -> int:
    """Run the decision service and approval console (needs the 'serve' extra)."""
    try:
        for module in ("uvicorn", "clawgate.serve"):
            require("serve", module, "policy serve")
    except MissingExtra as exc:
        say(str(exc))
        ctx.exit(ExitCode.USAGE)
    if ctx.invoked_subcommand is not None:
        return ExitCode.OK
    if bool(tls_cert) != bool(tls_key):
        raise click.UsageError("--tls-cert and --tls-key go together")
    if not tls_cert and not _loopback(host):
        if not insecure:
            raise click.UsageError(f"serving on {host} without TLS would send tokens in clear "
                                   "text: give --tls-cert/--tls-key, or --insecure")
        say(f"WARNING: serving on {host} WITHOUT TLS (--insecure): tokens and session cookies "
            "cross the network in clear text")
    if workers > 1 and not (database or "").startswith("postgresql"):
        raise click.UsageError("--workers needs --database postgresql://... (SQLite's audit "
                               "chain has one writer process)")
    import uvicorn

    from clawgate.serve import ServeSettings, build_app, default_database, settings_env

    settings = ServeSettings(policies=tuple(os.path.abspath(p) for p in policies),
                             database=database or default_database(),
                             approval_ttl_s=approval_ttl, tls=bool(tls_cert),
                             workspace=os.path.abspath(workspace) if workspace else None,
                             agent_rate_per_s=agent_rate,
                             decision_timeout_s=decision_timeout,
                             max_pending_per_agent=max_pending)
    app = build_app(settings)  # migrations run once, and a bad policy stops here
    say(f"policy serve: http{'s' if tls_cert else ''}://{host}:{port}/ "
        f"(database {settings.database.split('://', 1)[0]}"
        f"{f', {workers} workers' if workers > 1 else ''})")
    common: dict[str, Any] = {"host": host, "port": port, "ssl_certfile": tls_cert,
                              "ssl_keyfile": tls_key, "log_level": "warning",
                              "access_log": False}
    if workers == 1:
        uvicorn.run(app, **common)
        return ExitCode.OK
    app.state.limiter.close()  # the workers build their own
    app.state.service.close()
    os.environ.update(settings_env(settings))
    uvicorn.run("clawgate.serve:from_environment", factory=True, workers=workers, **common)
    return ExitCode.OK


def _engine(database: str | None) -> object:
    from clawgate.serve import default_database
    from clawgate.serve.db import connect, migrate

    engine = connect(database or default_database())
    migrate(engine)
    return engine


@serve.group()
def token() -> None:
    """Create, list and revoke bearer tokens (stored hashed)."""


@token.command("create")
@click.option("--role", required=True,
              type=click.Choice(["agent", "viewer", "approver", "admin"]))
@click.option("--agent", "agent", default="", help="The agent (or person) the token is for.")
@click.option("--workspace", type=click.Path(file_okay=False, exists=True),
              help="An agent token's workspace (default: the service's --workspace).")
@_DATABASE
def create(role: str, agent: str, workspace: str | None, database: str | None) -> int:
    """Print a new token on stdout (the only time it is shown)."""
    from clawgate.serve import tokens

    if role == "agent" and not agent:
        raise click.UsageError("an agent token needs --agent NAME")
    if workspace is not None and role != "agent":
        raise click.UsageError("--workspace is for agent tokens")
    click.echo(tokens.create(_engine(database), role, agent,  # type: ignore[arg-type]
                             workspace))
    return ExitCode.OK


@token.command("list")
@_DATABASE
@click.option("--json", "as_json", is_flag=True)
def list_(database: str | None, as_json: bool) -> int:
    """Every token: id, role, agent, whether revoked (never the token itself)."""
    from clawgate.serve import tokens

    rows = tokens.listing(_engine(database))  # type: ignore[arg-type]
    if as_json:
        emit_json({"tokens": rows})
    for row in rows if not as_json else ():
        state = "revoked" if row["revoked"] else "live"
        click.echo(f"{row['id']}  {row['role']:<8}  {row['agent'] or '-'}  {state}")
    return ExitCode.OK


@token.command()
@click.argument("token_id", metavar="ID")
@_DATABASE
def revoke(token_id: str, database: str | None) -> int:
    """Revoke a token by its id; exit 2 if there is none."""
    from clawgate.serve import tokens

    if not tokens.revoke(_engine(database), token_id):  # type: ignore[arg-type]
        say(f"policy serve token revoke: no token {token_id}")
        return ExitCode.USAGE
    say(f"revoked {token_id}")
    return ExitCode.OK



