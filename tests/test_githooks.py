"""``githooks.hooks_patterns``: the hooks directory a repository's ``core.hooksPath`` names,
read from its config as git writes it (real ``git config`` and hand-written files)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from clawgate.githooks import hooks_patterns


def repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=60)
    return path


@pytest.mark.parametrize(("config", "expected"), [
    ("[core]\n\thooksPath = .githooks\n", ".githooks"),
    ("[core]\n\thookspath=\"tools/git hooks\" ; a comment\n", "tools/git hooks"),
    ("[CORE]\n\tHooksPath = h # trailing\n", "h"),
    ("[core] hooksPath = inline\n", "inline"),
    ("[alias]\n\thooksPath = not-core\n", None),
    ("[core]\n\tbare = false\n", None),
])
def test_the_config_is_read_as_git_writes_it(tmp_path: Path, config: str,
                                             expected: str | None) -> None:
    workspace = repo(tmp_path / "ws")
    (workspace / ".git" / "config").write_text(config)
    want = () if expected is None else (str(workspace / expected),)
    assert hooks_patterns(str(workspace / "sub")) == want


def test_git_config_itself_and_a_worktree(tmp_path: Path) -> None:
    main = repo(tmp_path / "main")
    subprocess.run(["git", "-C", str(main), "config", "core.hooksPath", "hooks"], check=True,
                   timeout=60)
    subprocess.run(["git", "-C", str(main), "-c", "user.name=t", "-c", "user.email=t@e",
                    "commit", "-q", "--allow-empty", "-m", "x"], check=True, timeout=60)
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(tmp_path / "wt")],
                   check=True, timeout=60)
    assert hooks_patterns(str(main)) == (str(main / "hooks"),)
    assert hooks_patterns(str(tmp_path / "wt")) == (str(tmp_path / "wt" / "hooks"),)


def test_no_repository_no_patterns(tmp_path: Path) -> None:
    assert hooks_patterns(str(tmp_path)) == ()
