"""Program identity (CG-IDENT-001): a program named by a path runs that file; its tier is the
file's place, not the system tool's of the same name."""

from __future__ import annotations

import pytest
from vtables import ASK, DENY, assert_allowed, assert_caught, decision

from clawgate.decision import Risk
from clawgate.engine import Engine
from clawgate.policy.settings import Autonomy, EngineSettings


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("/tmp/x/git status", ASK, "CG-IDENT-001"),
    ("/home/dev/Downloads/cat notes.txt", ASK, "CG-IDENT-001"),
    ("/dev/shm/ls", ASK, "CG-IDENT-001"),
    ("PATH=/tmp/x:$PATH git status", ASK, "CG-IDENT-001"),
    ("./rm -rf /", DENY, "CG-CAT-001"),  # still judged as rm for what it destroys
    ("PAGER=./less git log", ASK, "CG-ENV-002"),  # ./less is no pager
])
def test_programs_from_elsewhere(line: str, expected: object, rule: str) -> None:
    assert_caught(line, expected, rule)  # type: ignore[arg-type]


@pytest.mark.parametrize("line", [
    "./gradlew build",
    "node_modules/.bin/eslint .",
    "/usr/bin/env python3 -V",
    "/opt/homebrew/bin/jq . x.json",
    "~/.cargo/bin/cargo build",
    "~/.local/bin/ruff check .",
    "../configure",  # relative to a place a cd may have changed
    "PATH=/usr/local/bin:$PATH make",
    "PATH=./bin:$PATH mytool",
])
def test_project_and_installed_programs_are_allowed(line: str) -> None:
    assert_allowed(line)


@pytest.mark.parametrize("line", ["./cat x", "tools/grep -r x .", "PATH=.:$PATH cat x"])
def test_a_project_file_named_like_a_reader_is_not_a_read(line: str) -> None:
    assert decision(line).risk is Risk.MEDIUM
    readonly = Engine(EngineSettings(autonomy=Autonomy.READONLY))
    assert decision(line, readonly).outcome is DENY
    assert decision("cat x", readonly).risk is Risk.LOW


@pytest.mark.parametrize(("line", "expected", "rule"), [
    ("alias ls=rm; ls -rf ~", DENY, None),  # the later ls is checked as rm -rf ~
    ("unalias ls; alias ls=rm; ls -rf ~", DENY, None),
    ("alias g=git; g push --force", ASK, None),
    ("alias cat=curl", ASK, "CG-IDENT-002"),
    ("hash -p /tmp/x/evil ls; ls", ASK, "CG-IDENT-001"),
    (". /tmp/x.sh", ASK, "CG-IDENT-001"),
    ("source /dev/shm/env.sh", ASK, "CG-IDENT-001"),
    ("PATH=~/Downloads:$PATH node app.js", ASK, "CG-IDENT-001"),
    ("cd /tmp/x && ./git status", ASK, "CG-IDENT-003"),
])
def test_aliases_loaders_and_places(line: str, expected: object, rule: str | None) -> None:
    assert_caught(line, expected, rule)  # type: ignore[arg-type]


@pytest.mark.parametrize("line", [
    "alias ll='ls -la'; ll",
    "alias gs='git status'; gs",
    "source .venv/bin/activate",
    "hash -r",
    "cd tools && ./build.sh",
    "cd /home/dev/project/sub && ../gradlew test",
])
def test_harmless_aliases_loaders_and_places(line: str) -> None:
    assert_allowed(line)


def test_sourcing_from_downloads_and_programs_after_pushd() -> None:
    assert_caught(". ~/Downloads/setup.sh", ASK, "CG-IDENT-001")
    assert_caught("pushd /tmp/x; ./run.sh", ASK, "CG-IDENT-003")
    assert_allowed("source ~/.nvm/nvm.sh")
    assert_allowed("source /dev/stdin <<< 'echo hi'")  # the text given is what is read
