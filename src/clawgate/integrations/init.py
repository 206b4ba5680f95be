"""``policy init``: a working, fail-closed set-up for a project, written in one step and undone
in one step.

- ``claude-code`` / ``gemini``: the agent's hook merged into the project's settings (by
  absolute path, failing closed, its timeout above the hook's deadline: ``install``), and a
  starter project policy (``.clawgate.yaml``) when the project has none.
- ``mcp-proxy``: an MCP server entry for the client's project configuration (Claude Code's
  ``.mcp.json``, Gemini CLI's ``.gemini/settings.json``) that runs the server behind
  ``policy mcp-proxy``, and the starter policy.
- ``serve``: a starter team policy (``clawgate-team.yaml``), an approver token for the person
  answering at the console and, when an agent is named, an agent token bound to the project as
  its workspace, in the service's database (tokens are shown once, on stdout).

Each step says what it wrote; ``undo`` removes exactly what these steps add (clawgate's hook
entries, the proxy entry it wrote, the starter policy while it is still as written).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawgate.errors import ClawgateError
from clawgate.integrations.install import (
    SAFE_MODULE,
    TARGETS,
    hook_command,
    install,
    is_ours,
    read_settings,
    write_settings,
)

POLICY_FILE = ".clawgate.yaml"
TEAM_FILE = "clawgate-team.yaml"
MCP_FILES = {"claude-code": ".mcp.json", "gemini": ".gemini/settings.json"}
STARTER = """\
# This project's clawgate policy, layered over the embedded default (policy config shows the
# layers; policy lint .clawgate.yaml checks this file; docs: the policies page).
version: 1
# supervised: everyday work in the workspace runs, high-risk commands ask a person.
autonomy: supervised
shell:
  rules:
    # Rules match the parsed command, in every spelling of its flags; examples are checked
    # when the file loads. Add your own below.
    - id: no-force-push
      command: [git, push, [--force, -f]]
      decision: deny
      why: rewrites shared history; use --force-with-lease on your own branch
      examples: {match: [git push -f origin main], not_match: [git push origin main]}
