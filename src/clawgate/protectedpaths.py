"""Paths inside a workspace whose content makes later runs execute or trust something.

One list for every channel (shell commands now; file tools, hooks and the MCP proxy can ask the
same function): agent configuration and instruction files, git internals, package-manager and
tool configuration that redirects or runs code, CI definitions, clawgate's own policy files.

The guard's own state directory (allow-always grants, audit anchors, keys: ``state_paths``) is
on the list too, and stricter: no channel may read or write anything in it, whatever the
workspace is (a workspace of ``~`` holds the default one), and a sandbox never mounts it.

A pattern is a ``/``-separated run of path components (shell globs allowed in a component)
matched case-insensitively (as the file systems that ignore case compare names, with their
ignored code points, dropped trailing dots and short aliases: ``pathfold.py``), at any depth,
against the path relative to the workspace (or the absolute path outside it): ``.git/hooks``
covers ``sub/.GIT/hooks/pre-commit``, ``.gıt/config`` and ``GIT~1/config``. A pattern that
starts with ``/`` is matched from the filesystem root instead. What a pattern names covers
everything below it. Policies extend the list with ``paths.protected`` (see the manifest).
"""

from __future__ import annotations

import os
import posixpath

from clawgate import fsfacts
from clawgate.pathfold import fold, short_alias

_AGENT = "agent configuration or instructions, which steer what an agent does next"
AGENT_WHY = _AGENT
_GIT = "git internals, which run hooks, filters and helpers on later git commands"
_PACKAGE = "package-manager or tool configuration, which redirects downloads or runs code"
_CI = "a CI definition, which runs with the project's secrets"
_SELF = "clawgate's own policy or approval state"
_USER = "a path the policy protects"

# (pattern, why): patterns in lower case.
DEFAULT_PROTECTED: tuple[tuple[str, str], ...] = (
    *((p, _AGENT) for p in (
        ".claude", ".gemini", ".codex", ".cursor", ".vscode", ".idea", ".mcp.json", "claude.md",
        "claude.local.md", "agents.md", "gemini.md", ".cursorrules", ".windsurfrules",
        ".windsurf", ".clinerules", ".roo", ".kiro", ".amazonq", ".continue", ".aider.conf.yml",
        ".github/copilot-instructions.md", ".github/instructions", ".github/hooks",
        ".devcontainer",
        ".opencode", "opencode.json", ".goose", ".qwen", ".junie",
        # the settings files agents keep in home, tool servers included: Claude Code's
        # ~/.claude.json, Cline's cline_mcp_settings.json, Windsurf's ~/.codeium
        ".claude.json", "cline_mcp_settings.json", ".codeium")),
    *((p, _GIT) for p in (
        ".git", ".gitmodules", ".husky", ".pre-commit-config.yaml",
        ".lefthook.yml", "lefthook.yml")),
    *((p, _PACKAGE) for p in (
        ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".pypirc", "pip.conf", "pip.ini",
        ".cargo/config", ".cargo/config.toml", ".envrc", ".bundle/config", ".gemrc",
        ".mvn/maven.config", ".mvn/wrapper", "gradle/wrapper/gradle-wrapper.properties",
        ".bazelrc", ".direnv")),
    *((p, _CI) for p in (
        ".github/workflows", ".github/actions", ".gitlab-ci.yml", ".circleci",
        "azure-pipelines.yml", ".travis.yml", "jenkinsfile", ".buildkite", ".drone.yml",
        "bitbucket-pipelines.yml")),
    *((p, _SELF) for p in (".clawgate.yaml", ".clawgate.yml", ".clawgate")),
)

# How a sandbox names a protected path that does not exist yet, to hold it empty
# (``executors/workspaceview.py``): the spelling the tools read, where it is not the pattern's
# lower case.
SPELLING: dict[str, str] = {
    "claude.md": "CLAUDE.md", "claude.local.md": "CLAUDE.local.md", "agents.md": "AGENTS.md",
    "gemini.md": "GEMINI.md", "jenkinsfile": "Jenkinsfile"}

