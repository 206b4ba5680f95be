"""What a settings or instruction file of an agent or editor makes it run.

Agents and editors run commands their settings name when they start or act: Claude Code's
``hooks``, ``statusLine`` and ``apiKeyHelper``, Gemini CLI's ``discoveryCommand`` and
``callCommand``, Copilot's and Kiro's hooks, aider's ``lint-cmd`` and ``test-cmd``, Codex's and
opencode's tool servers (``command``/``args``), dev containers' ``postCreateCommand``, VS Code
tasks. A value of a key that names a command (its name ends in ``command``, ``cmd``,
``helper``, ``args``, ``bash``, ``shell``, ``script`` …) is that command line, whatever the
file's format (JSON, YAML, TOML) or the program that writes it (``echo``, a here-document,
``jq``, Python). Instruction files (``AGENTS.md``, ``CLAUDE.md``) tell the agent what to run
in their code spans.

These files are protected paths: a write to one asks whatever it holds, since the agent
or editor runs what they name later, outside the guard (a status line or key helper that runs
a workspace script the agent may rewrite at any time). What they name is judged as well, so
a command that is a DENY on its own makes the write a DENY: the values of keys that name a
command, wherever the written text holds them, and an instruction file's code spans where
the line shows the whole text.
"""

from __future__ import annotations

import os

from clawgate.decision import MayRun, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.written import written

# A key (quoted or not) that names a command, then its value: a quoted string or a list. A
# key starts at its quote or where a run of name characters starts (the leftmost match cannot
# start inside one: one character earlier matches too, and a match ends at a quote or "]"):
# the lookbehind spares re a scan of the run from each of its characters (quadratic in it).
_COMMAND_KEY = lazy_pattern(
    r"""(?ix)(?:["']|(?<![\w.-]))([\w.-]*(?:command|commands|cmd|helper|args|bash|powershell|shell|script
    |exec))["']?\s*[:=]\s*(\[[^\]]{0,2000}\]|"(?:[^"\\]|\\.){0,2000}"|'[^']{0,2000}')""")
# The same key on a line of YAML or TOML, its value unquoted (``test-cmd: rm -rf ~/``).
_BARE_COMMAND = lazy_pattern(
    r"""(?imx)^\s*([\w.-]*(?:command|commands|cmd|helper|args|bash|powershell|shell|script
    |exec))\s*[:=][ \t]*([^\s"'\[\]{}][^\n]*?)\s*$""")
_STRING = lazy_pattern(r""""((?:[^"\\]|\\.){0,2000})"|'([^']{0,2000})'""")
_CODE_SPAN = lazy_pattern(r"```[\w-]*\n?(.*?)```|`([^`\n]+)`", flags=16)  # re.DOTALL
INSTRUCTION_FILES = lazy_pattern(r"(?i)(?:^|/)(?:agents|claude|claude\.local|gemini)\.md$"
                                 r"|(?:^|/)copilot-instructions\.md$|/\.github/instructions/"
                                 r"|(?:^|/)\.(?:cursorrules|windsurfrules|clinerules)$")


def commands_named(text: str) -> list[str]:
    """The command lines ``text`` (settings in any format, or code that writes them) gives
    under keys that name a command, quoted or, on a line of its own, bare."""
    found: list[str] = []
    for match in _COMMAND_KEY.finditer(text):
        for string in _STRING.finditer(match.group(2)):
            value = string.group(1) if string.group(1) is not None else string.group(2)
            value = value.replace('\\"', '"').replace("\\\\", "\\").strip()
            if value:
                found.append(value)
    found += [match.group(2) for match in _BARE_COMMAND.finditer(text)]
    return list(dict.fromkeys(found))


def instruction_commands(text: str) -> list[str]:
    """The commands an instruction file's code spans and fenced blocks show the agent."""
    return [line.strip() for m in _CODE_SPAN.finditer(text)
            for line in (m.group(1) or m.group(2) or "").splitlines() if line.strip()]


def agent_file(cmd: SimpleCommand, path: str, why: str, text: str) -> Verdict:
    """A write to an agent's or editor's settings or instructions: it asks (a protected path),
    and the commands it names for the agent to run are judged too, a DENY of one making it a
    DENY (``agentsettings.py``)."""
    named = commands_named(text)
    known = _known_text(cmd, path)
    if known is not None and INSTRUCTION_FILES.search(path):
        named += instruction_commands(known)
    return Verdict.unwrap(*map(MayRun, named), outcome=Outcome.ASK, rule_id="CG-PROT-001",
                          message=f"writes {why}" + (
                              f"; it names the command {named[0]!r} for the agent to run"
                              if named else ""))


def _known_text(cmd: SimpleCommand, path: str) -> str | None:
    """The whole text ``cmd`` prints into ``path`` (``echo``, ``printf``, a here-document or
    here-string to ``tee`` or ``cat``), when the command line shows all of it."""
    if cmd.program not in ("echo", "printf", "tee", "cat") or (
            cmd.program in ("tee", "cat") and not any(r.feeds_input for r in cmd.redirects)):
        return None
    name = os.path.basename(path)
    texts = [text for where, text in written(cmd) if os.path.basename(where) == name]
    return texts[0] if len(texts) == 1 else None
