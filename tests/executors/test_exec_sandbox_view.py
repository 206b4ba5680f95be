"""The sandbox's view of the file system, against the real bubblewrap and the real Docker engine:
the home directory read-only minus the credential stores, the workspace writable minus its
protected paths, a per-workspace toolchain cache, the active virtual environment's interpreter,
and the policy's ``executor.mounts``. Every test runs under a fake ``$HOME``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clawgate.errors import ExecutorError
from clawgate.executors import ExecRequest, Executor, executor_from_settings
from clawgate.executors.view import cache_dir
from sandboxes import IMAGE
from sandboxview import (
    CANARY,
    HOME_SECRETS,
    base_prefix,
    make_venv,
    snapshot,
)

SANDBOXES = [pytest.param("bwrap", marks=pytest.mark.bwrap),
             pytest.param("docker", marks=pytest.mark.docker)]


def sandbox(kind: str, workspace: Path, mounts: list[dict[str, str]] | None = None
            ) -> Executor:
    section: dict[str, Any] = {"kind": kind, "mounts": mounts or []}
    if kind == "docker":
        section["docker"] = {"image": IMAGE}
    return executor_from_settings(section, workspace=workspace)


@pytest.fixture(params=SANDBOXES)
def box(request: pytest.FixtureRequest, repo: Path) -> Iterator[Executor]:
    with sandbox(request.param, repo) as executor:
        yield executor


def run(executor: Executor, line: str) -> tuple[int, str, str]:
    result = executor.run(ExecRequest(line, timeout_s=60))
    return result.exit_code, result.stdout, result.stderr


# -- secrets ---------------------------------------------------------------------------------

def test_the_credential_stores_of_home_are_unreadable(box: Executor, home: Path) -> None:
    reads = "; ".join(f'cat "$HOME/{rel}"' for rel in HOME_SECRETS)
    _code, out, err = run(box, f"{reads}; ls -A \"$HOME/.ssh\"; ls -A \"$HOME/.aws\"; echo done")
    assert CANARY not in out + err
    assert out == "done\n"


def test_the_rest_of_home_is_visible_read_only(box: Executor, home: Path) -> None:
    _code, out, _err = run(box, 'cat "$HOME/.cargo/bin/tool"; touch "$HOME/made" '
                              '"$HOME/.cargo/bin/tool"; echo $?')
    assert out == "toolchain\n1\n"
    assert not (home / "made").exists()
    assert (home / ".cargo" / "bin" / "tool").read_text() == "toolchain\n"


def test_the_guard_state_under_home_is_hidden(tmp_path: Path, home: Path, repo: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    state = home / ".local" / "state" / "clawgate"
    (state / "keys").mkdir(parents=True)
    (state / "keys" / "audit.key").write_text(CANARY)
    monkeypatch.setenv("CLAWGATE_STATE_HOME", str(state))
    with sandbox("bwrap", repo) as executor:
        _code, out, err = run(executor, f'cat {state}/keys/audit.key; ls -A {state}; echo end')
    assert (CANARY in out + err, out) == (False, "end\n")


# -- the workspace ---------------------------------------------------------------------------

# (line, a path it must not make; None: it would change a file the snapshot compares)
PROTECTED_WRITES = [
    ("echo x > .git/hooks/x", ".git/hooks/x"),
    ("echo x > .git/hooks/pre-commit", None),
    ("echo '[core] fsmonitor = ./x' >> .git/config", None),
    ("mv .git/hooks .git/old-hooks", ".git/old-hooks"),
    ("mv .git .git-old", ".git-old"),
    ("rm -rf .github", None),
    ("echo 'on: [push]' > .github/workflows/ci.yml", None),
    ("echo x > .github/workflows/new.yml", ".github/workflows/new.yml"),
    ("echo '{\"hooks\": 1}' > .claude/settings.json", None),
]


@pytest.mark.parametrize("sandboxed", SANDBOXES)
def test_protected_paths_of_the_workspace_cannot_be_written(sandboxed: str, repo: Path,
                                                            home: Path) -> None:
    before = snapshot(repo / ".git" / "hooks") | {
        str(repo / rel): (repo / rel).read_bytes()
        for rel in (".git/config", ".github/workflows/ci.yml", ".claude/settings.json")}
    with sandbox(sandboxed, repo) as executor:
        for line, made in PROTECTED_WRITES:
            code, _, _ = run(executor, line)
            assert code != 0, line
            if made is not None:
                assert not (repo / made).exists(), line
        code, out, _ = run(executor, "echo work > notes.txt && cat notes.txt")
        assert (code, out) == (0, "work\n")
    after = snapshot(repo / ".git" / "hooks") | {
        str(repo / rel): (repo / rel).read_bytes()
        for rel in (".git/config", ".github/workflows/ci.yml", ".claude/settings.json")}
    assert after == before


@pytest.mark.bwrap
def test_git_still_commits_in_the_sandbox(repo: Path, home: Path) -> None:
    with sandbox("bwrap", repo) as executor:
        code, out, err = run(executor, "echo x > a.txt && git add a.txt && git -c user.name=t "
                                       "-c user.email=t@example.invalid commit -qm first "
                                       "&& git log --oneline | wc -l")
    assert (code, out.strip()) == (0, "1"), err


@pytest.mark.parametrize("sandboxed", SANDBOXES)
def test_writes_outside_the_workspace_fail(sandboxed: str, tmp_path: Path, repo: Path,
                                           home: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    with sandbox(sandboxed, repo) as executor:
        for target in (outside / "x", home / "x", Path("/usr/x"), Path("/etc/x")):
            code, _, _ = run(executor, f"echo x > {target}")
            assert code != 0, target
            assert not target.exists(), target


# -- toolchains ------------------------------------------------------------------------------

@pytest.mark.bwrap
def test_a_venv_whose_interpreter_links_outside_runs(repo: Path, home: Path) -> None:
    venv = make_venv(repo / ".venv")
    with sandbox("bwrap", repo) as executor:
        view = {m.path: m.mode for m in executor.view().mounts}  # type: ignore[attr-defined]
        code, out, err = run(executor, ".venv/bin/python -c 'import sys, json; "
                                       "print(sys.prefix)'")
    assert (code, out, err) == (0, f"{venv}\n", "")
    assert view[base_prefix()] == "read-only"


@pytest.mark.docker
def test_docker_shows_a_venvs_interpreter_where_its_links_point(repo: Path, home: Path) -> None:
    """The image cannot run the host's interpreter (another C library), but the links resolve:
    the environment and the installation it links to are bound at their host paths."""
    make_venv(repo / ".venv")
    prefix = base_prefix()
    with sandbox("docker", repo) as executor:
        code, out, err = run(executor, f"test -f .venv/bin/python && test -d {prefix}/lib && "
                                       f"echo seen; touch {prefix}/x")
    assert (code, out, err.count("Read-only file system")) == (1, "seen\n", 1), err


@pytest.mark.bwrap
def test_an_active_venv_outside_the_workspace_runs(tmp_path: Path, repo: Path, home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    venv = make_venv(tmp_path / "elsewhere" / "env")
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    with sandbox("bwrap", repo) as executor:
        _code, out, err = run(executor, '"$VIRTUAL_ENV/bin/python" -c "import sys; '
                                       'print(sys.prefix)"; touch "$VIRTUAL_ENV/x"')
    assert (out, err.count("Read-only file system")) == (f"{venv}\n", 1)
    assert not (venv / "x").exists()


@pytest.mark.parametrize("sandboxed", SANDBOXES)
def test_the_toolchain_cache_is_the_workspaces_own(sandboxed: str, repo: Path,
                                                   home: Path) -> None:
    users = snapshot(home / ".cache" / "pip")
    with sandbox(sandboxed, repo) as executor:
        _code, out, err = run(executor, 'mkdir -p "$PIP_CACHE_DIR" "$CARGO_HOME/registry" && '
                                       'echo wheel > "$PIP_CACHE_DIR/probe" && '
                                       'echo crate > "$CARGO_HOME/registry/c" && echo ok; '
                                       'echo x > "$HOME/.cache/pip/wheel.txt"')
    assert (out, err.count("Read-only file system")) == ("ok\n", 1), err
    cache = Path(cache_dir(repo.resolve(), os.environ))
    assert (cache / "pip" / "probe").read_text() == "wheel\n"
    assert (cache / "cargo" / "registry" / "c").read_text() == "crate\n"
    assert snapshot(home / ".cache" / "pip") == users


@pytest.mark.bwrap
def test_pip_itself_uses_the_workspace_cache(repo: Path, home: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    venv = make_venv(repo / ".venv")
    pip_env = Path(os.path.realpath(os.environ.get("VIRTUAL_ENV") or "/work/main/.venv"))
    if not (pip_env / "bin" / "pip").exists():
        pytest.skip("no environment with pip to borrow")
    monkeypatch.setenv("VIRTUAL_ENV", str(pip_env))
    with sandbox("bwrap", repo) as executor:
        code, out, err = run(executor, '"$VIRTUAL_ENV/bin/python" -m pip cache dir')
    assert (code, out) == (0, f"{cache_dir(repo.resolve(), os.environ)}/pip\n"), err
    assert venv.exists()


# -- executor.mounts -------------------------------------------------------------------------

@pytest.mark.parametrize("sandboxed", SANDBOXES)
def test_policy_mounts_of_each_mode_take_effect(sandboxed: str, tmp_path: Path, repo: Path,
                                                home: Path) -> None:
    data, scratch = tmp_path / "data", tmp_path / "scratch"
    data.mkdir()
    scratch.mkdir()
    (data / "set.csv").write_text("a,b\n")
    (repo / "fixtures").mkdir()
    (repo / "fixtures" / "token.txt").write_text(CANARY)
    mounts = [{"path": str(data), "mode": "read-only", "reason": "datasets"},
              {"path": str(scratch), "mode": "read-write", "reason": "scratch space"},
              {"path": "fixtures", "mode": "hidden", "reason": "recorded tokens"}]
    with sandbox(sandboxed, repo, mounts) as executor:
        _code, out, err = run(executor, f"cat {data}/set.csv; echo x > {data}/new; "
                                       f"echo kept > {scratch}/out; cat fixtures/token.txt; "
                                       "ls -A fixtures; echo end")
    assert CANARY not in out + err
    assert out == "a,b\nend\n"
    assert not (data / "new").exists()
    assert (scratch / "out").read_text() == "kept\n"


@pytest.mark.bwrap
def test_a_policy_mount_inside_the_guard_state_is_refused(tmp_path: Path, repo: Path,
                                                          home: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("CLAWGATE_STATE_HOME", str(state))
    mounts = [{"path": str(state / "keys"), "mode": "read-only", "reason": "peek"}]
    with sandbox("bwrap", repo, mounts) as executor, \
            pytest.raises(ExecutorError, match="clawgate's own state"):
        executor.run(ExecRequest("true"))


def test_an_unknown_mode_or_key_is_an_error(repo: Path) -> None:
    for entry in ({"path": "/srv", "mode": "writable", "reason": "x"},
                  {"path": "/srv", "mode": "hidden", "reason": "x", "extra": "y"}):
        with pytest.raises(ValueError, match=r"executor\.mounts"):
            executor_from_settings({"kind": "host", "mounts": [entry]}, workspace=repo)
