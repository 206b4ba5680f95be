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

Settings written with known text are judged by what they make the agent run: each command
line is checked as the line it is; settings that only set plain values under keys that name
no command, path, environment, address, permission or server (``editor.formatOnSave: true``,
``auto-commits: false``) make it run nothing. Any other setting keeps its question.
"""

from __future__ import annotations

import json
import os

from clawgate.decision import NO_OPINION, MayRun, Outcome, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.written import written

# A key (quoted or not) that names a command, then its value: a quoted string or a list.
_COMMAND_KEY = lazy_pattern(
    r"""(?ix)["']?([\w.-]*(?:command|commands|cmd|helper|args|bash|powershell|shell|script
    |exec))["']?\s*[:=]\s*(\[[^\]]{0,2000}\]|"(?:[^"\\]|\\.){0,2000}"|'[^']{0,2000}')""")
_STRING = lazy_pattern(r""""((?:[^"\\]|\\.){0,2000})"|'([^']{0,2000})'""")
# Words of a key that make a setting more than a plain preference.
_RISKY_KEY = lazy_pattern(
    r"(?i)command|cmd|helper|args|bash|shell|script|exec|path|env|url|server|hook|permission"
    r"|allow|trust|approv|sandbox|mode|plugin|extension|task|terminal|proxy|registry|program"
    r"|interpreter|binary|file|dir|include|import|source|instruction|prompt|mcp|tool|agent")
# A plain value: a boolean, a number or a word (no path, address or expansion).
_PLAIN = lazy_pattern(r"^(?:true|false|null|-?\d+(?:\.\d+)?|[A-Za-z][\w.-]{0,40})$")
_LINE = lazy_pattern(r"^\s*([\w.-]+)\s*[:=]\s*(.*?)\s*$")
_CODE_SPAN = lazy_pattern(r"```[\w-]*\n?(.*?)```|`([^`\n]+)`", flags=16)  # re.DOTALL
# Prose that points the agent at something outside the work itself.
_REACHES = lazy_pattern(r"(?i)https?://|~|\$\w|/etc/|/root|\.ssh|\.aws|\.env\b|credential"
                        r"|secret|token|password|passwd|private key|ignore (?:all |previous )")
INSTRUCTION_FILES = lazy_pattern(r"(?i)(?:^|/)(?:agents|claude|claude\.local|gemini)\.md$"
                                 r"|(?:^|/)copilot-instructions\.md$|/\.github/instructions/"
                                 r"|(?:^|/)\.(?:cursorrules|windsurfrules|clinerules)$")


def commands_named(text: str) -> list[str]:
    """The command lines ``text`` (settings in any format, or code that writes them) gives
    under keys that name a command."""
    found: list[str] = []
    for match in _COMMAND_KEY.finditer(text):
        for string in _STRING.finditer(match.group(2)):
            value = string.group(1) if string.group(1) is not None else string.group(2)
            value = value.replace('\\"', '"').replace("\\\\", "\\").strip()
            if value:
                found.append(value)
    return list(dict.fromkeys(found))


def instruction_commands(text: str) -> list[str]:
    """The commands an instruction file's code spans and fenced blocks show the agent."""
    return [line.strip() for m in _CODE_SPAN.finditer(text)
            for line in (m.group(1) or m.group(2) or "").splitlines() if line.strip()]


def plain_instructions(text: str) -> bool:
    """Prose that reaches nothing outside the work (no address, home, secret or variable)."""
    prose = _CODE_SPAN.sub(" ", text)
    return _REACHES.search(prose) is None


def _settings(text: str) -> list[tuple[str, object]] | None:
    """(dotted key, value) of every leaf setting in ``text`` (a JSON object, or lines of
    ``key: value`` / ``key = value``); None when it reads as neither."""
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        found: list[tuple[str, object]] = []
        stack: list[tuple[str, object]] = list(doc.items())
        while stack:
            key, value = stack.pop()
            if isinstance(value, dict):
                stack += [(f"{key}.{k}", v) for k, v in value.items()]
            else:
                found.append((key, value))
        return found
    lines: list[tuple[str, object]] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            return None
        lines.append((match.group(1), match.group(2).strip().strip("\"'")))
    return lines


def plain_settings(text: str) -> list[str] | None:
    """The command lines ``text`` gives, when every setting in it is either a plain value
    under a key that names nothing that runs, reaches or grants, or a string under a key
    that names a command (that string, judged as itself); None for any other text."""
    settings = _settings(text)
    if not settings:
        return None
    commands: list[str] = []
    for key, value in settings:
        last = key.rpartition(".")[2]
        if _COMMAND_KEY.match(f'"{last}": ""') and isinstance(value, str):
            commands.append(value)  # judged as the command line it is
            continue
        if _RISKY_KEY.search(key) or not _PLAIN.match(json.dumps(value).strip('"')):
            return None
    return commands


def agent_file(cmd: SimpleCommand, path: str, why: str, text: str) -> Verdict:
    """A write to an agent's or editor's settings or instructions, judged by what they make
    it run (``agentsettings.py``): known text is checked as the commands it names, and
    prose or plain preferences need no question; any other write asks, a command it names
    that is a DENY on its own making it a DENY."""
    known = _known_text(cmd, path)
    if known is not None and INSTRUCTION_FILES.search(path):
        if plain_instructions(known):
            lines = instruction_commands(known)
            return Verdict.unwrap(*lines) if lines else NO_OPINION
    elif known is not None:
        commands = plain_settings(known)
        if commands is not None:
            return Verdict.unwrap(*commands) if commands else NO_OPINION
    named = commands_named(text)
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
