"""Protected paths: places inside a workspace whose contents make later runs execute or trust
something (git hooks and config, agent configuration, CI files, package-manager configuration,
clawgate's own policy). Writing one is never a silent allow: the file tools, the hooks and the
MCP proxy answer ASK (a person must approve).

The list is plain data (``PROTECTED``), one entry per name: a directory protects everything
under it, a file itself. A path matches when any run of its components, at any depth and
case-insensitively, is an entry: ``sub/.GIT/hooks/x`` and ``vendor/pkg/.npmrc`` match. Paths are
matched as written (made absolute) and canonicalised (symlinks resolved), so a link named
``notes`` pointing at ``.git/hooks`` is caught too.

The shell checker keeps a list of its own for commands; the two are meant to be one list.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

PROTECTED_ID = "CG-PROT-001"


@dataclass(frozen=True, slots=True)
class Protected:
    """One protected name: ``parts`` are lower-case path components; ``why`` says what a write
    there could make happen later."""

    parts: tuple[str, ...]
    why: str


def _entry(path: str, why: str) -> Protected:
    return Protected(tuple(path.lower().split("/")), why)


PROTECTED: tuple[Protected, ...] = (
    _entry(".git", "git's own data: hooks and config run programs on later git commands"),
    _entry(".gitmodules", "git submodule configuration (URLs and update commands)"),
    _entry(".claude", "Claude Code configuration (hooks, permissions, MCP servers)"),
    _entry(".gemini", "Gemini CLI configuration (hooks, tools, MCP servers)"),
    _entry(".codex", "Codex configuration"),
    _entry(".cursor", "Cursor configuration (rules, MCP servers)"),
    _entry(".vscode", "editor tasks and settings that run programs"),
    _entry(".idea", "editor run configurations"),
    _entry(".mcp.json", "the MCP servers an agent starts"),
    _entry("claude.md", "instructions an agent trusts"),
    _entry("agents.md", "instructions an agent trusts"),
    _entry("gemini.md", "instructions an agent trusts"),
    _entry(".cursorrules", "instructions an agent trusts"),
    _entry(".github/workflows", "CI workflows run with the repository's secrets"),
    _entry(".gitlab-ci.yml", "CI configuration run with the repository's secrets"),
    _entry(".circleci", "CI configuration run with the repository's secrets"),
    _entry(".pre-commit-config.yaml", "programs run on every commit"),
    _entry(".husky", "git hooks installed by husky"),
    _entry(".envrc", "direnv runs it on entering the directory"),
    _entry(".npmrc", "package-manager configuration (registries, tokens, scripts)"),
    _entry(".yarnrc", "package-manager configuration"),
    _entry(".yarnrc.yml", "package-manager configuration"),
    _entry(".pypirc", "package-index configuration and credentials"),
    _entry("pip.conf", "pip configuration (index URLs)"),
    _entry(".clawgate.yaml", "clawgate's own policy"),
    _entry(".clawgate", "clawgate's own state and policy"),
)


def protected_reason(path: str, workspace: str) -> str | None:
    """Why writing ``path`` (relative to ``workspace``, or absolute, or ``~``) needs a person's
    approval, or None when it is not a protected path."""
    root = os.path.realpath(os.path.abspath(workspace))
    joined = os.path.normpath(os.path.join(root, os.path.expanduser(path)))
    for candidate in dict.fromkeys((joined, os.path.realpath(joined))):
        found = _match(_components(candidate, root))
        if found is not None:
            return f"{path}: a protected path ({'/'.join(found.parts)}: {found.why})"
    return None


def _components(path: str, root: str) -> list[str]:
    """The lower-case components of ``path``, relative to ``root`` when inside it."""
    inside = path == root or path.startswith(root.rstrip("/") + "/")
    rest = path[len(root):] if inside else path
    return [p.casefold() for p in rest.split("/") if p]


def _match(parts: list[str]) -> Protected | None:
    for entry in PROTECTED:
        size = len(entry.parts)
        if any(tuple(parts[i:i + size]) == entry.parts for i in range(len(parts) - size + 1)):
            return entry
    return None
