"""Tool servers registered with a coding agent from the command line, and recipes that start
them: the command a server entry names is saved in the agent's settings and run every time the
agent starts, before any prompt (``claude mcp add NAME -- CMD …``, ``claude mcp add-json NAME
'{"command":…,"args":[…]}'``, ``gemini mcp add NAME CMD …``, ``codex mcp add NAME -- CMD …``,
``q mcp add --name N --command CMD --args A,B``, ``code --add-mcp '{…}'``, goose's
``--with-extension 'CMD'``; a goose recipe declares stdio extensions whose commands start when
the recipe runs; an agent started with servers for the session: ``claude --mcp-config
'{JSON}'``, codex's ``-c mcp_servers.N.command=…``).

The saved command is checked as the command line it is, at least ASK (a change to the agent's
settings that outlives this session): a download-and-run or a deletion of home saved there is
DENY, as the same text written into the agent's settings file is. A server reached by address
(``--transport http URL``, ``--url``, ``--with-remote-extension``) is ASK: what it offers is not
known here. A recipe fetched from another host is DENY: its extensions' commands, chosen by
whoever serves it, run before the agent asks anything. Listing and showing the registered
servers change nothing (``claude mcp list``, ``codex mcp get NAME``): agents.py leaves them
alone.
"""

from __future__ import annotations

import json
import shlex

from clawgate.decision import NO_OPINION, Outcome, Verdict
from clawgate.shell.model import SimpleCommand, Word
from clawgate.validators.base import Context, Validator, register

# agent CLI -> options of ``mcp add`` that take a value (every such CLI also takes ``--``)
_ADD_VALUED = {
    "claude": frozenset({"-s", "--scope", "-t", "--transport", "-e", "--env", "-H", "--header",
                         "--client-id", "--client-secret", "--callback-port"}),
    "gemini": frozenset({"-s", "--scope", "-t", "--transport", "-e", "--env", "-H", "--header",
                         "--timeout", "--description", "--include-tools", "--exclude-tools"}),
    "qwen": frozenset({"-s", "--scope", "-t", "--transport", "-e", "--env", "-H", "--header",
                       "--timeout", "--description", "--include-tools", "--exclude-tools"}),
    "codex": frozenset({"--env", "--url", "--bearer-token-env-var"}),
    "amp": frozenset({"-e", "--env", "-H", "--header", "--workspace"}),
}
# CLIs whose ``mcp add`` takes the server as options (--name, --command, --args)
_NAMED_ADD = frozenset({"q", "kiro-cli"})
_EDITORS = frozenset({"code", "code-insiders", "cursor", "windsurf", "codium"})
_GOOSE_COMMANDS = frozenset({"--with-extension"})
_GOOSE_REMOTE = frozenset({"--with-remote-extension", "--with-streamable-http-extension"})
_URL_START = ("http://", "https://", "ws://", "wss://")


def _value(word: Word) -> str:
    return word.value if word.value is not None else word.text


def _named_add(cmd: SimpleCommand) -> tuple[str | None, str | None] | None:
    """Amazon Q's and Kiro's ``mcp add --name N --command CMD [--args A,B …]``: the command
    and its arguments are options (``--args`` a comma-separated list, may be repeated)."""
    words = [_value(w) for w in cmd.words]
    if cmd.program not in _NAMED_ADD or words[1:3] != ["mcp", "add"]:
        return None
    command: list[str] = []
    args: list[str] = []
    for index, text in enumerate(words[3:], start=3):
        name, equals, given = text.partition("=")
        if not equals:
            given = words[index + 1] if index + 1 < len(words) else ""
        if name == "--command":
            command = [given]
        elif name == "--args":
            args += given.split(",")
    if not command:
        return "", None  # a server whose command is not read here
    return shlex.join([*command, *args]), None


