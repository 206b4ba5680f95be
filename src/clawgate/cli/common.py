"""What several subcommands share: loading the policy (discovered files, then ``--policy``
files; see ``clawgate.policy.discovery``), the command line made of words, JSON output, prose
on stderr."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

TYPE_CHECKING = False  # no runtime ``typing`` import (~2 ms of CLI start-up)
if TYPE_CHECKING:
    from clawgate.engine import Engine
    from clawgate.policy.policy import Policy


def policy_paths(policies: Sequence[str], cwd: str | None = None) -> tuple[str, ...]:
    """The manifests a subcommand layers over the embedded default: the user file, the
    project's (upward from ``cwd``), ``$CLAWGATE_POLICY``, then ``policies``. Raises
    PolicyError."""
    from clawgate.policy.discovery import policy_paths as discovered

    return discovered(policies, cwd)


def load_cli_policy(policies: Sequence[str], cwd: str | None = None) -> Policy:
    """The embedded default layered with ``policy_paths``. Raises PolicyError."""
    from clawgate.policy.loader import load_policy

    return load_policy(*policy_paths(policies, cwd))


def load_engine(policies: Sequence[str], cwd: str | None = None) -> Engine:
    """An engine for ``load_cli_policy``. Raises PolicyError."""
    from clawgate.engine import Engine

    return Engine(load_cli_policy(policies, cwd).engine_settings())


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
