"""The git index read without git (``clawgate.validators.gitindex``), checked against what
``git ls-files`` prints for real repositories in each index version, and its use: a delete the
ignore files would spare still asks when git tracks what it takes (an ignore file added
afterwards does not untrack a file, and an uncommitted change to one would be lost)."""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings
from clawgate.validators import gitindex

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

FILES = ("src/main.c", "src/lib/util.c", "cover/index.html", "docs/guide.md",
         "a-very-long-directory-name-to-exercise-prefix-compression/and/deeper/file.txt",
         "a-very-long-directory-name-to-exercise-prefix-compression/and/deeper/other.txt",
         "ünïcode/naïve.txt", "build/keep.txt")


def _git(root: Path, *args: str) -> str:
    assert GIT is not None
    done = subprocess.run([GIT, "-C", str(root), *args], capture_output=True, text=True,
                          check=True, env={"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root),
                                           "PATH": "/usr/bin:/bin"})
    return done.stdout


def _repo(root: Path, *, version: int = 2) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q")
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n", encoding="utf-8")
    _git(root, "add", "--", *[n for n in FILES if not n.startswith(("build/", "cover/"))])
    _git(root, "add", "-f", "--", "build/keep.txt")  # tracked although ignored below
    (root / ".gitignore").write_text("cover/\nbuild/\nsrc/\n", encoding="utf-8")
    _git(root, "update-index", "--index-version", str(version))
    return root


@pytest.mark.parametrize("version", [2, 3, 4])
def test_the_index_names_what_git_ls_files_prints(tmp_path: Path, version: int) -> None:
    root = _repo(tmp_path / "repo", version=version)
    listed = _git(root, "-c", "core.quotePath=false", "ls-files", "-z").split("\0")
    names = gitindex.parse((root / ".git" / "index").read_bytes())
    assert list(names) == [n for n in listed if n]


@pytest.mark.parametrize(("relative", "tracked"), [
    ("src", True), ("src/lib", True), ("src/lib/util.c", True), ("build", True),
    ("cover", False), ("cover/index.html", False), ("sr", False), ("docs/gu", False),
])
def test_tracked_under(tmp_path: Path, relative: str, tracked: bool) -> None:
    root = _repo(tmp_path / "repo", version=4)
    assert gitindex.tracked_under(str(root / relative)) is tracked


def test_outside_a_repository_nothing_is_tracked(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert gitindex.tracked_under(str(tmp_path / "plain")) is False


def test_an_index_that_cannot_be_read_tells_nothing(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    (root / ".git" / "index").write_bytes(b"DIRC\0\0\0\x09garbage")
    assert gitindex.tracked_under(str(root / "cover")) is None


def _decide(root: Path, line: str) -> Outcome:
    return Engine(EngineSettings(workspace=str(root))).check(line, cwd=str(root)).outcome


@pytest.mark.parametrize(("line", "outcome"), [
    ("rm -rf cover", Outcome.ALLOW),  # ignored, nothing tracked in it
    ("rm -rf src", Outcome.ASK),  # ignored afterwards, still tracked
    ("rm -rf build", Outcome.ASK),  # holds a file added with -f
    ("rm -rf src/lib", Outcome.ASK),
])
def test_an_ignored_path_git_tracks_is_not_spared(tmp_path: Path, line: str,
                                                  outcome: Outcome) -> None:
    root = _repo(tmp_path / "repo")
    assert _decide(root, line) is outcome


def test_an_unreadable_index_spares_nothing(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    (root / ".git" / "index").write_bytes(b"not an index")
    assert _decide(root, "rm -rf cover") is Outcome.ASK


@pytest.mark.parametrize(("directory", "patterns", "expected"), [
    ("", ["build"], True),
    ("", ["BUILD"], True),  # -iname
    ("", ["b*d"], True),
    ("", ["*.c"], True),
    ("", ["util.[ch]"], True),
    ("src", ["lib"], True),
    ("src", ["*.md"], False),
    ("", ["cover"], False),  # only the ignore file names it; git tracks nothing there
    ("", ["uild"], False),  # a component whole, not a part of one
    ("", ["build/keep.txt"], False),  # one component
    ("build", ["build"], True),  # find's tests match its start point too
    ("docs", ["*.c"], False),
    ("", ["[z-a]"], None),  # no glob find reads the same way: nothing is known untracked
])
def test_tracked_named(tmp_path: Path, directory: str, patterns: list[str],
                       expected: bool | None) -> None:
    root = _repo(tmp_path / "repo")
    path = str(root / directory) if directory else str(root)
    assert gitindex.tracked_named(path, patterns) is expected


_GLOBS = ["build", "*.pyc", "a?c", "[!a]x", "[]]x", "[]a]x", "[^a]b", "x[", "*.py[co]",
          "[a-c]*", "\\x", ".*", "*", "[!]]x", "a[b", "[[]x", "[a\\]x", "[&&]", "[|~]x"]
_WORDS = ["".join(w) for k in range(4) for w in itertools.product("ab]x[^!.\\c&|~", repeat=k)]


@pytest.mark.parametrize("pattern", _GLOBS)
def test_a_glob_is_read_as_fnmatch_reads_it(pattern: str) -> None:
    expression, run = gitindex._glob(pattern)
    whole = re.compile(f"^(?:{expression})$")
    for word in _WORDS:
        matched = fnmatchcase(word, pattern)
        assert bool(whole.match(word)) is matched, word
        assert not matched or run in word, word
