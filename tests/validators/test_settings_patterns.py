"""The settings patterns' faster forms find exactly what their plain forms find: the key that
names a command starts only where a run of name characters (or its quote) starts, and an
escalation is searched only in a text holding one of its parts (``agentsettings.py``,
``protected.py``)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from clawgate.validators import agentsettings
from clawgate.validators.protected import ESCALATES, escalates

# The key pattern as first written: every position tried, a run of name characters scanned
# from each of its characters.
_PLAIN_KEY = re.compile(
    r"""(?ix)["']?([\w.-]*(?:command|commands|cmd|helper|args|bash|powershell|shell|script
    |exec))["']?\s*[:=]\s*(\[[^\]]{0,2000}\]|"(?:[^"\\]|\\.){0,2000}"|'[^']{0,2000}')""")

_PIECES = ["command", "Cmd", "helper", "args", "bash", "shell", "script", "exec", "x", "_",
           ".", "-", '"', "'", ":", "=", " ", "[", "]", "\\", "\n", "allow", "*", "Bash(*)",
           "yolo", "bypassPermissions", "approval_policy", "never", "approval-mode",
           "enableAllProjectMcpServers", "ſ", "K", "é", "İ", "trust-all-tools", "{", "}"]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=24).map("".join)

_LINES = [
    'jq \'.hooks.PreToolUse[0].hooks[0].command="rm -rf ~"\' s.json > t && mv t s.json',
    'echo \'{"apiKeyHelper": "cat ~/.aws/credentials"}\' > .claude/settings.json',
    "printf 'test-cmd: rm -rf ~/\\n' >> .aider.conf.yml",
    'x_command="a" y_cmd=\'b\' "z.shell": ["c", "d"] bad-exec:"e"',
    'python3 - <<EOF\njson.dump({"permissions": {"allow": ["Bash(*)"]}}, f)\nEOF',
    '{"defaultMode": "bypassPermissions", "alwaysAllow": true}',
    "codex --config approval_policy=never",
]


_Spans = list[tuple[tuple[int, int], tuple[str | None, ...]]]


def _spans(pattern: re.Pattern[str], text: str) -> _Spans:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


@settings(max_examples=800, deadline=None, derandomize=True)
@given(_TEXT)
def test_command_keys_match_the_plain_pattern(text: str) -> None:
    assert _spans(agentsettings._COMMAND_KEY, text) == _spans(_PLAIN_KEY, text)


@settings(max_examples=800, deadline=None, derandomize=True)
@given(_TEXT)
def test_escalation_found_as_the_search_finds_it(text: str) -> None:
    found, plain = escalates(text), ESCALATES.search(text)
    assert (found and (found.span(), found.group(0))) == (plain and (plain.span(),
                                                                     plain.group(0)))


def test_known_lines() -> None:
    for line in _LINES:
        assert _spans(agentsettings._COMMAND_KEY, line) == _spans(_PLAIN_KEY, line)
        assert bool(escalates(line)) == bool(ESCALATES.search(line))
    assert agentsettings.commands_named(_LINES[0]) == ["rm -rf ~"]
    assert escalates(_LINES[5]) is not None and escalates("ls -la src") is None
