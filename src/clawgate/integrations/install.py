"""The settings entries that wire the hooks into Claude Code and Gemini CLI, merged safely.

The installed command names clawgate by absolute path (by default the Python running the
install and the package's ``__main__.py`` run as a script, ``<python> -P
<package>/__main__.py``): an agent's ``PATH`` need not hold ``policy``. A script starts
without ``-m``'s module runner, whose imports add about half a bare interpreter's start-up
to every hook call; a package that is not a directory of files (a zip) is started with
``-P -m clawgate``. ``-P`` keeps the script's directory, and with ``-m`` the directory the
agent runs the hook in, off ``sys.path``: a ``clawgate/`` package written into the workspace
would otherwise run in the hook's place.
Both agents treat a hook that exits with any code but 0 or 2 (127 for a missing program, 1
for a Python that cannot import clawgate) as "not blocked", so the command is wrapped in a few
lines of ``sh`` that turn every failure of the hook itself (a non-zero exit, or no answer on stdout)
into exit 2 with the reason on stderr, which both agents read as a block. The entry's
``timeout`` is set above the hook's own deadline (``hooks.HOOK_DEADLINE_S``), so that the
agent never kills a hook that is still waiting for a person: a hook killed by its agent's
timeout counts as not blocked too.

``merge`` adds clawgate's hook to a settings object without touching any other key and
without adding it twice; ``write_settings`` replaces the file atomically (a temporary file in
the same directory, fsynced, renamed), keeping its permission bits. A settings file that is not
a JSON object, or whose ``hooks`` are not shaped as the agent documents, is left alone and
reported: clawgate does not guess at someone's configuration.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shlex
import shutil
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawgate.errors import ClawgateError
from clawgate.integrations.hooks import HOOK_DEADLINE_S

SAFE_MODULE = ("-P", "-m")  # run a module without the current directory on sys.path
SAFE_SCRIPT = "-P"  # run a script without its own directory on sys.path
CLIENT_MARGIN_S = 30.0  # the interpreter's start-up and slack, above the hook's own deadline


@dataclass(frozen=True, slots=True)
class Target:
    """One agent: where its project settings live, which event, how its matcher reads."""

    agent: str
    settings: str  # relative to the project directory
    event: str
    matcher: str
    timeout_unit: float  # the settings' ``timeout`` unit in seconds

    def timeout(self, deadline_s: float = HOOK_DEADLINE_S) -> int:
        """The entry's ``timeout``, in the agent's unit: above the hook's own deadline."""
        return int((deadline_s + CLIENT_MARGIN_S) / self.timeout_unit)


TARGETS = {  # Claude Code counts a hook's timeout in seconds, Gemini CLI in milliseconds
    "claude-code": Target("claude-code", ".claude/settings.json", "PreToolUse", "*", 1.0),
    "gemini": Target("gemini", ".gemini/settings.json", "BeforeTool", ".*", 0.001),
}


def program_words(program: str | None = None) -> list[str]:
    """How the agent starts clawgate, by absolute path: ``program`` (a path, or a name looked
    up on this ``PATH`` now), else this very Python with ``entry_words`` (never the current
    directory's ``clawgate``: the agent's workspace is not clawgate). Raises
    ClawgateError for a name that is not on ``PATH``."""
    if program is None:
        return [sys.executable, *entry_words()]
    if os.sep in program:
        return [os.path.abspath(program)]
    found = shutil.which(program)
    if found is None:
        raise ClawgateError(f"{program!r} is not on PATH; give its absolute path")
    return [os.path.abspath(found)]


def hook_command(agent: str, policies: Sequence[str] = (), program: str | None = None,
                 deadline_s: float = HOOK_DEADLINE_S, *, sandbox: bool = False) -> str:
    """The command line the agent runs (``sh -c``): ``/abs/python -P
    /abs/clawgate/__main__.py hook AGENT --policy /abs/p.yaml``, wrapped so that any failure
    of its own blocks (``fail_closed``).
    ``sandbox``: the hook rewrites the shell calls it allows to run in the sandbox."""
    words = [*program_words(program), "hook", agent]
    for policy in policies:
        words += ["--policy", os.path.abspath(policy)]
    if deadline_s != HOOK_DEADLINE_S:
        words += ["--deadline", f"{deadline_s:g}"]
    if sandbox:
        words.append("--sandbox")
    return fail_closed(shlex.join(words))


def fail_closed(command: str) -> str:
    """``command`` for ``sh -c``: its answer passed on when it exits 0 with one; otherwise
    exit 2 (the agents' "block") with the reason on stderr, whatever went wrong."""
    return (f"out=$({command}); s=$?; "
            'if [ "$s" -eq 0 ] && [ -n "$out" ]; then printf \'%s\\n\' "$out"; exit 0; fi; '
            'echo "clawgate: the hook failed (exit $s) and gave no decision; the call is '
            'blocked" >&2; exit 2')


