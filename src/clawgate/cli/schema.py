"""``policy schema``: the JSON Schema of a manifest, for editors to complete and check."""

from __future__ import annotations

import json

import click

from clawgate.cli.exitcodes import ExitCode


@click.command()
def schema() -> int:
    """Print the JSON Schema of a policy manifest."""
    from clawgate.policy.models import Manifest

    document = Manifest.model_json_schema(by_alias=True)
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = "clawgate policy manifest"
    click.echo(json.dumps(document, indent=2, sort_keys=True))
    return ExitCode.OK