_GLOB = frozenset("*?[")
STATE_WHY = "clawgate's own state (allow-always grants, audit anchors, keys)"


def state_paths() -> tuple[str, ...]:
    """The guard's state directories, each as written (absolute, normalised) and as its real
    path: the state root and, where ``$CLAWGATE_STATE_DIR`` moves them, the approvals."""
    from clawgate.statedir import state_dirs

    found: list[str] = []
    for folder in state_dirs():
        written = os.path.normpath(os.path.abspath(folder))
        found += [written, fsfacts.realpath(written)]
    return tuple(dict.fromkeys(found))


def state_below(path: str, state: tuple[str, ...]) -> str | None:
    """The state directory a recursive search from the directory ``path`` (absolute,
    normalised) walks into: one below it with no hidden component between (searches skip
    those by default, as ripgrep does), or None."""
    for folder in state:
        if folder.startswith(path.rstrip("/") + "/"):
            between = folder[len(path.rstrip("/")) + 1:].split("/")
            if not any(part.startswith(".") for part in between):
                return folder
    return None


def state_reason(path: str, state: tuple[str, ...]) -> str | None:
    """Why ``path`` (absolute, normalised) is out of reach: it is one of the ``state``
    directories (``state_paths``) or inside one. None otherwise."""
    for folder in state:
        if path == folder or path.startswith(folder.rstrip("/") + "/"):
            return f"{path} is {STATE_WHY}"
    return None


def hard_links(path: str) -> str | None:
    """Why a write to the existing regular file ``path`` may reach a protected path through
    its other hard links (a write in place changes every name of the file, and those names
    cannot be found from this one), or None when it has one name (or is no such file)."""
    import stat

    try:
        info = fsfacts.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
        return None
    return (f"has {info.st_nlink} hard links; a write through it changes every other name of "
            "the file, and one may be a protected path (.git/config)")


def _index() -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """The default patterns by their first component: one dict lookup per path component."""
    found: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for pattern, why in DEFAULT_PROTECTED:
        parts = tuple(pattern.split("/"))
        found.setdefault(parts[0], []).append((parts, why))
    return found


_BY_FIRST = _index()


def may_be_protected(text: str) -> bool:
    """A cheap look at a path's text (or a directory) before it is resolved: no default
    pattern matches a path none of whose components is a pattern's first one."""
    plain = text.replace('"', "").replace("'", "").replace("\\", "")
    return any((part := fold(raw)) in _BY_FIRST or (_GLOB & set(part) and _glob_names_one(part))
               or ("~" in part and bool(_aliased(part))) for raw in plain.split("/"))


def _glob_names_one(part: str) -> bool:
    """A glob component (``.gi?``, ``.vs*``) that the shell may expand to a pattern's first
    component."""
    return any(_glob_may_be(part, first) for first in _BY_FIRST)


def _glob_may_be(glob: str, name: str) -> bool:
    """The shell may expand ``glob`` to ``name``: its first character is literal and equal
    (``*.md`` is not taken for CLAUDE.md: every project's markdown would be), and it matches."""
    if not glob or glob[0] in "*?[" or glob[0] != name[0]:
        return False
    from fnmatch import fnmatchcase

    return fnmatchcase(name, glob)


def protected_reason(path: str, workspace: str, extra: tuple[str, ...] = ()) -> str | None:
    """Why writing ``path`` (absolute, normalised) needs a person's eye, or None.

    ``extra``: the policy's own patterns (``paths.protected``), in the same syntax."""
    inside = workspace != "/" and path.startswith(workspace + "/")
    shown = path[len(workspace) + 1 :] if inside else path
    lowered = tuple(fold(p) for p in shown.split("/") if p)
    for start, part in enumerate(lowered):
        for parts, why in _BY_FIRST.get(part, ()) if not _GLOB & set(part) else _globbed(part):
            if _run_at(parts, lowered, start):
                return f"{shown} is {why}"
        for parts, why in _aliased(part) if "~" in part else ():
            if _run_at(parts, lowered, start):
                return f"{shown} is {why}"
    for pattern in extra:
        if pattern.startswith("/") and _anchored(pattern, path):
            return f"{shown} is {_USER}"
        if not pattern.startswith("/") and _matches(pattern.lower().strip("/"), lowered):
            return f"{shown} is {_USER}"
    return None


