"""Validators: one small module per family, all registered in one registry."""

from __future__ import annotations

from clawgate.validators.base import (
    REGISTRY,
    AnyValidator,
    Context,
    LineValidator,
    RawValidator,
    Registry,
    Validator,
    register,
)


def load_all() -> Registry:
    """Import every family module (registering its validators) and return the registry."""
    from clawgate.validators import families  # noqa: F401

    return REGISTRY


__all__ = [
    "REGISTRY",
    "AnyValidator",
    "Context",
    "LineValidator",
    "RawValidator",
    "Registry",
    "Validator",
    "load_all",
    "register",
]
