"""A fake home directory with credential-shaped canaries, a git workspace with protected paths,
and a virtual environment whose interpreter lies outside both: what the sandbox-view tests
run against (never the real home's secrets)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CANARY = "CANARY-e3b0c44298fc1c149afbf4c8"  # a fake secret: it must never come out
HOME_SECRETS = (".ssh/id_rsa", ".aws/credentials", ".bash_history", ".netrc",
                ".config/gh/hosts.yml", ".docker/config.json")


def fake_home(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``root/home`` as ``$HOME``, holding a canary in each of ``HOME_SECRETS``, a toolchain
    (``.cargo/bin/tool``) and the user's own pip cache; ``$XDG_CACHE_HOME`` unset, so the
    sandbox's cache goes where it would for a user (``~/.cache/clawgate``)."""
    home = root / "home"
    for rel in HOME_SECRETS:
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{CANARY}\n")
    (home / ".cargo" / "bin").mkdir(parents=True)
    (home / ".cargo" / "bin" / "tool").write_text("toolchain\n")
    (home / ".cache" / "pip").mkdir(parents=True)
    (home / ".cache" / "pip" / "wheel.txt").write_text("the user's own cache\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    return home


def git_workspace(root: Path) -> Path:
    """``root/ws``: a git repository with a hook, a CI workflow and agent configuration."""
    workspace = root / "ws"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\ntrue\n")
    (workspace / ".github" / "workflows").mkdir(parents=True)
    (workspace / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text("{}\n")
    return workspace


def make_venv(where: Path) -> Path:
    """A virtual environment at ``where`` made by the suite's base interpreter, which lives
    outside the workspace (here: under a pyenv of another home)."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(where)], check=True)
    return where


def base_prefix() -> str:
    """The installation the suite's interpreter belongs to, as the view names it."""
    real = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    folder = os.path.dirname(real)
    return os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder


def snapshot(top: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(top.rglob("*")) if p.is_file()}
