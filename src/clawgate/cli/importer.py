"""``policy import FILE``: Claude Code, Codex or Gemini CLI command rules as a manifest."""

from __future__ import annotations

import click

from clawgate.cli.common import say
from clawgate.cli.exitcodes import ExitCode


@click.command(name="import")
@click.option("--from", "kind", type=click.Choice(["auto", "claude", "codex", "gemini"]),
              default="auto", show_default=True, help="The format of FILE.")
@click.argument("file", type=click.Path(dir_okay=False, exists=True))
def import_rules(kind: str, file: str) -> int:
    """Print FILE's command permissions as a clawgate manifest (YAML) on stdout."""
    import yaml

    from clawgate.policy.importer import IMPORTERS, detect

    with open(file, encoding="utf-8") as handle:
        text = handle.read(1 << 20)
    chosen = detect(file, text) if kind == "auto" else kind
    try:
        imported = IMPORTERS[chosen](text)
    except (SyntaxError, ValueError) as exc:
        say(f"{file}: cannot read as {chosen}: {exc}")
        return ExitCode.USAGE
    click.echo(f"# imported from {file} ({chosen}) by `policy import`")
    for note in imported.skipped:
        click.echo(f"# skipped: {note}")
        say(f"skipped: {note}")
    click.echo(yaml.safe_dump(imported.manifest(), sort_keys=False, allow_unicode=True,
                              default_flow_style=None, width=100), nl=False)
    return ExitCode.OK