"""


@dataclass(frozen=True, slots=True)
class Step:
    path: Path
    what: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what}"


def init_hook(project: Path, agent: str) -> list[Step]:
    command = hook_command(agent)
    path, changed = install(project, agent, command)
    target = TARGETS[agent]
    steps = [Step(path, f"{'added' if changed else 'already had'} the {target.event} hook "
                  f"({command.split('$(', 1)[-1].split(')', 1)[0]})")]
    return steps + starter_policy(project)


def init_mcp_proxy(project: Path, client: str, name: str, server: list[str]) -> list[Step]:
    if not name or not server:
        raise ClawgateError("give the server's name and the command that starts it")
    path = project / MCP_FILES[client]
    settings = read_settings(path)
    servers = settings.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ClawgateError(f"{path}: 'mcpServers' is not an object; not touching it")
    wanted = {"command": sys.executable,  # -P: never a clawgate/ package in the project
              "args": [*SAFE_MODULE, "clawgate", "mcp-proxy", "--name", name, "--", *server]}
    if servers.get(name) == wanted:
        return [Step(path, f"already had the server {name!r} behind policy mcp-proxy"),
                *starter_policy(project)]
    if name in servers:
        raise ClawgateError(f"{path}: a server named {name!r} is there already; not "
                            "replacing it")
    servers[name] = wanted
    write_settings(path, settings)
    return [Step(path, f"added the server {name!r}, run behind policy mcp-proxy"),
            *starter_policy(project)]


def starter_policy(project: Path) -> list[Step]:
    return [_write_new(project / POLICY_FILE, STARTER, "project")]


def _write_new(path: Path, text: str, whose: str) -> Step:
    """Write ``text`` to ``path`` unless a file is there (never overwritten)."""
    if path.exists():
        return Step(path, f"kept (a {whose} policy is there already)")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return Step(path, f"wrote a starter {whose} policy")


def undo(project: Path, kind: str, client: str = "claude-code",
         name: str | None = None) -> list[Step]:
    """Remove what ``init`` of ``kind`` adds; say what was removed or left."""
    steps = []
    if kind in TARGETS:
        steps.append(_remove_hooks(project, kind))
    elif name is not None:
        steps.append(_remove_server(project, client, name))
    policy = project / POLICY_FILE
    if policy.exists() and policy.read_text(encoding="utf-8") == STARTER:
        policy.unlink()
        steps.append(Step(policy, "removed (it was the starter policy, unchanged)"))
    elif policy.exists():
        steps.append(Step(policy, "left in place (it was edited, or not written by init)"))
    return steps


def _remove_hooks(project: Path, agent: str) -> Step:
    target = TARGETS[agent]
    path = project / target.settings
    settings = read_settings(path)
    groups = settings.get("hooks", {}).get(target.event) if isinstance(
        settings.get("hooks"), dict) else None
    if not isinstance(groups, list):
        return Step(path, "no clawgate hook to remove")
    removed = 0
    kept_groups: list[Any] = []
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            kept_groups.append(group)
            continue
        kept = [h for h in inner if not (isinstance(h, dict) and isinstance(
            h.get("command"), str) and is_ours(h["command"], agent))]
        removed += len(inner) - len(kept)
        if kept:
            kept_groups.append({**group, "hooks": kept})
    if not removed:
        return Step(path, "no clawgate hook to remove")
    if kept_groups:
        settings["hooks"][target.event] = kept_groups
    else:  # nothing of anyone else's was there: leave no empty list behind
        del settings["hooks"][target.event]
        if not settings["hooks"]:
            del settings["hooks"]
    write_settings(path, settings)
    return Step(path, f"removed {removed} clawgate hook entr{'y' if removed == 1 else 'ies'}")


def _remove_server(project: Path, client: str, name: str) -> Step:
    path = project / MCP_FILES[client]
    settings = read_settings(path)
    servers = settings.get("mcpServers")
    entry = servers.get(name) if isinstance(servers, dict) else None
    args = entry.get("args") if isinstance(entry, dict) else None
    ours = isinstance(args, list) and (args[:4] == [*SAFE_MODULE, "clawgate", "mcp-proxy"]
                                       or args[:3] == ["-m", "clawgate", "mcp-proxy"])
    if not ours:
        return Step(path, f"no server {name!r} behind policy mcp-proxy to remove")
    del servers[name]  # type: ignore[union-attr]
    write_settings(path, settings)
    return Step(path, f"removed the server {name!r}")


def init_serve(project: Path, approver: str, agent: str | None,
               database: str | None = None) -> tuple[list[Step], list[str]]:
    """The team policy and the tokens; the steps and the lines that show each token once."""
    from clawgate.extras import require

    for module in ("sqlalchemy", "fastapi"):
        require("serve", module, "policy init serve")
    from clawgate.serve import default_database, tokens
    from clawgate.serve.db import connect, migrate

    url = database or default_database()
    engine = connect(url)
    migrate(engine)
    steps = [*_team_policy(project)]
    shown = [f"approver token for {approver} (sign in at the console with it): "
             f"{tokens.create(engine, 'approver', approver)}"]
    if agent:
        made = tokens.create(engine, "agent", agent, str(project))
        shown.append(f"agent token for {agent}, workspace {project} (CLAWGATE_SERVER_TOKEN "
                     f"of its hooks or proxy): {made}")
    steps.append(Step(Path(url.removeprefix("sqlite:///")), f"{len(shown)} token"
                      f"{'s' if len(shown) > 1 else ''} made (shown below, once; "
                      "policy serve token list / revoke ID)"))
    return steps, shown


def _team_policy(project: Path) -> list[Step]:
    text = STARTER.replace("This project's clawgate policy", "The team's clawgate policy for "
                           "policy serve").replace("policy lint .clawgate.yaml",
                                                   f"policy lint {TEAM_FILE}")
    return [_write_new(project / TEAM_FILE, text, "team")]
