"""Shell commands that coding agents issued, from public agent trajectories (read, never run).

    python bench/extract_agent_commands.py OWNER/NAME=GIT_DIR ... > tests/corpus/agentcmds.jsonl

(the corpus: SWE-agent/mini-swe-agent, SWE-agent/SWE-agent, All-Hands-AI/OpenHands,
gruckion/mini-swe-agent, in that order; a line written for an earlier one is not repeated)

Reads, at each repository's HEAD (``git --git-dir=… show HEAD:path``), the trajectory files of
three agent frameworks and keeps the plain shell commands the agent sent:

- mini-swe-agent (``*.traj.json``, or a JSON list of messages): the one fenced ``bash`` (or
  ``mswea_bash_command``) block of each assistant message, as the framework's parser takes it;
  a message with no block or more than one was rejected by the framework and is skipped.
- SWE-agent (``*.traj``, not the capture-the-flag demonstrations under ``ctf/``, which are not
  coding work): ``trajectory[].action``, except the framework's own tool commands
  (``open``, ``edit``, ``str_replace_editor``, ``find_file``, ``submit``, … listed in
  ``_SWE_AGENT_TOOLS``), which are not shell.
- OpenHands (``tests/runtime/trajs/*.json``, and the example evaluation outputs
  ``evaluation/**/examples/output.jsonl``): ``args.command`` of each ``run`` action.

The agents ran in containers with the repository at an absolute root (``/testbed``,
``/workspace``, ``/owner__name``, ``/workspace/owner__name__version``, and then ``/workspace``
is the folder above it); that root is rewritten to the relative path it names
(``cd /testbed && `` is dropped, ``/testbed/x`` becomes ``x``), since the benchmark checks from
the workspace. Lines are then labelled by the rules of ``tests/corpus/README.md``, decided per
line before any measurement: a line whose effect goes beyond the checkout (``_BEYOND``, an
absolute path or home path left after the rewrite, a recursive delete of anything but build
output, a write to a protected path) is left out, the rest is ``allow``. Duplicates (after the
rewrite) are dropped. At most ``CAP`` lines a source, and within the SWE-bench source at most
``CAP_PER_PROJECT`` a project, chosen by a stable hash. Each line: ``command``, ``label``,
``source`` (``owner/repo@commit:path``), ``origin`` (the agent framework).
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

CAP = 300
CAP_PER_PROJECT = 26
_FENCE = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.S)
_SWE_AGENT_TOOLS = frozenset({
    "open", "goto", "scroll_up", "scroll_down", "create", "edit", "insert", "append",
    "find_file", "search_dir", "search_file", "submit", "str_replace_editor", "filemap",
    "set_cursors", "decompile", "disassemble", "connect_start", "connect_sendline",
    "connect_stop", "connect_exec", "debug_start", "debug_add_breakpoint", "debug_continue",
    "debug_step", "debug_exec", "debug_stop", "exit_forfeit", "exit_cost", "exit_context",
    "exit_error", "exit_format", "forfeit", "view_image", "review_on_submit",
})
# effects beyond the checkout: network, installs, privilege, pushes, secrets, processes
_BEYOND = re.compile(
    r"\bsudo\b|\bdoas\b|\bsu\s|\bapt(-get)?\b|\bbrew\b|\bdnf\b|\byum\b|\bapk\b|\bconda\b|"
    r"\b(pip3?|uv|npm|yarn|pnpm|gem|cargo|go)\s+(install|add|download)\b|\bpip\b.*\binstall\b|"
    r"\bsetup\.py\s+(install|develop)\b|\btox\b|\bnox\b|\bpipx\b|\bnpx\b|"
    r"\bgit\s+(push|fetch|clone|pull|remote|submodule|reset\s+--hard|clean|config\s+--global)\b|"
    r"\bcurl\b|\bwget\b|\bnc\b|\bnetcat\b|\bssh\b|\bscp\b|\brsync\b|\btelnet\b|\bftp\b|"
    r"https?://|\bsocket\b|\burllib\b|\brequests\.(get|post)\b|\bremote\(|http\.server|"
    r"\bpsql\b|\bmysql\b|\bredis-cli\b|\bdocker\b|\bpodman\b|\bkubectl\b|\bgh\s|"
    r"\bpublish\b|\bupload\b|\btwine\b|\bkill\b|\bpkill\b|\bkillall\b|\bnohup\b|"
    r"\bsecrets?\b|TOKEN|PASSWORD|\bAWS_|id_rsa|\.ssh\b|(^|[\s;&|])\.env\b|"
    r"(^|[;&|]\s*)(env|printenv)\s*($|[;&|])|\bexport\s+-p\b|/proc/|"
    r"\bsubprocess\b|\bos\.(system|popen|exec\w*|spawn\w*)\b|\bpty\b|\bshutil\.rmtree\b|"
    r"\bchmod\b|\bchown\b|\bcrontab\b|\bsystemctl\b|\bmount\b|\bdd\s|\bmkfs\b|\bshred\b|"
    r"\btruncate\b|\bfind\b.*\s-(delete|exec\w*|ok\w*)\b|\bxargs\b.*\brm\b")
# a path from the root or home left after the rewrite; /dev/null and programs of /usr/bin are fine
_ABSOLUTE = re.compile(r"(^|[\s=:'\"(<>|;&,])(~|\$HOME|\$\{HOME\}|\.\./|"
                       r"/(?!dev/(null|std(out|err|in))\b)(?!usr/bin/\w+(\s|$))(?!bin/\w+(\s|$))"
                       r"[\w.~-])")
_PROTECTED = re.compile(r"\.git/|\.github/|\.gitlab-ci|\.gitmodules|\.claude\b|\.gemini\b|"
                        r"\.codex\b|\.cursor\b|\.vscode\b|\.idea\b|\.mcp\.json|CLAUDE\.md|AGENTS\.md|GEMINI\.md|"
                        r"\.cursorrules|\.npmrc|\.yarnrc|\.pypirc|pip\.conf|\.cargo/config|\.envrc")
_BUILD = re.compile(r"^(\./)?(build|dist|target|out|node_modules|__pycache__|\.pytest_cache|\.tox|"
                    r"\.venv|coverage|htmlcov|\.mypy_cache|[\w.-]*\.egg-info|_build)(/.*)?/?$")


def git(git_dir: str, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True,
                          check=True).stdout


def _relative(command: str, roots: list[str]) -> str:
    """``command`` with its container root written relative, or "" when the root is named after
    a ``cd`` elsewhere (relative to that folder, the root has another spelling)."""
    for root in roots:
        named = [m.start() for m in re.finditer(  # where the root is named, but as cd's folder
            rf"(?<![\w.-])(?<!cd )(?<!cd  ){re.escape(root)}(?![\w.-])", command)]
        moves = [m.start() for m in re.finditer(rf"(?:^|[\s;&|(])cd\s+(?!{re.escape(root)}/?"
                                                rf"(?:\s|$|[;&|]))", command)]
        if moves and any(at > min(moves) for at in named):
            return ""
    for root in roots:
        command = re.sub(rf"(^|(?<=[\s;&|(]))cd {re.escape(root)}/? *(&&|;|\n) *", "", command)
        command = re.sub(rf"(?<![\w.-]){re.escape(root)}/", "", command)
        command = re.sub(rf"(?<![\w.-]){re.escape(root)}(?![\w.-])", ".", command)
    return command.strip()


def _recursive_delete_beyond_build(command: str) -> bool:
    for segment in re.split(r"[;&|\n]", command):
        words = segment.split()
        if not words or words[0] != "rm":
            continue
        flags = [w for w in words[1:] if w.startswith("-")]
        recursive = any(f == "--recursive" or (not f.startswith("--") and re.search("[rR]", f))
                        for f in flags)
        if recursive and not all(_BUILD.match(w) for w in words[1:] if not w.startswith("-")):
            return True
    return False


def beyond(command: str) -> bool:
    """True when the line's effect goes beyond the checkout (the README's rules)."""
    if _BEYOND.search(command) or _ABSOLUTE.search(command):
        return True
    if _PROTECTED.search(command):
        return True
    return _recursive_delete_beyond_build(command)


def _mini_swe(data: Any) -> Iterator[str]:
    messages = data.get("messages", []) if isinstance(data, dict) else data
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        blocks = _FENCE.findall(content) if isinstance(content, str) else []
        if len(blocks) == 1:
            yield blocks[0]


def _swe_agent(data: Any) -> Iterator[str]:
    for step in data.get("trajectory", []) if isinstance(data, dict) else []:
        action = str(step.get("action", "")).strip()
        words = action.split()
        if words and words[0] not in _SWE_AGENT_TOOLS:
            yield action


def _openhands(data: Any) -> Iterator[str]:
    for event in data if isinstance(data, list) else []:
        if isinstance(event, dict) and event.get("action") == "run":
            yield str(event.get("args", {}).get("command", ""))


def _load(git_dir: str, path: str) -> Any:
    """The JSON of a file, or of each line of a JSON Lines file as a list of its events'
    histories joined (OpenHands' evaluation outputs: one run a line, ``history`` its events)."""
    text = git(git_dir, "show", f"HEAD:{path}")
    if not path.endswith(".jsonl"):
        return json.loads(text)
    events: list[Any] = []
    for line in text.decode("utf-8", "replace").splitlines():
        if line.strip():
            run = json.loads(line)
            events += run.get("history", []) if isinstance(run, dict) else []
    return events


def trajectories(git_dir: str) -> Iterator[tuple[str, str, list[str]]]:
    names = git(git_dir, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
    for path in names:
        if path.endswith(".traj.json"):
            kind = "mini-swe-agent"
        elif path.endswith(".traj") and "/ctf/" not in path:
            kind = "swe-agent"
        elif (path.startswith("tests/runtime/trajs/") and path.endswith(".json")) or (
                path.startswith("evaluation/") and path.endswith("/examples/output.jsonl")):
            kind = "openhands"
        else:
            continue
        try:
            data = _load(git_dir, path)
        except (json.JSONDecodeError, subprocess.CalledProcessError):
            continue
        reader = {"openhands": _openhands, "swe-agent": _swe_agent}.get(kind, _mini_swe)
        yield path, kind, list(reader(data))


def _project(path: str) -> str:
    match = re.search(r"([\w.-]+?)__[\w.-]+-\d+", path)
    return match.group(1) if match else ""


def _rank(command: str) -> str:
    return hashlib.sha256(command.encode()).hexdigest()


def extract(repo: str, git_dir: str) -> list[dict[str, str]]:
    commit = git(git_dir, "rev-parse", "HEAD").decode().strip()
    seen: dict[str, dict[str, str]] = {}
    for path, kind, commands in trajectories(git_dir):
        named = re.findall(r"(?<![\w.-])(?:/workspace)?/[\w.-]+__[\w.-]+(?=/|\s|$)",
                           " ".join(commands))
        roots = [*sorted(set(named), key=len, reverse=True), "/testbed"]
        if not any(root.startswith("/workspace/") for root in named):
            roots.append("/workspace")  # else /workspace is the folder above the checkout
        for raw in commands:
            command = _relative(raw, roots)
            if not command or command in seen or beyond(command):
                continue
            seen[command] = {"command": command, "label": "allow",
                             "source": f"{repo}@{commit}:{path}", "origin": kind}
    kept: list[dict[str, str]] = []
    per_project: dict[str, int] = {}
    for command in sorted(seen, key=_rank):
        project = _project(seen[command]["source"])
        if project and per_project.get(project, 0) >= CAP_PER_PROJECT:
            continue
        per_project[project] = per_project.get(project, 0) + 1
        kept.append(seen[command])
        if len(kept) >= CAP:
            break
    return kept


def main(argv: list[str]) -> int:
    written: set[str] = set()
    for pair in argv:  # a line already written for an earlier repository is not repeated
        repo, _, git_dir = pair.partition("=")
        for line in extract(repo, git_dir):
            if line["command"] not in written:
                written.add(line["command"])
                sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
