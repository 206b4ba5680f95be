"""Agents launching agents: another coding agent started from here acts beyond every check this
engine makes. With its approvals or sandbox switched off it is DENY; otherwise ASK.

The flags are the ones each CLI documents (``claude --dangerously-skip-permissions``,
``gemini --yolo``, ``codex --dangerously-bypass-approvals-and-sandbox``, ``cursor-agent
--force``, ``copilot --allow-all-tools``, ``q chat --trust-all-tools``, ``aider --yes-always``,
``amp --dangerously-allow-all``, ``crush --yolo``, ``droid exec --skip-permissions-unsafe`` …).
Started through ``npx``/``bunx``/``uvx``/``pipx run``, the package name counts as the program.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.protected import escalates

# Program (or package) name -> the agent it starts.
AGENT_NAMES = {
    "claude": "claude", "claude-code": "claude", "gemini": "gemini", "gemini-cli": "gemini",
    "codex": "codex", "cursor-agent": "cursor", "q": "q", "kiro-cli": "q", "aider": "aider",
    "aider-chat": "aider", "opencode": "opencode", "opencode-ai": "opencode", "goose": "goose",
    "amp": "amp", "cline": "cline", "openhands": "openhands", "openhands-ai": "openhands",
    "copilot": "copilot", "crush": "crush", "qwen": "qwen", "qwen-code": "qwen",
    "droid": "droid", "auggie": "auggie", "kilocode": "kilocode", "agy": "agy",
    "tabnine": "tabnine", "plandex": "plandex",
}
# Flags that switch approvals or the sandbox off (``--flag`` also matches ``--flag=value``).
_BYPASS_FLAGS = frozenset({
    "--dangerously-skip-permissions", "--allow-dangerously-skip-permissions",
    "--dangerously-bypass-approvals-and-sandbox", "--dangerously-allow-all", "--yolo",
    "--trust-all-tools", "--yes-always", "--allow-all-tools", "--allow-all",
    "--skip-permissions-unsafe", "--always-approve", "--auto-approve", "--full-access"})
# Per agent, short flags and option values with the same meaning.
_BYPASS_SHORT = {"gemini": {"-y"}, "qwen": {"-y"}, "tabnine": {"-y"}, "crush": {"-y"},
                 "cursor": {"-f", "--force"}, "aider": {"--yes"}, "cline": {"-y"},
                 "kilocode": {"-y"}}
_BYPASS_VALUES = {"--permission-mode": {"bypasspermissions"}, "--approval-mode": {"yolo"},
                  "--sandbox": {"danger-full-access", "disabled", "off", "none"},
                  "-s": {"danger-full-access"}, "--ask-for-approval": {"never"},
                  "-a": {"never"}, "--auto": {"high"}}
_BYPASS_ENV = {"GOOSE_MODE": {"auto"}, "OPENCODE_YOLO": {"true", "1"},
               "CLAUDE_CODE_DANGEROUSLY_SKIP_PERMISSIONS": {"true", "1"}}
# Options whose value is settings text: read for the settings that switch approvals off.
_SETTINGS_OPTIONS = frozenset({"--settings", "--config", "-c", "--mcp-config", "--profile"})
_INFO = frozenset({"--version", "-v", "-V", "--help", "-h", "help", "version", "doctor",
                   "login", "logout", "auth", "update", "upgrade", "config", "mcp"})
# Account subcommands sign the CLI in or out, whatever provider or key they are given: no
# session starts (``cline auth -p openrouter -k "$KEY"``).
_ACCOUNT = frozenset({"login", "logout", "auth"})
# Launchers by package name: a versioned name (gemini-cli@latest) escapes dispatch once run.
_LAUNCHERS = frozenset({"npx", "bunx", "uvx"})
_RUNNERS = {"pipx": frozenset({"run"}), "uv": frozenset({"tool"}), "npm": frozenset({"exec"}),
            "pnpm": frozenset({"dlx", "exec"}), "yarn": frozenset({"dlx"}),
            "bun": frozenset({"x"})}
_LAUNCHER_VALUES = frozenset({"-p", "--package", "--from", "-c", "--call", "--with",
                              "--python", "--spec"})
# Names other tools share: the agent only with these first operands (None: no operand, or an
# option first). pressly/goose migrates databases; AWS Copilot always takes a subcommand.
# ("" is no argument at all, None an option first.)
_ONLY_WHEN: dict[str, frozenset[str | None]] = {
    "goose": frozenset({"", "session", "run", "web", "s", "r"}),
    "copilot": frozenset({"", None}), "q": frozenset({"chat"})}
_NOT_AGENT = {"codex": frozenset({"sandbox", "completion"})}


def agent_of(cmd: SimpleCommand) -> tuple[str, int] | None:
    """(agent, index of its first argument) when ``cmd`` starts a coding agent."""
    program = cmd.program
    start = 1
    if program in _LAUNCHERS or (program in _RUNNERS and cmd.args[:1] and
                                 cmd.args[0] in _RUNNERS[program]):
        start = _launched(cmd, 1 if program in _LAUNCHERS else 2 + (cmd.args[1:2] == ("run",)))
        program = _package(cmd.words[start].value) if start < len(cmd.words) else None
        start += 1
    elif program is not None and ("@" in program or program.endswith(".exe")):
        program = _package(cmd.words[0].value)
    elif program in _SCRIPT_RUNNERS:
        program, start = _script_agent(cmd)
    agent = AGENT_NAMES.get(program or "")
    if agent is None:
        return None
    first = next((w.shown for w in cmd.words[start:]), "")
    operand = None if first.startswith("-") else first
    if operand not in _ONLY_WHEN.get(agent, (operand,)) or operand in _NOT_AGENT.get(agent, ()):
        return None
    return agent, start


_SCRIPT_RUNNERS = frozenset({"node", "nodejs", "deno", "tsx"})


def _script_agent(cmd: SimpleCommand) -> tuple[str | None, int]:
    """``node …/node_modules/@anthropic-ai/claude-code/cli.js``: an agent's package run by its
    script. (The package, and the index of the script's first argument.)"""
    index = next((i for i, w in enumerate(cmd.words[1:], start=1)
                  if not w.shown.startswith("-")), None)
    if index is None:
        return None, 1
    parts = (cmd.words[index].value or "").split("/")
    for at, part in enumerate(parts[:-1]):
        if part in AGENT_NAMES and at and (parts[at - 1].startswith("@") or
                                           parts[at - 1] == "node_modules"):
            return part, index + 1
    return None, 1


def _launched(cmd: SimpleCommand, index: int) -> int:
    """Index of the package a launcher runs, past its own options (``uvx --from pkg cmd``)."""
    words = cmd.words
    while index < len(words) and words[index].shown.startswith("-"):
        index += 2 if words[index].shown in _LAUNCHER_VALUES else 1
    return index


def _package(value: str | None) -> str | None:
    """``@anthropic-ai/claude-code@latest`` -> ``claude-code``."""
    if value is None:
        return None
    name = value.rsplit("/", 1)[-1].removesuffix(".exe")
    return name.split("@", 1)[0] if not name.startswith("@") else name


# Listing or showing what the agent has registered changes nothing and starts no session:
# ``claude mcp list``, ``codex mcp get NAME``, ``gemini extensions list``.
_QUERY_GROUPS = frozenset({"mcp", "extensions", "extension", "plugin", "plugins"})
_QUERY_VERBS = frozenset({"list", "ls", "get", "show"})


def agent_query(cmd: SimpleCommand, start: int = 1) -> bool:
    """``cmd`` (its agent's words from ``start``) lists or shows registered servers,
    extensions or plugins, with at most one name and no option but ``--json``."""
    values = [w.value for w in cmd.words[start:]]
    if any(v is None for v in values):
        return False
    words = [v for v in values if v is not None]
    operands = [w for w in words if not w.startswith("-")]
    return 2 <= len(operands) <= 3 and operands[0] in _QUERY_GROUPS and \
        operands[1] in _QUERY_VERBS and all(w == "--json" for w in words if w.startswith("-"))


def bypass(cmd: SimpleCommand, agent: str, start: int) -> str | None:
    """The flag or setting that switches the agent's approvals or sandbox off, or None."""
    for assignment in cmd.assignments:
        if (assignment.value.shown or "").lower() in _BYPASS_ENV.get(assignment.name, ()):
            return f"{assignment.name}={assignment.value.shown}"
    words = [w.shown for w in cmd.words[start:]]
    if next((w for w in words if not w.startswith("-")), None) in _QUERY_GROUPS:
        # ``gemini mcp add fs npx -y …``: a settings subcommand starts no session, and the
        # words after it are the server's (its -y is npx's, not gemini's --yolo)
        words = words[:next(i for i, w in enumerate(words) if w in _QUERY_GROUPS)]
    short = _BYPASS_SHORT.get(agent, set())
    for index, word in enumerate(words):
        name, equals, value = word.partition("=")
        if name in _BYPASS_FLAGS or word in short:
            return word
        if not equals and index + 1 < len(words):
            value = words[index + 1]
        if value.lower() in _BYPASS_VALUES.get(name, ()):
            return f"{name} {value}"
        if name in ("-c", "--config") and "danger-full-access" in value:
            return f"{name} {value}"
        if name in _SETTINGS_OPTIONS and escalates(value):
            return f"{name} {value[:60]}"  # --settings '{"permissions":{"defaultMode":…}}'

    return None


_EXPORTERS = frozenset({"export", "declare", "typeset", "setenv", "launchctl"})


def _exported_bypass(cmd: SimpleCommand, rule: str) -> Verdict:
    """``export GOOSE_MODE=auto``: every agent started later in this shell runs unguarded."""
    if "=" not in cmd.text and cmd.program not in ("setenv", "launchctl"):
        return NO_OPINION
    words = [w.shown for w in cmd.words[1:]]
    pairs = [w.partition("=")[::2] for w in words if "=" in w]
    if cmd.program in ("setenv", "launchctl"):  # csh setenv NAME VALUE; launchctl setenv …
        names = [w for w in words if w != "setenv"]
        pairs += [(names[0], names[1])] if len(names) > 1 else []
    for name, value in pairs:
        if value.strip("'\"").lower() in _BYPASS_ENV.get(name, ()):
            return Verdict.deny(rule, f"{name}={value} switches an agent's approvals off for "
                                "every later launch", hint="leave the agent's checks on")
    return NO_OPINION


@register
class AgentWithoutGuards(Validator):
    """A coding agent started with its approvals or sandbox switched off
    (``--dangerously-skip-permissions``, ``--yolo``, ``--approval-mode=yolo``,
    ``--dangerously-bypass-approvals-and-sandbox``, ``--trust-all-tools``, ``--force``): it
    would run whatever it decides, unseen by every check here. DENY.

    Bad: ``claude -p 'fix it' --dangerously-skip-permissions``. Harmless: ``claude --version``.
    """

    id = "CG-AGENT-001"
    programs = frozenset(AGENT_NAMES) | _LAUNCHERS | frozenset(_RUNNERS) | _SCRIPT_RUNNERS | {
        "agent"} | _EXPORTERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        if cmd.program in _EXPORTERS:
            return _exported_bypass(cmd, self.id)
        found = agent_of(cmd) or (("cursor", 1) if cmd.program == "agent" else None)
        if found is None:
            return NO_OPINION
        flag = bypass(cmd, *found)
        if flag is None:
            return NO_OPINION
        return Verdict.deny(self.id, f"starts {found[0]} with its approvals or sandbox off "
                            f"({flag})", hint="run the agent yourself, with its checks on")


@register
class AgentLaunch(Validator):
    """Any coding agent started from here (``claude -p …``, ``gemini``, ``codex exec``,
    ``npx @google/gemini-cli``): its own actions are not checked here. ASK (version and help
    queries, and signing in or out with ``login``, ``logout`` or ``auth``, are left alone).

    Bad: ``codex exec 'refactor the repo'``. Harmless: ``gemini --version``, ``claude mcp
    list`` (registered servers listed or shown: agent_query).
    """

    id = "CG-AGENT-002"
    programs = frozenset(AGENT_NAMES) | _LAUNCHERS | frozenset(_RUNNERS) | _SCRIPT_RUNNERS

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        found = agent_of(cmd)
        if found is None:
            return NO_OPINION
        agent, start = found
        first = next((w.shown for w in cmd.words[start:]), None)
        if (first in _INFO and len(cmd.words) - start <= 2) or agent_query(cmd, start) or (
                first in _ACCOUNT):
            return NO_OPINION
        return Verdict.ask(self.id, f"starts the {agent} agent, whose actions are not checked "
                           "here", hint="run the agent yourself")
