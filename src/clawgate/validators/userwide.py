"""Tier rules for tools whose install verbs reach past the project into the user's or the
toolchain's own folders unless an option keeps them in the project.

``ansible-galaxy collection install NAME`` puts the collection in ``~/.ansible`` (every
playbook's) unless ``-p``/``--collections-path``/``--roles-path`` names a folder;
``corepack enable`` writes package-manager shims next to Node itself (every project's ``yarn``
and ``pnpm``) unless ``--install-directory`` names one, and ``corepack install -g`` sets the
user's default version; ``git lfs install`` writes its filters into the user's git settings
unless ``--local``, ``--worktree`` or ``--file`` keeps them in the repository (``--system``:
the machine's).
"""

from __future__ import annotations

from clawgate.decision import Risk
from clawgate.shell.model import SimpleCommand

_HIGH = Risk.HIGH
_GALAXY_PATHS = frozenset({"-p", "--collections-path", "--roles-path", "--path"})
_GALAXY_KINDS = frozenset({"collection", "role"})


def _options(cmd: SimpleCommand) -> set[str]:
    return {a.split("=", 1)[0] for a in cmd.args if a.startswith("-")}


def _operands(cmd: SimpleCommand) -> list[str]:
    return [a for a in cmd.args if not a.startswith("-")]


def ansible_galaxy(cmd: SimpleCommand, base: Risk) -> Risk:
    """``ansible-galaxy [collection|role] install`` without a path: the user's ``~/.ansible``."""
    words = _operands(cmd)
    verb = words[1] if words[:1] and words[0] in _GALAXY_KINDS else words[0] if words else ""
    if verb == "install" and not _GALAXY_PATHS & _options(cmd) and not any(
            a.startswith("-p") and len(a) > 2 for a in cmd.args):
        return _HIGH
    return base


def corepack(cmd: SimpleCommand, base: Risk) -> Risk:
    """``corepack enable``/``disable`` beside Node itself, ``install -g`` the user's default."""
    words, options = _operands(cmd), _options(cmd)
    verb = words[0] if words else ""
    if verb in ("enable", "disable") and "--install-directory" not in options:
        return _HIGH
    if verb == "install" and {"-g", "--global"} & options:
        return _HIGH
    return base


def git_lfs(cmd: SimpleCommand, args: list[str], base: Risk) -> Risk:
    """``git lfs install``/``uninstall`` (``args`` after ``lfs``) in the user's settings."""
    if args[:1] not in (["install"], ["uninstall"]):
        return base
    if {"--local", "--worktree", "--file"} & {a.split("=", 1)[0] for a in args}:
        return base
    return _HIGH
