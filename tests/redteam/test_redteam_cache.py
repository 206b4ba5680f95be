"""Red team, the engine's decision cache: a long-lived engine (a Guard's, the MCP proxy's, the
service's) answered a line it had decided before from its cache, though a filesystem fact the
decision read had changed since: a link that appeared or now leads elsewhere, a second hard
link, a hooks directory the git config now names, a clean task or an ignore file that no longer
spares a path, a tree that now holds a credential file, a git index that now tracks a file, a
manifest that no longer declares a package, a directory that now holds a key. Each row makes
the change between two identical checks of one engine; the second must be what a fresh engine
says, and stricter than the first.

Real parts only: the engine, the filesystem of a temporary workspace, real ``git``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell.shadow import Limits, Shadow

Step = Callable[[Path], object]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def git(workspace: Path, *argv: str) -> None:
    subprocess.run(["git", "-C", str(workspace), *argv], check=True, capture_output=True,
                   timeout=120)


def nothing(_: Path) -> None:
    return None


def link_to_hooks(ws: Path) -> None:
    os.symlink(".git/hooks", ws / "h")


def link_to_docs(ws: Path) -> None:
    (ws / "docs").mkdir()
    os.symlink("docs", ws / "h")


def retarget_to_hooks(ws: Path) -> None:
    (ws / "h").unlink()
    os.symlink(".git/hooks", ws / "h")


def directory_d(ws: Path) -> None:
    (ws / "d").mkdir()


def directory_d_becomes_link(ws: Path) -> None:
    (ws / "d").rmdir()
    os.symlink(".git/hooks", ws / "d")


def notes(ws: Path) -> None:
    write(ws / "notes.txt", "a\n")


def second_name_in_hooks(ws: Path) -> None:
    os.link(ws / "notes.txt", ws / ".git" / "hooks" / "pre-commit")


def githooks_directory(ws: Path) -> None:
    (ws / ".githooks").mkdir()


def config_names_githooks(ws: Path) -> None:
    write(ws / ".git" / "config", "[core]\n\thooksPath = .githooks\n")


def clean_task_removes_man(ws: Path) -> None:
    write(ws / "Makefile", "clean_man:\n\trm -rf ./man\n")
    write(ws / "man" / "a.1", "x")


def clean_task_rewritten(ws: Path) -> None:  # the same size: only the content tells
    write(ws / "Makefile", "clean_man:\n\trm -rf ./mam\n")


def ignored_man(ws: Path) -> None:
    write(ws / ".gitignore", "man/\n")
    write(ws / "man" / "a.1", "x")


def ignore_file_emptied(ws: Path) -> None:
    write(ws / ".gitignore", "# none\n")


def credential_in_man(ws: Path) -> None:
    write(ws / "man" / ".env", "TOKEN=not-a-real-token\n")


def repository_ignoring_man(ws: Path) -> None:
    (ws / ".git" / "config").unlink()
    (ws / ".git" / "hooks").rmdir()
    (ws / ".git").rmdir()
    git(ws, "init", "-q")
    ignored_man(ws)


def index_tracks_man(ws: Path) -> None:
    git(ws, "add", "-f", "man/a.1")


def declared_package(ws: Path) -> None:
    write(ws / "package.json", '{"dependencies": {"left-padder-xyz": "1.0.0"}}')


def package_undeclared(ws: Path) -> None:
    write(ws / "package.json", '{"dependencies": {}}')


def local_bin(ws: Path) -> None:
    write(ws / "node_modules" / ".bin" / "left-padder-xyz", "#!/bin/sh\n")


def local_bin_removed(ws: Path) -> None:
    (ws / "node_modules" / ".bin" / "left-padder-xyz").unlink()


def jsr_mapped(ws: Path) -> None:
    write(ws / "deno.json", '{"imports": {"flag": "jsr:@luca/flagz@1"}}')


def jsr_unmapped(ws: Path) -> None:
    write(ws / "deno.json", "{}")


def conf_directory(ws: Path) -> None:
    write(ws / "conf" / "a.txt", "x")


def key_in_conf(ws: Path) -> None:
    write(ws / "conf" / "id_rsa", "not a real key\n")


def link_into_proc(ws: Path) -> None:
    os.symlink("/proc/self", ws / "e")


# (line, what the workspace holds, the change between the two checks, the rule after it)
ROWS = [
    pytest.param("printf x >> h/../config", nothing, link_to_hooks, "CG-PROT-001",
                 id="a-link-appears"),
    pytest.param("printf x > h/pre-commit", link_to_docs, retarget_to_hooks, "CG-PROT-001",
                 id="a-link-leads-elsewhere"),
    pytest.param("printf x > d/pre-commit", directory_d, directory_d_becomes_link,
                 "CG-PROT-001", id="a-directory-becomes-a-link"),
    pytest.param("printf x >> notes.txt", notes, second_name_in_hooks, "CG-PROT-001",
                 id="a-second-hard-link"),
    pytest.param("printf x > .githooks/pre-commit", githooks_directory, config_names_githooks,
                 "CG-PROT-001", id="git-config-names-a-hooks-directory"),
    pytest.param("rm -rf man", clean_task_removes_man, clean_task_rewritten, "CG-DEG-002",
                 id="a-clean-task-rewritten-same-size"),
    pytest.param("rm -rf man", ignored_man, ignore_file_emptied, "CG-DEG-002",
                 id="an-ignore-file-changes"),
    pytest.param("rm -rf man", ignored_man, credential_in_man, "CG-DEG-002",
                 id="a-tree-gains-a-credential-file"),
    pytest.param("rm -rf man", repository_ignoring_man, index_tracks_man, "CG-DEG-002",
                 id="the-git-index-tracks-a-file"),
    pytest.param("npx left-padder-xyz", declared_package, package_undeclared, "CG-PKG-002",
                 id="a-manifest-drops-a-package"),
    pytest.param("npx left-padder-xyz", local_bin, local_bin_removed, "CG-PKG-002",
                 id="a-local-program-removed"),
    pytest.param("deno add jsr:@luca/flagz", jsr_mapped, jsr_unmapped, "CG-PKG-002",
                 id="an-import-map-drops-a-module"),
    pytest.param("cat conf/*", conf_directory, key_in_conf, "CG-SEC-001",
                 id="a-glob-now-matches-a-key"),
    pytest.param("cat e/environ", nothing, link_into_proc, "CG-CAT-011",
                 id="a-link-into-proc-appears"),
]


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    return ws


@pytest.mark.parametrize(("line", "setup", "change", "rule"), ROWS)
def test_a_remembered_decision_sees_the_change(
        tmp_path: Path, line: str, setup: Step, change: Step, rule: str) -> None:
    ws = workspace(tmp_path)
    setup(ws)
    engine = Engine()
    assert engine.check(line, cwd=str(ws)).outcome is Outcome.ALLOW
    change(ws)
    warm = engine.check(line, cwd=str(ws))
    fresh = Engine().check(line, cwd=str(ws))
    assert (warm.outcome, warm.reasons) == (fresh.outcome, fresh.reasons)
    assert warm.outcome > Outcome.ALLOW
    assert rule in {r.rule_id for r in warm.reasons}


@pytest.mark.parametrize(("line", "setup", "change", "rule"), ROWS)
def test_an_unchanged_workspace_is_answered_from_the_cache(
        tmp_path: Path, line: str, setup: Step, change: Step, rule: str) -> None:
    ws = workspace(tmp_path)
    setup(ws)
    engine = Engine()
    first = engine.check(line, cwd=str(ws))
    assert engine.check(line, cwd=str(ws)) is first


@pytest.mark.bwrap
def test_a_remembered_shadow_run_sees_the_directory_change(tmp_path: Path) -> None:
    """The shadow run mirrors the names of the working directory: ``*`` there is what bash
    expands it to. A name that changes between two checks changes what bash would run."""
    line = "printf -v c %s *; $c -rf ~"
    ws = workspace(tmp_path)
    write(ws / "ls", "")
    engine = Engine(shadow=Shadow(Limits(timeout_s=20)))  # a hang guard only
    first = engine.check(line, cwd=str(ws))
    assert first.outcome is Outcome.ASK  # bash would run ls -rf ~
    (ws / "ls").rename(ws / "rm")
    after = engine.check(line, cwd=str(ws))
    assert after.outcome is Outcome.DENY  # bash would run rm -rf ~
    assert {r.rule_id for r in after.reasons} == {"CG-SHADOW-001"}
