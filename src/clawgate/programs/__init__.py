"""What programs do with their words: the program-semantics catalog and its queries.

``catalog.yaml`` says, per program, which options and operands read, write, run a command or
code, or reach the network, and the program's risk tier (by subcommand where it has them).
The check path reads the compiled ``catalog.json`` (no YAML, no pydantic), once, lazily.

    entry("sort")                    -> the compiled entry, or None
    effects(cmd)                     -> every Effect of a SimpleCommand, words as received
    writes(cmd) / runs(cmd)          -> the words it writes / the command texts it runs
    tier(cmd)                        -> (tier name, tier rule or None) from the catalog
"""

from __future__ import annotations

import json
import os

from clawgate.programs.scan import Effect, scan
from clawgate.shell.model import SimpleCommand, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Effect", "effects", "entry", "names", "runs", "tier", "writers", "writes"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_cache: dict[str, dict[str, Any]] = {}  # "index": program -> compiled entry, read once
WRITE_KINDS = frozenset({"write", "output", "read-then-write", "write-last",
                         "write-after-first"})
RUN_KINDS = frozenset({"run", "run-argv", "code", "config", "runs"})


def _load() -> dict[str, Any]:
    index = _cache.get("index")
    if index is None:
        with open(os.path.join(_HERE, "catalog.json"), encoding="utf-8") as handle:
            data = json.load(handle)
        index = data["programs"]
        for alias, name in data["aliases"].items():
            index[alias] = index[name]
        _cache["index"] = index
    return index


def entry(program: str | None) -> dict[str, Any] | None:
    """The compiled catalog entry of ``program`` (a basename), or None when unknown."""
    return None if program is None else _load().get(program)


def names() -> frozenset[str]:
    """Every program (and alias) the catalog knows."""
    return frozenset(_load())


def effects(cmd: SimpleCommand) -> list[Effect]:
    """What ``cmd``'s options and operands do, read from the catalog (empty when unknown)."""
    spec = entry(cmd.program)
    return [] if spec is None or len(cmd.words) < 2 else scan(cmd.words, spec)[0]


def writes(cmd: SimpleCommand) -> list[Word]:
    """The words ``cmd`` writes to as files, by its options, operands and scripts."""
    return [e.word for e in effects(cmd) if e.kind == "write" and e.word is not None]


def runs(cmd: SimpleCommand) -> list[Effect]:
    """Effects by which ``cmd`` runs a command or code it is given, or one configured
    elsewhere."""
    return [e for e in effects(cmd) if e.kind in RUN_KINDS]


def tier(cmd: SimpleCommand, program: str | None = None) -> tuple[str, str | None] | None:
    """(tier, tier rule) of ``cmd`` by the catalog, subcommands followed; None when the
    program (``program``, else the command's) is unknown."""
    spec = entry(program or cmd.program)
    if spec is None:
        return None
    found = spec["tier"] if len(cmd.words) < 2 else scan(cmd.words, spec)[1]
    return found, spec.get("rule")


def writers() -> frozenset[str]:
    """Programs that may write files by their options, operands or scripts."""
    return frozenset(name for name, spec in _load().items() if _may_write(spec))


def _may_write(spec: dict[str, Any]) -> bool:
    if spec.get("operands") in WRITE_KINDS or spec.get("language"):
        return True
    if "write" in spec.get("options", {}).values():
        return True
    return any(isinstance(sub, dict) and _may_write(sub)
               for sub in spec.get("subcommands", {}).values())
