"""Directories a substitution prints, computed from where the line starts
(``shell/rundirs.py``): ``ROOT=$(pwd); rm -rf "$ROOT/build"`` is judged as ``rm -rf
WORKSPACE/build``, so every rule on the real path applies, and nothing not known exactly gives
way. Each row: (command, expected, why); ``expected``: ``allow``, ``ask`` (exactly), ``deny``,
``not_allow``.

The lines are data: they are only ever handed to ``Engine.check``, never to a shell.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.shell.rundirs import directory_value

Case = tuple[str, str, str]

RESOLVED: list[Case] = [
    ('ROOT=$(pwd); rm -rf "$ROOT/build"', "allow", "a build directory of the workspace"),
    ('ROOT=$PWD; mkdir -p "$ROOT/build"; cd "$ROOT/build"', "allow", "$PWD at the start"),
    ('ROOT="${PWD}"; echo x > "$ROOT/notes.txt"', "allow", "a data file of the workspace"),
    ('ROOT=$(pwd); echo x > "$ROOT/notes.txt"', "allow", "a write the directory names"),
    ('ROOT=$(git rev-parse --show-toplevel); rm -rf "$ROOT/build"', "allow",
     "the repository root holding the workspace, read from the disk"),
    ('ROOT="$(cd "$(dirname "$0")" && pwd)"; "$ROOT/scripts/gen.sh"', "allow",
     "$0 is the shell's name: dirname prints ., the workspace"),
    ('ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; rm -rf "$ROOT/build"', "allow",
     "BASH_SOURCE is empty under bash -c: dirname prints ."),
    ('HERE=$(dirname "$0"); echo hi > "$HERE/out.txt"', "allow", "dirname of $0 is ."),
    ('HERE=$(dirname "$(realpath "$0")"); echo hi > "$HERE/out.txt"', "allow",
     "the directory of the real path of ./bash: the workspace"),
    ('B="$(cd ./build && pwd)"; rm -rf "$B"', "allow", "a ./ directory: no CDPATH search"),
    ('OUT="$(pwd)/dist"; mkdir -p "$OUT" && cp README.md "$OUT/"', "allow",
     "a literal tail after the substitution"),
    ('#!/bin/bash\n# a header\nset -e\nR=$(pwd)\nrm -rf "$R/build"', "allow",
     "a script: its shebang and header are blank lines to bash"),
    ('S=$(cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd)\n'
     'R="$(cd "${S}/build" && pwd)"\necho x > "$R/notes.txt"', "allow",
     "a directory computed from one computed before"),
    ('R="$(git rev-parse --show-toplevel 2>/dev/null)"; rm -rf "$R/build"', "allow",
     "errors thrown away print nothing"),
]

ATTACKS: list[Case] = [
    ('ROOT=$(pwd); cp x "$ROOT/.git/hooks/pre-commit"', "not_allow",
     "a git hook of the workspace: protected, and it runs"),
    ('ROOT=$(git rev-parse --show-toplevel); rm -rf "$ROOT"', "deny",
     "the whole workspace (the repository root is the workspace)"),
    ('ROOT=$(pwd); rm -rf "$ROOT"', "deny", "the whole workspace"),
    ('ROOT="$(cd "$(dirname "$0")" && pwd)"; rm -rf "$ROOT"', "deny", "the whole workspace"),
    ('ROOT=$(pwd); cp evil "$ROOT/.bashrc"', "not_allow", "a dotfile run by name"),
    ('ROOT=$(pwd); cat x >> "$ROOT/.github/workflows/ci.yml"', "not_allow", "a CI workflow"),
    ('ROOT=$(pwd)/..; rm -rf "$ROOT"', "not_allow", "a tail that climbs stays unknown"),
    ('cd /; ROOT=$(pwd); rm -rf "$ROOT/build"', "not_allow", "the shell moved before"),
    ('cd "$X"; ROOT=$(pwd); rm -rf "$ROOT/build"', "not_allow", "moved somewhere unknown"),
    ('f() { cd /; }; f; ROOT=$(pwd); rm -rf "$ROOT/build"', "not_allow",
     "a function that moves the shell"),
    ('pushd /etc; ROOT=$(pwd); rm -rf "$ROOT/build"', "not_allow", "pushd moved it"),
    ('eval "$X"; ROOT=$(pwd); rm -rf "$ROOT/build"', "not_allow", "eval may move it"),
    ('PWD=/etc; ROOT=$PWD; rm -rf "$ROOT/build"', "not_allow", "PWD assigned by the line"),
    ('if [ -n "$A" ]; then ROOT=$(pwd); fi; rm -rf "$ROOT/build"', "not_allow",
     "set only in a branch: the environment's value may remain"),
    ('true && ROOT=$(pwd); rm -rf "$ROOT/build"', "not_allow", "set after &&"),
    ('ROOT=$(pwd); read ROOT; rm -rf "$ROOT/build"', "not_allow", "read sets it again"),
    ('ROOT=$(cd build && pwd); rm -rf "$ROOT"', "not_allow", "CDPATH may find another build"),
    ('ROOT=$(cd "$HOME" && pwd); rm -rf "$ROOT"', "not_allow", "a variable's directory"),
    ('S=$(pwd); read S; R=$(cd "$S" && pwd); rm -rf "$R/build"', "not_allow",
     "the name it builds on is read again"),
    ('S=$(pwd); if [ -n "$A" ]; then S=/; fi; R=$(cd "$S" && pwd); rm -rf "$R/build"',
     "not_allow", "the name it builds on is set in a branch"),
    ('S=$(pwd); declare S=/; R=$(cd "$S" && pwd); rm -rf "$R/build"', "not_allow",
     "the name it builds on is declared again"),
    ('ROOT=$(cd missing && pwd); rm -rf "$ROOT/x"', "not_allow",
     "a directory that is not there: cd fails, nothing printed"),
    ('ROOT=$(pwd -P; echo /); rm -rf "$ROOT/build"', "not_allow", "more than the form"),
    ('ROOT=$(pwd)$X; rm -rf "$ROOT/build"', "not_allow", "a tail with a variable"),
    ('ROOT=$(git rev-parse --git-dir); rm -rf "$ROOT/hooks"', "not_allow", "another query"),
    ('bash -c \'R=$(dirname "$0"); rm -rf "$R/build"\' /', "not_allow",
     "a payload's $0 is the word after it"),
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rundirs") / "project"
    for sub in (".git/hooks", "build", "scripts", "dist", ".github/workflows"):
        (root / sub).mkdir(parents=True)
    return root


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def _expect(outcome: Outcome, expected: str) -> bool:
    return {"allow": outcome is Outcome.ALLOW, "ask": outcome is Outcome.ASK,
            "deny": outcome is Outcome.DENY,
            "not_allow": outcome is not Outcome.ALLOW}[expected]


@pytest.mark.parametrize(("line", "expected", "why"), RESOLVED + ATTACKS,
                         ids=[c[0][:60] for c in RESOLVED + ATTACKS])
def test_run_directories(engine: Engine, workspace: Path, line: str, expected: str,
                         why: str) -> None:
    decision = engine.check(line, cwd=str(workspace))
    assert _expect(decision.outcome, expected), (why, decision.outcome, decision.reasons)


VALUES: list[tuple[str, str | None]] = [
    ("$(pwd)", "{ws}"),
    ('"$(pwd)"', "{ws}"),
    ("$PWD/build", "{ws}/build"),
    ("`pwd`", None),  # backquotes: not read here
    ('"$(cd "$(dirname "$0")/.." && pwd)"', "{parent}"),
    ('$(cd ./build >/dev/null 2>&1 && pwd)', "{ws}/build"),
    ("$(dirname $0)", "."),
    ("$(git rev-parse --show-toplevel)", "{ws}"),
    ("$(git rev-parse --show-toplevel)/scripts", "{ws}/scripts"),
    ("$(pwd)/../x", None),
    ("$(cd build; pwd)", None),
    ("$(pwd)'x'", None),
    ("$(echo $(pwd))", None),
]


@pytest.mark.parametrize(("text", "expected"), VALUES)
def test_directory_value(workspace: Path, text: str, expected: str | None) -> None:
    ws = os.path.realpath(workspace)
    want = None if expected is None else expected.format(ws=ws, parent=os.path.dirname(ws))
    assert directory_value(text, ws) == want


def test_no_repository_above(tmp_path: Path) -> None:
    assert directory_value("$(git rev-parse --show-toplevel)", str(tmp_path)) is None


SAME: list[tuple[str, str]] = [  # judged as the literal path is, whatever that judgement is
    ('ROOT="$(cd "$(dirname "$0")/.." && pwd)"; rm -rf "$ROOT"', "rm -rf {parent}"),
    ('ROOT=$(pwd); cp x "$ROOT/.git/hooks/pre-commit"', "cp x {ws}/.git/hooks/pre-commit"),
    ('ROOT=$(git rev-parse --show-toplevel); rm -rf "$ROOT"', "rm -rf {ws}"),
    ('R=$(pwd); chmod -R 777 "$R/.git"', "chmod -R 777 {ws}/.git"),
]


@pytest.mark.parametrize(("line", "literal"), SAME)
def test_judged_as_the_path(engine: Engine, workspace: Path, line: str, literal: str) -> None:
    ws = str(workspace)
    written = literal.format(ws=ws, parent=os.path.dirname(ws))
    assert engine.check(line, cwd=ws).outcome is engine.check(written, cwd=ws).outcome


def test_tree_named_elsewhere(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n\tworktree = /srv/other\n")
    assert directory_value("$(git rev-parse --show-toplevel)", str(tmp_path)) is None
