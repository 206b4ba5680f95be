"""``policy config``: which manifests are layered, in order, and where each came from.

The embedded default first, then the user file, the project's, ``$CLAWGATE_POLICY`` and the
``--policy`` files (see ``clawgate.policy.discovery``). Every one is loaded, so a bad file exits
2 with ``file:line: what is wrong``, as it would for any other subcommand. A value that a
layer sets but that is not taken because it would widen a locked layer (or because a
``pyproject.toml`` table may only narrow) is named on stderr (``held`` in ``--json``).
"""

from __future__ import annotations

import os

import click

from clawgate.cli.common import emit_json, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.errors import PolicyError

LOCKED = "it would widen a locked layer"
NARROW_ONLY = "a [tool.clawgate] table in pyproject.toml may only narrow the layers before it"


@click.command(name="config")
@click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
              help="A manifest layered after the discovered ones (repeatable, in order).")
@click.option("--cwd", type=click.Path(file_okay=False, exists=True), default=None,
              help="Where the project's manifest is searched from (default: here).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def config(policies: tuple[str, ...], cwd: str | None, as_json: bool) -> int:
    """Print the manifests layered over the embedded default, in order: the user file
    ($XDG_CONFIG_HOME/clawgate/policy.yaml), the project's (.clawgate.yaml or [tool.clawgate]
    in pyproject.toml, upward from --cwd), $CLAWGATE_POLICY, then --policy files."""
    from clawgate.policy.discovery import sources
    from clawgate.policy.loader import load_policy

    try:
        found = sources(policies, cwd or os.getcwd())
        policy = load_policy(*(source.path for source in found))
    except PolicyError as exc:
        say(str(exc))
        return ExitCode.USAGE
    origins = ["embedded", *(source.origin for source in found)]
    layers = [{"origin": origin, "path": layer.path, "label": layer.label,
               "locked": layer.locked} for origin, layer in zip(origins, policy.layers,
                                                                 strict=True)]
    held = [{"path": layer.path, "key": ".".join(map(str, key))}
            for layer, key in policy.merged.held]
    whys = [NARROW_ONLY if layer.narrow_only else LOCKED for layer, _ in policy.merged.held]
    if as_json:
        emit_json({"layers": layers, "held": held})
        return ExitCode.OK
    for layer in layers:
        locked = "  (locked)" if layer["locked"] else ""
        click.echo(f"{layer['origin']}\t{layer['path']}{locked}")
    for item, why in zip(held, whys, strict=True):
        say(f"policy config: {item['path']}: {item['key']}: not taken; {why}")
    return ExitCode.OK
