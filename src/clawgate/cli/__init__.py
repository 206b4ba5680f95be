"""The ``policy`` command. Data on stdout, prose on stderr; exit codes in ``ExitCode``.

Subcommands live in their own modules and are imported only when called, so that
``policy check`` starts fast.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module

from clawgate.cli.exitcodes import ExitCode

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    import click

# name -> "module:attribute" of a click command; imported on demand.
SUBCOMMANDS: dict[str, str] = {
    "approvals": "clawgate.cli.approvals:approvals",
    "audit": "clawgate.cli.audit:audit",
    "check": "clawgate.cli.check:run_check",
    "fuzz": "clawgate.cli.fuzz:fuzz",
    "hook": "clawgate.cli.hook:hook",
    "import": "clawgate.cli.importer:import_rules",
    "lint": "clawgate.cli.lint:lint",
    "mcp-proxy": "clawgate.cli.mcp_proxy:mcp_proxy",
    "run": "clawgate.cli.run:run",
    "schema": "clawgate.cli.schema:schema",
    "serve": "clawgate.cli.serve:serve",
    "tools": "clawgate.cli.tools:tools",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code (never raise)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["check"]:  # the hot path: no click import
        return _guarded(args[1:])
    import click

    group = _group()
    try:
        result = group.main(args, prog_name="policy", standalone_mode=False)
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except click.ClickException as exc:
        exc.show()
        return ExitCode.USAGE
    except click.exceptions.Abort:
        return ExitCode.INTERNAL
    except Exception as exc:  # the contract: exit 1 with one line on stderr, never a traceback
        sys.stderr.write(f"policy: internal error: {type(exc).__name__}: {exc}\n")
        return ExitCode.INTERNAL
    return int(result) if isinstance(result, int) else ExitCode.OK


def _guarded(args: list[str]) -> int:
    from clawgate.cli.check import run_check

    try:
        return run_check(args)
    except Exception as exc:  # exit 1 with one line on stderr, never a traceback
        sys.stderr.write(f"policy: internal error: {type(exc).__name__}: {exc}\n")
        return ExitCode.INTERNAL


def _group() -> click.Group:
    import click

    class Lazy(click.Group):
        def list_commands(self, ctx: click.Context) -> list[str]:
            return sorted(SUBCOMMANDS)

        def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
            target = SUBCOMMANDS.get(name)
            if target is None:
                return None
            if name == "check":
                return _check_command()
            module, attr = target.split(":")
            command: click.Command = getattr(import_module(module), attr)
            return command

    return Lazy(name="policy", help="clawgate: decide ALLOW, ASK or DENY for agent tool calls.")


def _check_command() -> click.Command:
    """``check`` as the group lists it; its arguments are parsed by ``run_check``."""
    import click

    @click.command(name="check", add_help_option=False,
                   context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
                   help="Decide ALLOW (0), ASK (3) or DENY (4) for a command line.")
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def check(args: tuple[str, ...]) -> int:
        return _guarded(list(args))

    return check


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
