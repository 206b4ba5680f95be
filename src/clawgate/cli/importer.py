"""``policy import FILE``: Claude Code, Codex or Gemini CLI rules as a manifest (YAML)."""

from __future__ import annotations

import click

from clawgate.cli.common import say
from clawgate.cli.exitcodes import ExitCode

MAX_BYTES = 1 << 20
TYPE_CHECKING = False
if TYPE_CHECKING:
    from clawgate.policy.importer import Imported


@click.command(name="import")
@click.option("--from", "kind", type=click.Choice(["auto", "claude", "codex", "gemini"]),
              default="auto", show_default=True, help="The format of FILE.")
@click.option("--allow-lossy", is_flag=True,
              help="Write rules clawgate cannot express as comments instead of stopping.")
@click.argument("file", type=click.Path(dir_okay=False, exists=True))
def import_rules(kind: str, allow_lossy: bool, file: str) -> int:
    """Print FILE's permission rules as a clawgate manifest (YAML) on stdout."""
    from clawgate.policy.importer import IMPORTERS, ImportFailure, detect

    text = _read(file)
    if text is None:
        return ExitCode.USAGE
    chosen = detect(file, text) if kind == "auto" else kind
    try:
        imported = IMPORTERS[chosen](text)
    except ImportFailure as exc:
        say(f"{file}:{exc.line}: {exc} (read as {chosen})")
        return ExitCode.USAGE
    if imported.dropped and not allow_lossy:
        for item in imported.dropped:
            say(f"{file}:{item.line}: cannot import {item.rule}: {item.why}")
        say(f"policy import: {len(imported.dropped)} rules clawgate cannot express; nothing "
            "written (--allow-lossy writes them as comments)")
        return ExitCode.USAGE
    click.echo(_render(file, chosen, imported), nl=False)
    if imported.dropped:
        say(f"policy import: dropped {len(imported.dropped)} rules that clawgate cannot "
            "express (see comments)")
    return ExitCode.OK


def _read(file: str) -> str | None:
    with open(file, "rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        say(f"{file}: larger than {MAX_BYTES} bytes")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        say(f"{file}:{line}: not UTF-8 text")
        return None


def _render(file: str, chosen: str, imported: Imported) -> str:
    """The manifest, checked by the real loader, under one comment per dropped rule or note."""
    import yaml

    from clawgate.policy.loader import layer_from_data
    from clawgate.policy.yamlload import parse_manifest

    body = yaml.safe_dump(imported.manifest(), sort_keys=False, allow_unicode=True,
                          default_flow_style=None, width=100)
    data, lines = parse_manifest(body, "imported")
    layer_from_data(data, lines, "imported", "imported")  # a PolicyError here is a bug: exit 1
    head = [f"# imported from {file} ({chosen}) by `policy import`"]
    head += [f"# dropped: line {d.line}: {_one_line(d.rule)}: {d.why}" for d in imported.dropped]
    head += [f"# note: {_one_line(n)}" for n in imported.notes]
    return "\n".join(head) + "\n" + body


def _one_line(text: str) -> str:
    return " ".join(text.split())
