"""The ``policy`` click group: subcommands imported only when named, ``-h``/``--help``
everywhere, ``--version``, and click's errors turned into the CLI's contract (a usage error is
exit 2 and one line on stderr)."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module

import click

from clawgate.cli.common import say
from clawgate.cli.exitcodes import ExitCode

# click >= 8.2 raises this for a group named without a subcommand (8.1 prints the help).
_NO_ARGS: type[click.UsageError] | tuple[()] = getattr(
    click.exceptions, "NoArgsIsHelpError", ())
EPILOG = ("Exit codes: 0 allow or success, 1 internal error, 2 usage error or bad policy file, "
          "3 ask (lint: warnings), 4 deny (audit verify: broken, fuzz: an invariant failed). "
          "`policy COMMAND -h` shows a command's options.")
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class LazyGroup(click.Group):
    """A group whose subcommands are ``module:attribute`` names, imported on first use."""

    def __init__(self, table: dict[str, str], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.table = table

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.table)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.table.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        command: click.Command = getattr(import_module(module), attribute)
        _help_everywhere(command)
        return command


def _help_everywhere(command: click.Command) -> None:
    """``-h`` on ``command`` and every command under it, however its context is made (click
    caches a command's help option from the first context it sees)."""
    command.context_settings.setdefault("help_option_names", CONTEXT["help_option_names"])
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _help_everywhere(sub)


def _version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    import clawgate

    click.echo(f"policy {clawgate.__version__}")
    ctx.exit(ExitCode.OK)


def group(table: dict[str, str]) -> click.Group:
    version = click.Option(["--version"], is_flag=True, expose_value=False, is_eager=True,
                           callback=_version, help="Print the version and exit.")
    return LazyGroup(table, name="policy", context_settings=CONTEXT, params=[version],
                     help="clawgate: decide ALLOW, ASK or DENY for agent tool calls.",
                     epilog=EPILOG)


def run(table: dict[str, str], args: Sequence[str]) -> int:
    """Run the group on ``args``; return the exit code (usage errors: 2, one line)."""
    try:
        result = group(table).main(list(args), prog_name="policy", standalone_mode=False)
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except _NO_ARGS as exc:
        path = exc.ctx.command_path if exc.ctx else "policy"
        say(f"{path}: error: missing command ({path} -h lists them)")
        return ExitCode.USAGE
    except click.UsageError as exc:
        path = exc.ctx.command_path if exc.ctx else "policy"
        say(f"{path}: error: {_one_line(exc.format_message())}")
        return ExitCode.USAGE
    except click.ClickException as exc:
        say(f"policy: error: {_one_line(exc.format_message())}")
        return ExitCode.USAGE
    except click.exceptions.Abort:
        say("policy: aborted")
        return ExitCode.INTERNAL
    return int(result) if isinstance(result, int) else ExitCode.OK


def _one_line(message: str) -> str:
    return " ".join(part.strip() for part in message.splitlines() if part.strip())
