"""Helpers for the policy tests: manifests written to tmp files and loaded for real."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from clawgate.policy.loader import load_policy
from clawgate.policy.policy import Policy

WriteFn = Callable[..., Path]


@pytest.fixture
def write(tmp_path: Path) -> WriteFn:
    """write(text, name="p.yaml") -> path of a manifest (text is dedented)."""

    def _write(text: str, name: str = "p.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return _write


@pytest.fixture
def load(write: WriteFn) -> Callable[..., Policy]:
    """load(text, ...) -> the Policy of the embedded default plus these manifests."""

    def _load(*texts: str, embedded_default: bool = True) -> Policy:
        paths = [write(t, f"layer{i}.yaml") for i, t in enumerate(texts)]
        return load_policy(*paths, embedded_default=embedded_default)

    return _load
