"""The repository's own hooks directory, where ``core.hooksPath`` moves it.

Git runs ``.git/hooks/*``, a protected path; a repository whose config sets ``core.hooksPath``
(``.githooks``, ``scripts/hooks``: a common setup) runs the hooks in that directory instead,
on the next commit, checkout or push, by whoever makes it. That directory is then as protected
as ``.git/hooks``: ``hooks_patterns`` gives it as an anchored pattern to add to the policy's
``paths.protected`` for a workspace.

Read here: the repository that holds the workspace (the nearest ``.git`` upward, a directory
or a worktree's ``gitdir:`` file and its ``commondir``), its ``config`` and ``config.worktree``
``[core]`` sections. Not read: ``include``/``includeIf`` files and the user's global config
(a global hooks directory lies outside the workspace, where writes are refused or asked about
already).
"""

from __future__ import annotations

import os
import re

from clawgate import fsfacts

_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9.-]+)\s*(?:\"[^\"]*\"\s*)?\]\s*(.*)$")
_KEY = re.compile(r"^\s*hookspath\s*=\s*(.*)$", re.IGNORECASE)
_MAX_CONFIG_BYTES = 1 << 20


def hooks_patterns(workspace: str) -> tuple[str, ...]:
    """The anchored patterns (``/abs/dir``) of the hooks directories the repository holding
    ``workspace`` configures with ``core.hooksPath``; none when it sets none."""
    found = _repository(os.path.abspath(workspace))
    if found is None:
        return ()
    top, git_dir = found
    out: list[str] = []
    for config in _configs(git_dir):
        for value in _hooks_paths(config):
            where = os.path.normpath(os.path.join(top, os.path.expanduser(value)))
            out += [where, fsfacts.realpath(where)]
    return tuple(dict.fromkeys(out))


def _repository(start: str) -> tuple[str, str] | None:
    """(the worktree's top, its git directory) of the repository holding ``start``."""
    here = start
    while True:
        dot_git = os.path.join(here, ".git")
        if fsfacts.isdir(dot_git):
            return here, dot_git
        if fsfacts.isfile(dot_git):
            pointed = _gitdir_of(dot_git, here)
            return (here, pointed) if pointed else None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _gitdir_of(dot_git: str, top: str) -> str | None:
    try:
        first = _first_line(fsfacts.read_text(dot_git, 4096))
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    return os.path.normpath(os.path.join(top, first[len("gitdir:"):].strip()))


def _configs(git_dir: str) -> list[str]:
    """The config files that apply: the repository's (a worktree's common directory's) and
    the worktree's own."""
    common = git_dir
    try:
        line = _first_line(fsfacts.read_text(os.path.join(git_dir, "commondir"), 4096))
        common = os.path.normpath(os.path.join(git_dir, line.strip()))
    except OSError:
        pass
    return [os.path.join(common, "config"), os.path.join(git_dir, "config.worktree")]


def _hooks_paths(config: str) -> list[str]:
    """Every ``core.hooksPath`` value in the git config file ``config`` (the last one is
    the one git takes; all are returned, which only protects more)."""
    try:
        text = fsfacts.read_text(config, _MAX_CONFIG_BYTES)
    except OSError:
        return []
    values: list[str] = []
    section = ""
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            section, line = header.group(1).lower(), header.group(2)
        key = _KEY.match(line)
        if section == "core" and key:
            value = _value(key.group(1))
            if value:
                values.append(value)
    return values


def _first_line(text: str) -> str:
    """The first line of ``text`` with its newline, as ``readline`` gives it."""
    end = text.find("\n")
    return text if end < 0 else text[:end + 1]


def _value(raw: str) -> str:
    """A config value: quotes removed, a comment after it (``#``, ``;``) dropped."""
    out, quoted = [], False
    for char in raw.strip():
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()
