"""The value each manifest key has when no layer sets it: what a locked layer accepted without
saying so (``layers.py`` lets a later unlocked layer only narrow it). Imported only when a
locked layer is layered."""

from __future__ import annotations

from functools import cache
from typing import Any

# Where the manifest's default is None, the value the engine applies in its place.
ENGINE_DEFAULTS: dict[tuple[str | int, ...], Any] = {
    ("autonomy",): "supervised",
    ("require_approval_for_medium_risk",): False,
    ("block_high_risk_commands",): False,
    ("permissions", "write"): True,  # no permissions block: every tier but unsafe
    ("permissions", "shell"): True,
    ("permissions", "unsafe"): False,
    ("tools", "profile"): "full",
}


@cache
def _schema_defaults() -> dict[str, Any]:
    from clawgate.policy.models import Manifest

    return Manifest.model_validate({"version": 1}).model_dump(mode="json", by_alias=True)


def default_of(path: tuple[str | int, ...]) -> tuple[Any] | None:
    """``(value,)`` for the default at ``path``, None when there is none (a new custom tool,
    an agent's entry, a key whose default is "unset")."""
    if path in ENGINE_DEFAULTS:
        return (ENGINE_DEFAULTS[path],)
    value: Any = _schema_defaults()
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return None if value is None else (value,)
