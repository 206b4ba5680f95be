"""What several subcommands share: loading the engine from ``--policy`` files, the command line
made of words, JSON output, prose on stderr."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from clawgate.engine import Engine


def load_engine(policies: Sequence[str]) -> Engine:
    """The embedded default policy layered with ``policies``. Raises PolicyError."""
    from clawgate.engine import Engine

    return Engine.from_files(*policies)


def command_line(words: Sequence[str]) -> str:
    """The shell line ``words`` stand for: one word is the line itself; several are quoted with
    shell quoting and joined (``-- ls -la "my file"`` is ``ls -la 'my file'``)."""
    if len(words) == 1:
        return words[0]
    import shlex

    return shlex.join(words)


def stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (colour and tables through rich) rather than a pipe."""
    try:
        return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


def emit_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")


def say(message: str) -> None:
    """Prose for people: stderr, one line."""
    sys.stderr.write(message.rstrip("\n") + "\n")
