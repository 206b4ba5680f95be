"""What several subcommands share: loading the engine from ``--policy`` files, JSON output."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from clawgate.engine import Engine


def load_engine(policies: Sequence[str]) -> Engine:
    """The embedded default policy layered with ``policies``. Raises PolicyError."""
    from clawgate.engine import Engine

    return Engine.from_files(*policies)


def emit_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")


def say(message: str) -> None:
    """Prose for people: stderr, one line."""
    sys.stderr.write(message.rstrip("\n") + "\n")
