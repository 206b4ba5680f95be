"""Compile ``catalog.yaml`` into ``catalog.json``, the form read on the check path.

Run after editing the catalog: ``python -m clawgate.programs.build``. The YAML is validated
with the pydantic model; the JSON keeps what the check path needs (no summaries, no examples),
with spellings split, aliases resolved, and the size and CRC-32 of the YAML it came from.
"""

from __future__ import annotations

import json
import os
import zlib
from typing import Any

import yaml

from clawgate.programs.model import Catalog, Program, Subcommand

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "catalog.yaml")
COMPILED = os.path.join(HERE, "catalog.json")


def load_model(path: str = SOURCE) -> Catalog:
    """The catalog as written, validated."""
    with open(path, encoding="utf-8") as handle:
        return Catalog.model_validate(yaml.safe_load(handle))


def fingerprint(raw: bytes) -> dict[str, int]:
    return {"size": len(raw), "crc32": zlib.crc32(raw)}


def _options(options: dict[str, str]) -> dict[str, str]:
    return {spelling: kind for key, kind in options.items() for spelling in key.split()}


def _sub(entry: str | Subcommand) -> dict[str, Any]:
    if isinstance(entry, str):
        return {"tier": entry}
    out: dict[str, Any] = {"tier": entry.tier}
    if entry.options:
        out["options"] = _options(dict(entry.options))
    if entry.operands:
        out["operands"] = entry.operands
    if entry.subcommands:
        out["subcommands"] = {k: _sub(v) for k, v in entry.subcommands.items()}
    return out


def _program(entry: Program) -> dict[str, Any]:
    out: dict[str, Any] = {"tier": entry.tier}
    for key, value in (("rule", entry.tier_rule), ("operands", entry.operands),
                       ("language", entry.language)):
        if value:
            out[key] = value
    if entry.loopback:
        out["loopback"] = True
    if entry.prints:
        out["prints"] = True
    if entry.long_prefixes:
        out["prefixes"] = True
    if entry.options_before_subcommand:
        out["globals_first"] = True
    if entry.style != "getopt":
        out["style"] = entry.style
    if entry.options:
        out["options"] = _options(dict(entry.options))
    if entry.subcommands:
        out["subcommands"] = {k: _sub(v) for k, v in entry.subcommands.items()}
    if entry.tasks:
        out["tasks"] = dict(entry.tasks)
    if entry.queries is not None:
        out["queries"] = sorted(entry.queries)
    return out


def compile_catalog(raw: bytes, catalog: Catalog) -> dict[str, Any]:
    return {
        "source": fingerprint(raw),
        "programs": {name: _program(entry) for name, entry in sorted(catalog.programs.items())},
        "aliases": {alias: name for name, entry in sorted(catalog.programs.items())
                    for alias in entry.aliases},
    }


def compiled_text(path: str = SOURCE) -> str:
    with open(path, "rb") as handle:
        raw = handle.read()
    return json.dumps(compile_catalog(raw, load_model(path)), indent=0, sort_keys=True) + "\n"


def main() -> None:
    with open(COMPILED, "w", encoding="utf-8") as handle:
        handle.write(compiled_text())


if __name__ == "__main__":
    main()