def entry_words() -> list[str]:
    """The arguments that make this Python start clawgate: its ``__main__.py`` as a script
    (``-P`` keeps the package's own directory off ``sys.path``), or ``-P -m clawgate`` when
    the package is not a directory of files."""
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "__main__.py")
    return [SAFE_SCRIPT, script] if os.path.isfile(script) else [*SAFE_MODULE, "clawgate"]


def _entry_script(path: str) -> bool:
    """Whether ``path`` names a clawgate package's ``__main__.py`` by absolute path."""
    return os.path.isabs(path) and os.path.basename(path) == "__main__.py" \
        and os.path.basename(os.path.dirname(path)) == "clawgate"


def is_ours(command: str, agent: str) -> bool:
    """Whether ``command`` is clawgate's hook for ``agent`` as an install wrote it: ``policy
    hook AGENT ...`` (any path to ``policy`` or ``clawgate``, ``PYTHON -P
    /abs/clawgate/__main__.py`` or ``PYTHON [-P] -m clawgate``), bare or wrapped by
    ``fail_closed``."""
    head, tail = fail_closed("\0").split("\0")
    inner = command
    if command.startswith(head) and command.endswith(tail):
        inner = command[len(head):len(command) - len(tail)]
    try:
        words = shlex.split(inner)
    except ValueError:
        return False
    if words[1:2] == [SAFE_SCRIPT] and len(words) > 2 and _entry_script(words[2]):
        words = ["clawgate", *words[3:]]
    elif words[1:4] == [*SAFE_MODULE, "clawgate"]:  # as earlier versions wrote it
        words = ["clawgate", *words[4:]]
    elif words[1:3] == ["-m", "clawgate"]:  # as earlier versions wrote it
        words = ["clawgate", *words[3:]]
    return len(words) >= 3 and os.path.basename(words[0]) in ("policy", "clawgate") \
        and words[1:3] == ["hook", agent]


def entry(target: Target, command: str, deadline_s: float = HOOK_DEADLINE_S
          ) -> dict[str, Any]:
    """The settings fragment for ``target``: ``{"hooks": {event: [matcher group]}}``."""
    hook = {"type": "command", "command": command, "timeout": target.timeout(deadline_s)}
    return {"hooks": {target.event: [{"matcher": target.matcher, "hooks": [hook]}]}}


def merge(settings: dict[str, Any], target: Target, command: str,
          deadline_s: float = HOOK_DEADLINE_S) -> tuple[dict[str, Any], bool]:
    """``settings`` with the hook added, and whether anything changed. clawgate's own entry
    for this agent, as an earlier install wrote it (a bare ``policy hook AGENT``, which exits
    127 where ``policy`` is not on the agent's PATH, or another timeout), is replaced in place.
    Raises ClawgateError when the existing ``hooks`` are not shaped as documented."""
    merged = copy.deepcopy(settings)
    timeout = target.timeout(deadline_s)
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ClawgateError("'hooks' is not an object; not touching it")
    groups = hooks.setdefault(target.event, [])
    if not isinstance(groups, list):
        raise ClawgateError(f"'hooks.{target.event}' is not a list; not touching it")
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            raise ClawgateError(f"an entry of 'hooks.{target.event}' has no 'hooks' list")
        for hook in inner:
            if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
                continue
            if hook["command"] == command and hook.get("timeout") == timeout:
                return settings, False
            if hook["command"] == command or is_ours(hook["command"], target.agent):
                hook.update(command=command, timeout=timeout)
                return merged, True
    groups.append(entry(target, command, deadline_s)["hooks"][target.event][0])
    return merged, True


def read_settings(path: Path) -> dict[str, Any]:
    """The settings object in ``path`` (absent or empty: ``{}``). Raises ClawgateError."""
    try:
        data = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ClawgateError(f"{path}: cannot be read ({exc.strerror})") from exc
    if not data.strip():
        return {}
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise ClawgateError(f"{path}: not JSON ({exc}); not touching it") from exc
    if not isinstance(value, dict):
        raise ClawgateError(f"{path}: not a JSON object; not touching it")
    return value


def write_settings(path: Path, settings: dict[str, Any]) -> None:
    """Replace ``path`` atomically with ``settings`` (pretty JSON), keeping its mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o644
    tmp = path.with_name(f".{path.name}.clawgate-{os.urandom(6).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(settings, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def install(project: Path, agent: str, command: str, deadline_s: float = HOOK_DEADLINE_S
            ) -> tuple[Path, bool]:
    """Merge the hook into ``project``'s settings for ``agent``; the file and whether it
    changed."""
    target = TARGETS[agent]
    path = project / target.settings
    merged, changed = merge(read_settings(path), target, command, deadline_s)
    if changed:
        write_settings(path, merged)
    return path, changed