def _mcp_add(cmd: SimpleCommand) -> tuple[str | None, str | None] | None:
    """(command line, address) a ``X mcp add …`` registers; None when ``cmd`` is none."""
    if cmd.program in _NAMED_ADD:
        return _named_add(cmd) if len(cmd.words) > 2 else None
    valued = _ADD_VALUED.get(cmd.program or "")
    words = cmd.words
    if valued is None or len(words) < 4 or _value(words[1]) != "mcp" or \
            _value(words[2]) not in ("add", "add-json"):
        return None
    json_form = _value(words[2]) == "add-json"
    operands: list[str] = []
    url = None
    index = 3
    while index < len(words):
        text = _value(words[index])
        if text == "--":
            operands.extend(_value(w) for w in words[index + 1:])
            break
        name, equals, given = text.partition("=")
        if operands and not json_form and len(operands) >= 2:
            operands.append(text)  # the server's own arguments, options included
        elif name in valued:
            if not equals:
                index += 1
                given = _value(words[index]) if index < len(words) else ""
            url = given if name == "--url" else url
        elif text.startswith("-") and not operands:
            pass  # a flag of the registration (--trust)
        else:
            operands.append(text)
        index += 1
    if json_form:
        return _from_json(operands[1] if len(operands) > 1 else "")
    server = operands[1:] if len(operands) > 1 else []
    if cmd.program == "codex" and operands and "--" not in (_value(w) for w in words):
        server = []  # codex takes the command only after --
    if server and server[0].startswith(_URL_START):
        return None, server[0]
    return (shlex.join(server) if server else None), url


def _from_json(text: str) -> tuple[str | None, str | None]:
    """(command line, address) of a server given as JSON (``{"command": …, "args": […]}``,
    ``{"type": "http", "url": …}``); a text that is not such JSON names an unknown command."""
    try:
        data = json.loads(text)
    except ValueError:
        return "", None
    if not isinstance(data, dict):
        return "", None
    found = data.get("url") or data.get("httpUrl") or data.get("serverUrl")
    url = found if isinstance(found, str) and found else None
    command = data.get("command")
    args = data.get("args") or []
    if isinstance(command, str) and isinstance(args, list) and all(
            isinstance(a, str) for a in args):
        return shlex.join([command, *args]), url
    if command is None and url is not None:
        return None, url
    return "", url  # a command in another shape, or neither a command nor an address


def _launch_servers(cmd: SimpleCommand) -> list[str]:
    """Servers an agent is started with for this session: ``claude --mcp-config '{JSON}'``
    (a file is read when the agent starts, not here) and codex's ``-c mcp_servers.N.command=…``
    / ``-c mcp_servers.N.args=[…]`` overrides (TOML strings and arrays: JSON's shape)."""
    words = [_value(w) for w in cmd.words[1:]]
    lines: list[str] = []
    codex: dict[str, dict[str, object]] = {}
    for index, text in enumerate(words):
        name, equals, given = text.partition("=")
        if not equals:
            given = words[index + 1] if index + 1 < len(words) else ""
        if cmd.program in ("claude", "qwen") and name == "--mcp-config" and \
                given.lstrip().startswith("{"):
            lines += _json_servers(given)
        elif cmd.program == "codex" and name in ("-c", "--config"):
            key, _, setting = given.partition("=")
            parts = key.strip().split(".")
            if len(parts) == 3 and parts[0] == "mcp_servers":
                try:
                    codex.setdefault(parts[1], {})[parts[2]] = json.loads(setting)
                except ValueError:
                    lines.append("")
    for server in codex.values():
        command, args = server.get("command"), server.get("args") or []
        if isinstance(command, str) and isinstance(args, list):
            lines.append(shlex.join([command, *(str(a) for a in args)]))
    return lines


def _json_servers(text: str) -> list[str]:
    """The command lines of an ``{"mcpServers": {…}}`` text ("" for one not read)."""
    try:
        data = json.loads(text)
    except ValueError:
        return [""]
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return [""]
    found = [_from_json(json.dumps(s))[0] for s in servers.values()]
    return [line for line in found if line is not None]  # a server by address: no command


