"""``policy doctor``: an installation checked end to end, each check a finding with what to do.

Checks, for a project directory:

- the policy: every layer the project's calls would load (user, project, environment) loads;
- each agent hook found in the project's settings (Claude Code, Gemini CLI): the command the
  client would run, run as the client runs it (``sh -c``, the hook's JSON on stdin), with an
  everyday call (allowed), a destructive one (blocked), malformed input (blocked: failing
  closed), and again with a ``PATH`` that has no ``policy`` on it (still blocked: a client
  reads exit 127 as "not blocked");
- the sandbox: bubblewrap runs a command (the default executor needs it);
- the resident decider: a check through it answers;
- a ``policy serve`` URL, when given: ``/healthz`` answers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawgate.errors import ClawgateError
from clawgate.integrations.install import TARGETS, read_settings

OK, INFO, WARN, FAIL = "ok", "info", "warning", "failed"
HOOK_SECONDS = 120  # a hook run that takes longer is reported, not waited for forever
BARE_PATH = "/usr/bin:/bin"


@dataclass(frozen=True, slots=True)
class Finding:
    check: str
    status: str  # ok | info | warning | failed
    detail: str
    fix: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"check": self.check, "status": self.status, "detail": self.detail,
                "fix": self.fix}


def examine(project: Path, server: str | None = None) -> list[Finding]:
    found = [policy_finding(project)]
    for agent in TARGETS:
        found += hook_findings(project, agent)
    found += [sandbox_finding(), decider_finding(project)]
    if server:
        found.append(server_finding(server))
    return found


def policy_finding(project: Path) -> Finding:
    from clawgate.policy.discovery import policy_paths
    from clawgate.policy.loader import load_policy

    try:
        paths = policy_paths((), str(project))
        load_policy(*paths)
    except ClawgateError as exc:
        return Finding("policy", FAIL, str(exc), "fix the file named; `policy lint FILE`")
    shown = ", ".join(paths) if paths else "the embedded default only"
    return Finding("policy", OK, f"loads: {shown}")


def hook_findings(project: Path, agent: str) -> list[Finding]:
    target = TARGETS[agent]
    name = f"{agent} hook"
    try:
        settings = read_settings(project / target.settings)
    except ClawgateError as exc:
        return [Finding(name, FAIL, str(exc), "repair the settings file")]
    commands = [h for h in _hooks(settings, target.event) if f"hook {agent}" in h["command"]]
    if not commands:
        return [Finding(name, INFO, f"not installed in {target.settings}",
                        f"policy hook install {agent} --write")]
    return [_hook_finding(name, agent, project, hook) for hook in commands]


def _hooks(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    groups = settings.get("hooks", {}).get(event, []) if isinstance(settings.get("hooks"),
                                                                     dict) else []
    return [h for g in groups if isinstance(g, dict) for h in g.get("hooks", [])
            if isinstance(h, dict) and isinstance(h.get("command"), str)]


def _hook_finding(name: str, agent: str, project: Path, hook: dict[str, Any]) -> Finding:
    command = hook["command"]
    problems = []
    for label, line, path, want in (("an everyday call", "git status", None, "allow"),
                                    ("rm -rf /", "rm -rf /", None, "block"),
                                    ("rm -rf / without policy on PATH", "rm -rf /", BARE_PATH,
                                     "block"),
                                    ("malformed input", None, None, "block")):
        got = run_hook(command, agent, project, line, path)
        if got != want:
            problems.append(f"{label}: {got}, wanted {want}")
    if problems:
        return Finding(name, FAIL, f"`{command}`: " + "; ".join(problems),
                       f"policy hook install {agent} --write (it names the program by its "
                       "absolute path and fails closed)")
    return Finding(name, OK, f"`{command}`: allows everyday work, blocks rm -rf /, fails "
                   "closed on bad input and without policy on PATH")


def run_hook(command: str, agent: str, project: Path, line: str | None,
             path: str | None) -> str:
    """What the client would make of the hook's answer: allow, ask, block or an error."""
    tool, event = {"claude-code": ("Bash", "PreToolUse"),
                   "gemini": ("run_shell_command", "BeforeTool")}[agent]
    payload = b"{" if line is None else json.dumps({
        "hook_event_name": event, "tool_name": tool, "session_id": "doctor",
        "cwd": str(project.resolve()), "tool_input": {"command": line}}).encode()
    env = {**os.environ, **({"PATH": path} if path else {})}
    try:
        done = subprocess.run(["/bin/sh", "-c", command], input=payload, capture_output=True,
                              env=env, cwd=project, timeout=HOOK_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        return f"no answer in {HOOK_SECONDS} s"
    if done.returncode == 2:
        return "block"  # both clients read exit 2 as blocked, the reason on stderr
    if done.returncode != 0:
        return f"exit {done.returncode} (read as not blocked)"
    return _decision(agent, done.stdout)


def _decision(agent: str, stdout: bytes) -> str:
    try:
        said = json.loads(stdout)
        value = (said["hookSpecificOutput"]["permissionDecision"] if agent == "claude-code"
                 else said["decision"])
    except (ValueError, KeyError, TypeError):
        return "no decision on stdout (read as not blocked)"
    return {"deny": "block", "block": "block"}.get(str(value), str(value))


def sandbox_finding() -> Finding:
    found = shutil.which("bwrap")
    if found is None:
        return Finding("sandbox", WARN, "bubblewrap is not installed: `auto` cannot confine "
                       "commands, and a policy asking for bwrap fails", "apt-get install "
                       "bubblewrap (or dnf/pacman install bubblewrap)")
    done = subprocess.run([found, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent",
                           "true"], capture_output=True, text=True, check=False, timeout=60)
    if done.returncode != 0:
        return Finding("sandbox", WARN, f"bubblewrap is installed but cannot make a sandbox "
                       f"here: {done.stderr.strip()[:200]}", "allow unprivileged user "
                       "namespaces (kernel.unprivileged_userns_clone=1), or run as root")
    return Finding("sandbox", OK, f"bubblewrap runs a sandbox ({found})")


def decider_finding(project: Path) -> Finding:
    env = {k: v for k, v in os.environ.items() if k != "CLAWGATE_NO_DAEMON"}
    done = subprocess.run([sys.executable, "-P", "-m", "clawgate", "daemon", "status", "--json"],
                          capture_output=True, text=True, env=env, check=False, timeout=60)
    try:
        state = json.loads(done.stdout)
    except ValueError:
        return Finding("decider", WARN, f"cannot say: {done.stderr.strip()[:200]}",
                       "check the state directory's permissions")
    if not state.get("running"):
        return Finding("decider", INFO, "not running: the next check or hook decides in "
                       "process and starts one", "policy daemon start")
    check = subprocess.run([sys.executable, "-P", "-m", "clawgate", "check", "ls"], env=env,
                           cwd=project, capture_output=True, check=False, timeout=120)
    if check.returncode != 0:
        return Finding("decider", FAIL, f"a check of `ls` through it exited {check.returncode}",
                       "policy daemon stop")
    return Finding("decider", OK, f"running (pid {state['pid']}), answers")


def server_finding(url: str) -> Finding:
    health = url.rstrip("/") + "/healthz"
    if not health.startswith(("http://", "https://")):
        return Finding("service", FAIL, f"{url!r} is not an http(s) URL")
    try:
        with urllib.request.urlopen(health, timeout=10) as answer:
            status = answer.status
    except OSError as exc:
        return Finding("service", FAIL, f"{health}: {exc}", "start it: policy serve")
    if status != 200:
        return Finding("service", FAIL, f"{health}: HTTP {status}", "see its log")
    return Finding("service", OK, f"{health} answers")
