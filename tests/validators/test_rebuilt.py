"""A clean rebuild deletes the tree the same line makes again (CG-DEG-003 with
``validators/rebuilt.py``): ``rm -rf b; cmake -B b`` loses nothing where ``b`` holds a build
tree of that kind or nothing; anything else standing there is judged as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Sources, docs, and one tree of each maker under names no build rule knows."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# docs\n")
    (tmp_path / "out.x64").mkdir()
    (tmp_path / "out.x64" / "CMakeCache.txt").write_text("CMAKE_BUILD_TYPE:STRING=Release\n")
    (tmp_path / "mesonb" / "meson-private").mkdir(parents=True)
    (tmp_path / "vendor-tool" / ".git").mkdir(parents=True)
    return tmp_path


SPARED = [
    "rm -rf out.x64; cmake -G Ninja -DCMAKE_BUILD_TYPE=Release -B out.x64 -S src",
    "rm -rf out.x64 && cmake -S src -Bout.x64",
    "rm -rf ./out.x64/ && cmake -B out.x64 -S src && ninja -C out.x64",
    "rm -rf mesonb; meson setup --buildtype release mesonb",
    "rm -rf vendor-tool\ngit clone --depth 1 https://github.com/microsoft/vcpkg-tool vendor-tool",
    "set -e\nrm -rf vendor-tool\ngit clone -b main https://github.com/a/b vendor-tool\n"
    "git -C vendor-tool fetch --depth 1 origin main",
    # configured inside the directory the line enters (the same, so only ``&&`` before it)
    "rm -rf out.x64 && mkdir out.x64 && cd out.x64 && cmake ../src",
    "rm -rf out.x64 && mkdir -p out.x64 && cd out.x64 && cmake -G Ninja -S ../src && ninja",
    # what the line makes but is not there yet
    "git clone https://github.com/a/b t\nrm -rf fresh\ncmake -B fresh -S t",
]

JUDGED = [
    ("rm -rf docs; cmake -B docs -S src", ASK),  # docs holds no build tree
    ("rm -rf src; git clone https://github.com/a/b src", ASK),  # sources, not a clone
    ("rm -rf mesonb; cmake -B mesonb -S src", ASK),  # a tree of another maker
    ("rm -rf out.x64; cmake -B other -S src", ASK),  # not the tree made
    ("rm -rf out.x64; cmake --build out.x64", ASK),  # --build makes no tree
    ("rm -rf out.x64/../docs; cmake -B out.x64", ASK),
    ("rm -rf out.x64 docs; cmake -B out.x64", ASK),  # the other target still judged
    ("ln -s src lnk; rm -rf lnk/; cmake -B lnk", ASK),  # through a link: the sources
    ("rm -rf $D; cmake -B $D", ASK),  # known only at run time
    ("rm -rf docs && mkdir docs && cd docs && cmake ../src", ASK),  # no build tree there
    ("rm -rf out.x64; cd out.x64; cmake ../src", ASK),  # the cd may fail: cmake runs here
    ("rm -rf out.x64 && cd out.x64 && cmake --build .", ASK),  # --build makes no tree
    ("rm -rf src && cd out.x64 && cmake ..", ASK),  # another directory than the one deleted
    ("rm -rf out.x64 && cd out.x64 && cmake -E echo hi", ASK),  # a command mode: no tree
    ("rm -rf out.x64 && cd out.x64 && cmake -P ../x.cmake", ASK),  # a script: no tree
    ("rm -rf .; cmake -B .", DENY),  # the workspace itself
    ("rm -rf ~/.ssh; git clone https://github.com/a/b ~/.ssh", DENY),  # outside: as before
    ("rm -rf vendor-tool; git clone --depth vendor-tool https://github.com/a/b x", ASK),
]


@pytest.mark.parametrize("line", SPARED)
def test_a_tree_the_line_makes_again_is_deleted_freely(project: Path, line: str) -> None:
    decision = Engine().check(line, cwd=str(project))
    assert decision.outcome is ALLOW, (line, [r.rule_id for r in decision.reasons])


@pytest.mark.parametrize(("line", "expected"), JUDGED)
def test_anything_else_standing_there_is_judged(project: Path, line: str,
                                                expected: Outcome) -> None:
    decision = Engine().check(line, cwd=str(project))
    assert decision.outcome is expected, (line, [r.rule_id for r in decision.reasons])
