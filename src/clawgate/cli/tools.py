"""``policy tools``: which tools an agent may see, and how the pipeline got there."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from clawgate.cli.common import emit_json, say, stdout_is_terminal
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import PolicyError

if TYPE_CHECKING:
    from clawgate.policy.policy import Policy
    from clawgate.policy.visibility import ToolContext


@click.command()
@click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
              help="A manifest layered after the discovered ones "
              "(repeatable, in order; see `policy config`).")
@click.option("--agent", default=None, help="The agent asking.")
@click.option("--provider", default=None, help="The model provider (openai, anthropic ...).")
@click.option("--group", default=None, help="The chat group (tools.byGroup).")
@click.option("--subagent-depth", type=click.IntRange(min=0), default=0,
              help="0 for the main agent, 1 for its subagents ...")
@click.option("--tool", "extra", multiple=True,
              help="A tool that exists besides the built-in and custom ones (an MCP tool "
                   "server__tool ...); repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print {tools, steps} as JSON.")
@click.option("--explain", is_flag=True, help="Print the set after every pipeline step.")
@click.option("--format", "fmt", type=click.Choice(["openai", "anthropic", "mcp"]), default=None,
              help="Print the visible tools' function-calling specs (a JSON list) in this form.")
def tools(*, policies: tuple[str, ...], agent: str | None, provider: str | None,
          group: str | None, subagent_depth: int, extra: tuple[str, ...], as_json: bool,
          explain: bool, fmt: str | None) -> int:
    """Print the tools visible to an agent, one per line."""
    from clawgate.cli.common import load_cli_policy
    from clawgate.policy.catalog import BUILTIN_TOOLS
    from clawgate.policy.visibility import ToolContext

    try:
        policy = load_cli_policy(policies)
    except PolicyError as exc:
        say(str(exc))
        return ExitCode.USAGE
    ctx = ToolContext(agent, provider, subagent_depth, group)
    if fmt is not None:
        return _specs(policy, fmt, ctx, extra)
    names = {*BUILTIN_TOOLS, *policy.merged.children("tools", "custom"), *extra}
    result = policy.visible_tools(names, ctx)
    if as_json:
        emit_json(result.as_dict())
        return ExitCode.OK
    rows = _steps(result.steps) if explain else []
    if stdout_is_terminal():
        from clawgate.cli.pretty import show_table

        if rows:
            show_table(("#", "step", "tools", "change"), rows)
        show_table(("visible tool",), ((name,) for name in result.tools))
        return ExitCode.OK
    for index, step, count, change in rows:
        click.echo(f"{index:>2}. {step:<22} {count:>3} tools  {change}")
    for name in result.tools:
        click.echo(name)
    return ExitCode.OK


def _steps(steps: Sequence[tuple[str, frozenset[str]]]) -> list[tuple[str, str, str, str]]:
    """``--explain``'s rows: step number, step, how many tools, what it added and removed."""
    rows = []
    before: frozenset[str] = frozenset()
    for index, (step, current) in enumerate(steps, start=1):
        change = [f"+{n}" for n in sorted(current - before)] if index == 1 else [
            *(f"-{n}" for n in sorted(before - current)),
            *(f"+{n}" for n in sorted(current - before))]
        rows.append((str(index), step, str(len(current)), " ".join(change) or "(unchanged)"))
        before = current
    return rows


def _specs(policy: Policy, fmt: str, ctx: ToolContext, extra: tuple[str, ...]) -> int:
    """``--format``: the specs of exactly the tools ``ctx`` may call (``hooks.deny_tools``
    removed too); a visible tool without a schema here (an MCP tool) is named on stderr."""
    from clawgate.integrations.specs import visible_specs

    specs, unknown = visible_specs(policy, fmt, ctx, extra)
    emit_json(specs)
    for name in unknown:
        say(f"policy tools: {name}: no schema here (its server's tools/list has it; "
            "policy mcp-proxy shows it filtered)")
    return ExitCode.OK
