"""A hook's ``--sandbox``: an allowed shell call rewritten so that it runs confined.

The hooks only decide; the agent then runs what was allowed itself, on the host. With
``--sandbox`` the hook's allow for a shell call (Claude Code's ``Bash``, Gemini CLI's
``run_shell_command``) also replaces the call's command with::

    /abs/python -P /abs/clawgate/__main__.py run --sandboxed --shell bash \\
        --policy /abs/p.yaml --workspace ROOT --cwd CWD [--timeout S] [--yes] -- 'THE ORIGINAL LINE'

so the line runs in the policy's sandbox (bubblewrap where the policy names none), under the
same policy files, in the same workspace and directory the hook judged it in, by bash as the
agent's tool would run it, with the agent's own ``timeout`` (Claude Code's, in milliseconds)
when the call gives one, capped at the policy's ``executor.max_timeout_s`` (else the policy's
``executor.timeout_s``); where no sandbox works, ``policy run --sandboxed`` fails and runs
nothing. The line is one shell-quoted word: it reaches ``policy run`` byte for byte. ``--yes``
is passed only when the hook itself settled an ASK (a person, or a trusted policy, said yes):
``policy run`` decides the line again and, for a line the policy allows, asks nobody.

Claude Code replaces the whole tool input with ``hookSpecificOutput.updatedInput``, so every
other field (``description``, ``timeout``, ``run_in_background``) is copied as it was; Gemini
CLI merges ``hookSpecificOutput.tool_input`` over the model's arguments. The rewritten input is
added after the answer is scrubbed: scrubbing or capping the command would change what runs.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

SHELL_TOOLS = {"Bash": "command", "run_shell_command": "command"}
TIMEOUT_MS = {"Bash": "timeout"}  # the tool's own timeout field, in milliseconds


class CannotConfine(Exception):
    """A line that cannot be handed to ``policy run`` as it is (a NUL byte)."""


def sandboxed_command(line: str, *, root: str, cwd: str, policies: Sequence[str] = (),
                      approved: bool = False, timeout_s: float | None = None,
                      program: Sequence[str] | None = None) -> str:
    """The command line that runs ``line`` through ``policy run --sandboxed`` (``timeout_s``
    None: the policy's ``executor.timeout_s``). Raises CannotConfine for a line no argv can
    carry."""
    from clawgate.integrations.install import program_words

    if "\0" in line:
        raise CannotConfine("the command holds a NUL byte, which no program argument can carry")
    words = [*(program or program_words()), "run", "--sandboxed", "--shell", "bash"]
    for policy in policies:
        words += ["--policy", os.path.abspath(policy)]
    words += ["--workspace", root, "--cwd", cwd]
    if timeout_s is not None:
        words += ["--timeout", f"{timeout_s:g}"]
    if approved:
        words.append("--yes")
    return shlex.join([*words, "--", line])


def agent_timeout(tool: str, tool_input: Mapping[str, Any], ceiling_s: float) -> float | None:
    """The seconds the agent's own ``timeout`` field asks for, at most ``ceiling_s`` (the
    policy's ``executor.max_timeout_s``); None when the tool has no such field or it is not a
    positive number."""
    key = TIMEOUT_MS.get(tool)
    value = tool_input.get(key) if key is not None else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        return None
    return min(value / 1000.0, ceiling_s)


def rewritten_input(tool_input: Mapping[str, Any], key: str, command: str) -> dict[str, Any]:
    """``tool_input`` with ``key`` replaced by ``command``, every other field as it was."""
    return {**tool_input, key: command}


def with_rewrite(event: str, said: Mapping[str, Any], new_input: dict[str, Any]
                 ) -> dict[str, Any]:
    """The hook's answer ``said`` carrying ``new_input`` the way ``event``'s agent reads it:
    Claude Code's ``hookSpecificOutput.updatedInput`` (the whole input), Gemini CLI's
    ``hookSpecificOutput.tool_input`` (merged over the model's arguments)."""
    answer = dict(said)
    specific = dict(answer.get("hookSpecificOutput") or {})
    if event == "PreToolUse":
        specific["updatedInput"] = new_input
    elif event == "BeforeTool":
        specific["tool_input"] = new_input
    else:
        raise ValueError(f"no way to rewrite a tool call for the {event} event")
    answer["hookSpecificOutput"] = specific
    return answer
