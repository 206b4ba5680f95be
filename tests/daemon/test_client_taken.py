"""Which calls the decider takes: a table. What it does not take is decided in process."""

from __future__ import annotations

import pytest

from clawgate.daemon.client import taken


@pytest.mark.parametrize(("argv", "expected"), [
    (["check", "ls"], True),
    (["check", "--json", "--explain", "rm -rf /"], True),
    (["check", "-"], True),
    (["explain", "ls"], True),
    (["hook", "claude-code"], True),
    (["hook", "gemini", "--server", "http://127.0.0.1:8765"], True),
    (["check", "--no-daemon", "ls"], False),
    (["check", "--jsonl"], False),  # a stream of lines: one process for all of them
    (["check", "--help"], False),
    (["hook", "claude-code", "--approver", "terminal"], False),  # a person on this terminal
    (["hook", "gemini", "--approver=terminal"], False),
    (["hook", "install", "claude-code"], False),
    (["run", "--", "ls"], False),  # runs a command: never in the decider
    (["mcp-proxy", "--name", "x", "--", "srv"], False),
    (["serve"], False),
    ([], False),
    (["check", "--", "--no-daemon"], True),  # after --, a word of the command
])
def test_taken(argv: list[str], expected: bool) -> None:
    assert taken(argv) is expected


def test_the_client_reads_a_hook_s_input_as_the_hook_does() -> None:
    from clawgate.daemon.client import HOOK_INPUT_BYTES
    from clawgate.integrations.hooks import MAX_INPUT_BYTES

    assert HOOK_INPUT_BYTES == MAX_INPUT_BYTES + 1
