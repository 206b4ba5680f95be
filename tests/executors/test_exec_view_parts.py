"""The parts of the sandbox's view, without a sandbox: which paths it holds and in which mode.
The backends' translation of the view is tested against the real programs
(``test_exec_sandbox_view.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawgate.executors.view import MountSpec, SandboxView, build_view
from clawgate.executors.workspaceview import MAX_SUBDIRS, workspace_paths, workspace_protected
from clawgate.secretpaths import home_secret_stores
from clawgate.tools.paths import DEFAULT_FORBIDDEN
from clawgate.validators.base import Context
from clawgate.validators.credentials import HINT, is_credential


def view_of(workspace: Path, home: Path, *specs: MountSpec, **environ: str) -> SandboxView:
    return build_view(workspace.resolve(), extra=specs,
                      environ={"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
                               **environ})


def tree(root: Path, *files: str) -> None:
    for rel in files:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")


def test_the_one_list_serves_the_checker_and_the_file_tools() -> None:
    ctx = Context(cwd="/home/dev/ws", workspace="/home/dev/ws", home="/home/dev")
    for store in home_secret_stores():
        assert f"~/{store}" in DEFAULT_FORBIDDEN, store
        assert HINT.search(f"~/{store}"), store
        if store not in (".ssh", ".aws", ".docker", ".config/gh"):  # keys dirs: their keys
            assert is_credential(f"/home/dev/{store}", ctx), store


def test_a_workspace_of_home_is_writable_minus_its_credential_stores(tmp_path: Path) -> None:
    home = tmp_path / "home"
    tree(home, ".ssh/id_rsa", ".aws/credentials", ".bash_history", "notes.txt")
    view = view_of(home, home)
    assert view.mode_of(str(home / "notes.txt")) == "read-write"
    assert view.mode_of(str(home / ".ssh" / "id_rsa")) == "hidden"
    assert view.mode_of(str(home / ".aws")) == "hidden"
    assert view.mode_of(str(home / ".bash_history")) == "hidden"
    assert next(m for m in view.mounts if m.path.endswith(".bash_history")).is_dir is False


def test_a_store_linked_elsewhere_is_hidden_where_it_really_is(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    tree(home, "dotfiles/aws/credentials")
    ws.mkdir()
    (home / ".aws").symlink_to(home / "dotfiles" / "aws")
    view = view_of(ws, home)
    assert view.mode_of(str(home / "dotfiles" / "aws" / "credentials")) == "hidden"
    assert view.mode_of(str(home / "dotfiles")) == "read-only"


def test_a_policy_entry_replaces_the_default_at_its_path(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    tree(home, ".ssh/known_hosts", ".ssh/id_ed25519")
    ws.mkdir()
    spec = MountSpec("~/.ssh/known_hosts", "read-only", "host keys for git over ssh")
    view = view_of(ws, home, spec)
    assert view.mode_of(str(home / ".ssh" / "known_hosts")) == "read-only"
    assert view.mode_of(str(home / ".ssh" / "id_ed25519")) == "hidden"
    order = [m.path for m in view.mounts]
    assert order.index(str(home / ".ssh")) < order.index(str(home / ".ssh" / "known_hosts"))


@pytest.mark.parametrize(("files", "protected", "git_absent"), [
    ((".git/HEAD", ".git/config", ".git/objects/x"), [".git/config"], [".git/hooks"]),
    ((".git/HEAD", ".git/hooks/x"), [".git/hooks"], [".git/config"]),
    ((".github/workflows/ci.yml", ".github/README.md"), [".github/workflows"], []),
    (("CLAUDE.md", ".Claude/settings.json", "src/a.py"), [".Claude", "CLAUDE.md"], []),
    (("pkg/.npmrc", "pkg/AGENTS.md", "pkg/src/x.py"), ["pkg/.npmrc", "pkg/AGENTS.md"], []),
    (("a/b/.claude/settings.json", "a/b/c/.git/config", "a/b/c/d/.npmrc"),
     ["a/b/.claude", "a/b/c/.git/config"], ["a/b/c/.git/hooks"]),
    (("node_modules/x/.git/config", ".hidden/.npmrc", "a/build/.npmrc"), [], []),
])
def test_protected_paths_are_found_at_the_top_and_below_it(
        tmp_path: Path, files: tuple[str, ...], protected: list[str],
        git_absent: list[str]) -> None:
    tree(tmp_path, *files)
    paths = workspace_paths(tmp_path)
    assert [os.path.relpath(p, tmp_path) for p, _ in paths.present] == protected
    assert [os.path.relpath(p, tmp_path) for p, _ in paths.absent if "/.git/" in p] == git_absent
    assert [p for p, _ in workspace_protected(tmp_path)] == [p for p, _ in paths.present]


@pytest.mark.parametrize(("files", "absent", "not_absent"), [
    ((), [".github", ".claude", "CLAUDE.md", ".gitlab-ci.yml", ".cargo", "Jenkinsfile"],
     [".git"]),
    ((".github/README.md",), [".github/workflows", ".github/actions",
                              ".github/copilot-instructions.md"], [".github"]),
    (("claude.md", ".GITHUB/workflows/ci.yml"), [], ["CLAUDE.md", ".github/workflows",
                                                     ".GITHUB/workflows", ".github"]),
    ((".cargo/registry/x",), [".cargo/config", ".cargo/config.toml"], [".cargo"]),
])
def test_the_top_of_a_workspace_lists_the_protected_paths_it_lacks(
        tmp_path: Path, files: tuple[str, ...], absent: list[str], not_absent: list[str]) -> None:
    """The first missing component of each pattern, spelled as the tools read it, found
    case-insensitively."""
    tree(tmp_path, *files)
    found = {os.path.relpath(p, tmp_path) for p, _ in workspace_paths(tmp_path).absent}
    assert set(absent) <= found
    assert not set(not_absent) & found


def test_a_file_where_a_protected_directory_belongs_is_not_held(tmp_path: Path) -> None:
    (tmp_path / ".github").write_text("not a directory")
    found = [p for p, _ in workspace_paths(tmp_path).absent]
    assert not [p for p in found if p.startswith(str(tmp_path / ".github"))]


def test_the_directories_looked_into_are_bounded(tmp_path: Path) -> None:
    for index in range(MAX_SUBDIRS + 10):
        (tmp_path / f"d{index:04}").mkdir()
    (tmp_path / "zz" / ".git").mkdir(parents=True)  # past the bound, breadth first
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "workflows").mkdir()
    found = [os.path.relpath(p, tmp_path) for p, _ in workspace_protected(tmp_path)]
    assert found == [".github/workflows"]


def test_a_git_file_is_read_only_itself(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n")
    assert [p for p, _ in workspace_protected(tmp_path)] == [str(tmp_path / ".git")]


def test_a_venv_prefix_under_a_hidden_store_is_not_shown(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    tree(home, ".gnupg/py/bin/python3.12", "ws-placeholder")
    ws.mkdir()
    venv = ws / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {home / '.gnupg' / 'py' / 'bin'}\n")
    (venv / "bin" / "python").symlink_to(home / ".gnupg" / "py" / "bin" / "python3.12")
    view = view_of(ws, home)
    assert view.mode_of(str(home / ".gnupg" / "py" / "bin" / "python3.12")) == "hidden"


def test_a_venv_outside_everything_is_shown_with_its_interpreter(tmp_path: Path) -> None:
    home, ws, tools = tmp_path / "home", tmp_path / "ws", tmp_path / "tools"
    tree(tools, "py/bin/python3.12", "py/lib/python3.12/os.py")
    home.mkdir()
    ws.mkdir()
    venv = tmp_path / "envs" / "a"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {tools / 'py' / 'bin'}\n")
    (venv / "bin" / "python").symlink_to(tools / "py" / "bin" / "python3.12")
    view = view_of(ws, home, VIRTUAL_ENV=str(venv))
    assert view.mode_of(str(venv / "bin" / "python")) == "read-only"
    assert view.mode_of(str(tools / "py" / "lib" / "python3.12" / "os.py")) == "read-only"
    assert dict(view.env)["VIRTUAL_ENV"] == str(venv)


def test_nothing_automatic_shows_a_path_under_a_hidden_one(tmp_path: Path) -> None:
    """A protected file inside a folder the policy hides is not bound again (a bind's source
    is the host's path); the policy's own entry below a hidden one is."""
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    tree(ws, "fixtures/.npmrc", "fixtures/AGENTS.md", "fixtures/public/readme.txt")
    view = view_of(ws, home, MountSpec("fixtures", "hidden", "recorded tokens"),
                   MountSpec("fixtures/public", "read-only", "the public part"))
    assert [m.path for m in view.mounts if m.path.startswith(str(ws / "fixtures"))] == [
        str(ws / "fixtures"), str(ws / "fixtures" / "public")]
    assert view.mode_of(str(ws / "fixtures" / ".npmrc")) == "hidden"


def test_a_workspace_inside_a_hidden_store_is_still_the_workspace(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ws = home / ".config" / "gcloud" / "project"
    tree(ws, ".git/config", "main.tf")
    view = view_of(ws, home)
    assert view.mode_of(str(home / ".config" / "gcloud")) == "hidden"
    assert view.mode_of(str(ws / "main.tf")) == "read-write"
    assert view.mode_of(str(ws / ".git" / "config")) == "read-only"