def holds_protected(path: str, workspace: str) -> str | None:
    """Why a tree copied into the directory ``path`` may land in a protected path below it
    (``.github`` holds ``.github/workflows``), or None."""
    inside = workspace != "/" and path.startswith(workspace + "/")
    shown = path[len(workspace) + 1 :] if inside else path
    lowered = tuple(fold(p) for p in shown.split("/") if p)
    if not lowered:
        return None
    for parts, why in _BY_FIRST.get(lowered[-1], ()):
        if len(parts) > 1:
            return f"{shown} holds {'/'.join(parts)}, {why}"
    return None


def pattern_holds(folder: str, pattern: str, workspace: str) -> str | None:
    """Why names matching ``pattern`` in the directory ``folder`` may be a protected path it
    holds (``.github`` and ``*`` name ``.github/workflows``; ``*.bak`` names none), or None."""
    from fnmatch import fnmatchcase

    inside = workspace != "/" and folder.startswith(workspace + "/")
    shown = folder[len(workspace) + 1 :] if inside else folder
    lowered = tuple(fold(p) for p in shown.split("/") if p)
    if not lowered:
        return None
    for parts, why in _BY_FIRST.get(lowered[-1], ()):
        if len(parts) > 1 and fnmatchcase(parts[1], pattern.lower()):
            return f"{shown}/{pattern} may name {'/'.join(parts)}, {why}"
    return None


def _aliased(part: str) -> list[tuple[tuple[str, ...], str]]:
    """The default patterns whose first component ``part`` may be the 8.3 alias of."""
    return [entry for first, entries in _BY_FIRST.items() if short_alias(part, first)
            for entry in entries]


def _globbed(part: str) -> list[tuple[tuple[str, ...], str]]:
    """The default patterns whose first component the glob ``part`` may expand to."""
    return [entry for first, entries in _BY_FIRST.items() if _glob_may_be(part, first)
            for entry in entries]


def _run_at(wanted: tuple[str, ...], parts: tuple[str, ...], start: int) -> bool:
    if start + len(wanted) > len(parts):
        return False
    return _component(wanted[0], parts[start]) and all(
        _later_component(w, p) for w, p in zip(wanted[1:], parts[start + 1:], strict=False))


def _matches(pattern: str, parts: tuple[str, ...]) -> bool:
    """``pattern``'s components equal a run of ``parts`` starting anywhere."""
    wanted = tuple(pattern.split("/"))
    return any(_run_at(wanted, parts, start) for start in range(len(parts)))


def _component(wanted: str, part: str) -> bool:
    if wanted == part or ("~" in part and short_alias(part, wanted)):
        return True
    if _GLOB & set(part) and not _GLOB & set(wanted):
        return _glob_may_be(part, wanted)  # .gi?/hooks: the shell expands it to .git
    if not _GLOB & set(wanted):
        return False
    from fnmatch import fnmatchcase  # only policies and a few defaults use globs

    return fnmatchcase(part, wanted)


def _later_component(wanted: str, part: str) -> bool:
    """A component after the first of a run: there a glob the shell expands in a protected
    directory may be any of its entries (``.github/*/ci.yml`` names ``.github/workflows``);
    only a run's first component needs a literal first character (``*.md`` is no
    ``CLAUDE.md``)."""
    if _GLOB & set(part):
        if _GLOB & set(wanted):
            return True  # two patterns: some name may match both
        from fnmatch import fnmatchcase

        return fnmatchcase(wanted, part)
    return _component(wanted, part)


def _anchored(pattern: str, path: str) -> bool:
    """An absolute pattern: its components equal the first ones of ``path``."""
    wanted = [w for w in posixpath.normpath(pattern).lower().split("/") if w]
    parts = [p.lower() for p in path.split("/") if p]
    return len(parts) >= len(wanted) and all(
        _component(w, p) for w, p in zip(wanted, parts, strict=False))