def registrations(cmd: SimpleCommand) -> tuple[list[str], list[str], list[str]]:
    """(command lines saved as servers, addresses saved as servers, recipes fetched from an
    address) of ``cmd``; a command line "" is one that cannot be read."""
    lines: list[str] = []
    urls: list[str] = []
    recipes: list[str] = []
    found = _mcp_add(cmd)
    if found is not None:
        line, url = found
        lines += [line] if line is not None else []
        urls += [url] if url else []
        return lines, urls, recipes
    lines += _launch_servers(cmd)
    words = [_value(w) for w in cmd.words[1:]]
    for index, text in enumerate(words):
        name, equals, given = text.partition("=")
        if not equals:
            given = words[index + 1] if index + 1 < len(words) else ""
        if cmd.program in _EDITORS and name == "--add-mcp":
            line, url = _from_json(given)
            lines += [line] if line is not None else []
            urls += [url] if url else []
        elif cmd.program == "goose" and name in _GOOSE_COMMANDS:
            lines.append(given)
        elif cmd.program == "goose" and name in _GOOSE_REMOTE:
            urls.append(given)
        elif cmd.program == "goose" and name == "--recipe" and given.startswith(_URL_START):
            recipes.append(given)
    return lines, urls, recipes


def recipe_paths(cmd: SimpleCommand) -> list[str]:
    """The recipe files a goose command runs (``goose run --recipe r.yaml``)."""
    if cmd.program != "goose":
        return []
    words = [_value(w) for w in cmd.words[1:]]
    found: list[str] = []
    for index, text in enumerate(words):
        name, equals, given = text.partition("=")
        if name == "--recipe":
            found.append(given if equals else words[index + 1] if index + 1 < len(words) else "")
    return [f for f in found if f and not f.startswith(_URL_START)]


def recipe_commands(text: str) -> str | None:
    """The command lines a goose recipe's text starts when it runs: each stdio extension's
    ``cmd`` and ``args``, and the retry checks' and on-failure commands, one a line; None when
    the text is not a recipe read here (then what it runs is not known)."""
    import yaml  # a recipe is YAML (or JSON, which YAML reads)

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict):
        return None
    lines: list[str] = []
    for extension in data.get("extensions") or []:
        if not isinstance(extension, dict) or extension.get("type", "stdio") != "stdio":
            continue
        command, args = extension.get("cmd"), extension.get("args") or []
        if not isinstance(command, str) or not isinstance(args, list):
            return None
        lines.append(shlex.join([command, *(str(a) for a in args)]))
    found = data.get("retry")
    retry: dict[str, object] = found if isinstance(found, dict) else {}
    checks = retry.get("checks")
    for check in checks if isinstance(checks, list) else []:
        if isinstance(check, dict) and isinstance(check.get("command"), str):
            lines.append(check["command"])
    failure = retry.get("on_failure")
    if isinstance(failure, str):
        lines.append(failure)
    return "\n".join(lines)


@register
class AgentServerRegistered(Validator):
    """A tool server saved into a coding agent's settings, or started by a recipe: its command
    runs whenever the agent starts. The command is checked as the line it is, at least ASK
    (``claude mcp add x -- sh -c 'curl … | sh'`` is DENY); a server by address is ASK; a recipe
    from another host is DENY.

    Bad: ``claude mcp add-json x '{"command":"bash","args":["-c","rm -rf ~"]}'``. Harmless:
    ``claude mcp list``.
    """

    id = "CG-AGENT-003"
    programs = frozenset(_ADD_VALUED) | _NAMED_ADD | _EDITORS | {"goose"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        lines, urls, recipes = registrations(cmd)
        if recipes:
            return Verdict.deny(self.id, f"runs a recipe from {recipes[0]}: its extensions' "
                                "commands, chosen by whoever serves it, start before any "
                                "prompt", hint="download the recipe and review it first")
        if not lines and not urls:
            return NO_OPINION
        if "" in lines:
            return Verdict.ask(self.id, "saves a tool server whose command cannot be read here "
                               "into the agent's settings", hint="add the server yourself")
        if lines:
            return Verdict.unwrap(*lines, outcome=Outcome.ASK, rule_id=self.id,
                                  message=f"saves a tool server running {lines[0][:80]!r} "
                                  "into the agent's settings, run at every start")
        return Verdict.ask(self.id, f"saves a remote tool server ({urls[0][:80]}) into the "
                           "agent's settings", hint="add the server yourself")
