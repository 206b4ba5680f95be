"""``policy lint FILE...``: exit 0 when clean, 3 with warnings, 2 with errors."""

from __future__ import annotations

import click

from clawgate.cli.common import emit_json, stdout_is_terminal
from clawgate.cli.exitcodes import ExitCode


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per finding.")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
def lint(as_json: bool, files: tuple[str, ...]) -> int:
    """Check manifests: load errors, unknown tools, dead or broad rules, risky regexes."""
    from clawgate.policy.lint import lint_file

    findings = [f for path in files for f in lint_file(path)]
    if findings and not as_json and stdout_is_terminal():
        from clawgate.cli.pretty import show_table, styled

        show_table(("where", "level", "finding"), (
            (f.path if f.line is None else f"{f.path}:{f.line}",
             styled(f.level, "bold red" if f.level == "error" else "yellow"), f.message)
            for f in findings))
    else:
        for finding in findings:
            if as_json:
                emit_json(finding.as_dict())
            else:
                click.echo(str(finding))
    if any(f.level == "error" for f in findings):
        return ExitCode.USAGE
    if findings:
        return ExitCode.ASK
    return ExitCode.OK
