"""``policy import``: other agents' permission rules as a clawgate manifest, faithfully or not
at all (see ``common.py`` for what "faithfully" means, and one module per format)."""

from __future__ import annotations

from collections.abc import Callable

from clawgate.policy.importer.claude import from_claude
from clawgate.policy.importer.codex import from_codex
from clawgate.policy.importer.common import Dropped, Imported, ImportFailure
from clawgate.policy.importer.gemini import from_gemini

IMPORTERS: dict[str, Callable[[str], Imported]] = {
    "claude": from_claude, "codex": from_codex, "gemini": from_gemini}


def detect(name: str, text: str) -> str:
    """The format of a file: ``claude``, ``codex`` or ``gemini``."""
    if name.endswith(".toml") or "[[rule]]" in text:
        return "gemini"
    if "prefix_rule" in text or name.endswith(".rules"):
        return "codex"
    return "claude"


__all__ = ["IMPORTERS", "Dropped", "ImportFailure", "Imported", "detect", "from_claude",
           "from_codex", "from_gemini"]
